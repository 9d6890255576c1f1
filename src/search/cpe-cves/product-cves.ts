/**
 * The CVEs of any CPE name of one product (part:vendor:product), prepared once from the product's
 * criteria rows: CVE ids become dense local numbers in id order (so a bitmap iterates in the
 * answer's order); key-decided criteria (fast-criteria.ts) become a bitmap of every-version CVEs,
 * bitmaps per exact version key and an interval stabbing structure over the update-folded key;
 * the rest (slow-criteria.ts) is evaluated per name and remembered for recently asked names.
 * Vulnerable and non-vulnerable criteria are kept apart, so both answers come from one structure.
 */
import type { Wfn } from '../../core/cpe.js';
import type { ProductIdentity } from '../../storage/index.js';
import type { NameLookup } from '../../core/applicability/index-keys.js';
import type { CveApplicability, IndexedCriterion } from '../../core/applicability/types.js';
import { RoaringBitmap32, type Bitmap } from '../bitmap.js';
import { CveJsonTable, type CveList, tableList } from './cve-list.js';
import { fastCriterionOf, type FastCriterion } from './fast-criteria.js';
import { IntervalStabbing, type KeyInterval } from './interval-stabbing.js';
import { mayCover, slowCriteriaOf, type SlowCriterion } from './slow-criteria.js';
import { SlowCriteriaIndex } from './slow-index.js';
import type { Slicer } from '../slices.js';
import { nextFamily } from '../../core/version/family.js';
import { versionOfWfn } from '../../core/version/cpe-version.js';
import { versionSortKey } from '../../core/version/sort-key.js';
import { lowerBound, upperBound } from './sorted-keys.js';

export type { ProductIdentity };

interface KeyedCriteria {
  all: Bitmap;
  exact: Map<string, Bitmap>;
  ranges: IntervalStabbing;
}

/** Per-name results of the slow criteria kept (names of a product asked again, e.g. page by page). */
const REMEMBERED_NAMES = 4096;

export interface ProductRow extends IndexedCriterion {
  cveId: string;
  /** Whether a hit of a key-decided criterion confirms the CVE by itself (undefined: not stored). */
  decided?: boolean;
}

/**
 * What preparing a product needs: its rows (all at once is fine — a product's rows fit in memory)
 * and the applicability of the CVEs some of whose rows are evaluated per name.
 */
export interface ProductSource {
  applicability(cveIds: readonly string[]): Promise<CveApplicability[]>;
}

export class ProductCves {
  private readonly remembered = new Map<string, { vulnerable: number[]; other: number[] }>();
  private jsonTable: CveJsonTable | undefined;

  private constructor(
    readonly identity: ProductIdentity,
    /** Local number → CVE id, ascending. */
    private readonly cveIds: string[],
    private readonly vulnerable: KeyedCriteria,
    private readonly other: KeyedCriteria,
    private readonly slow: SlowCriterion[],
    /** The slow criteria by their rows' version keys (undefined when there are none). */
    private readonly slowIndex: SlowCriteriaIndex | undefined,
    /**
     * The bound keys of the vulnerable key-decided ranges, sorted, for host matching's family
     * check: `atStart` holds those that cut a family they equal the start of (`<= 4.0`, `> 4.0`).
     */
    private readonly vulnerableBounds: { inside: SortedBounds; atStart: SortedBounds },
    /** Per local CVE, 1 when a key-decided hit confirms it by itself; `unknown`: CVEs whose rows predate the stored flag. */
    readonly decided: { flags: Uint8Array; unknown: string[] },
    /** Rows read, for the cache's budget. */
    readonly weight: number,
  ) {}

  static async prepare(
    identity: ProductIdentity,
    rows: readonly ProductRow[],
    source: ProductSource,
    slicer: Slicer,
  ): Promise<ProductCves> {
    const cveIds = [...new Set(rows.map((row) => row.cveId))].sort();
    const local = new Map(cveIds.map((id, i) => [id, i]));
    const decided = new Uint8Array(cveIds.length);
    const undecided = new Set<string>();
    for (const row of rows) {
      if (row.decided === undefined) undecided.add(row.cveId);
      else if (row.decided) decided[local.get(row.cveId)!] = 1;
    }
    const builders = { vulnerable: newBuilder(), other: newBuilder() };
    const slowCves = new Set<string>();
    let i = 0;
    for (const row of rows) {
      if (++i % 512 === 0) await slicer.yieldIfDue();
      const fast = fastCriterionOf(row);
      if (fast) addFast(row.vulnerable ? builders.vulnerable : builders.other, fast, local.get(row.cveId)!);
      else slowCves.add(row.cveId);
    }
    const applies = (row: IndexedCriterion) =>
      (row.part === identity.part || row.part === '*') &&
      (row.vendor === identity.vendor || row.vendor === '*') &&
      (row.product === identity.product || row.product === '*');
    const isFast = (row: IndexedCriterion) => fastCriterionOf(row) !== undefined;
    const slow: SlowCriterion[] = [];
    const wanted = [...slowCves].sort();
    for (let start = 0; start < wanted.length; start += 500) {
      await slicer.yieldIfDue();
      for (const app of await source.applicability(wanted.slice(start, start + 500))) {
        const cve = local.get(app.cveId);
        if (cve !== undefined) slow.push(...slowCriteriaOf(app, cve, applies, isFast));
      }
    }
    const pause = () => slicer.yieldIfDue();
    const inside = new Map<string, number[]>();
    const atStart = new Map<string, number[]>();
    const note = (bounds: Map<string, number[]>, key: string, cve: number) => {
      const cves = bounds.get(key);
      if (cves) cves.push(cve);
      else bounds.set(key, [cve]);
    };
    for (const range of builders.vulnerable.ranges) {
      if (range.start !== undefined) note(range.startInclusive ? inside : atStart, range.start, range.value);
      if (range.end !== undefined) note(range.endInclusive ? atStart : inside, range.end, range.value);
    }
    const vulnerableBounds = { inside: sortedBounds(inside), atStart: sortedBounds(atStart) };
    const slowIndex = slow.length === 0 ? undefined : await SlowCriteriaIndex.build(slow, pause);
    const vulnerable = await buildKeyed(builders.vulnerable, cveIds.length, pause);
    const other = await buildKeyed(builders.other, cveIds.length, pause);
    return new ProductCves(
      identity,
      cveIds,
      vulnerable,
      other,
      slow,
      slowIndex,
      vulnerableBounds,
      { flags: decided, unknown: [...undecided].sort() },
      rows.length,
    );
  }

  /**
   * The CVE ids (ascending) of a name of this product: `lookup` is nameLookupOf(name), whose part,
   * vendor and product must be this product's and concrete.
   */
  async cvesOf(name: Wfn, cpe: string, lookup: NameLookup, vulnerableOnly: boolean, slicer: Slicer): Promise<string[]> {
    return (await this.cveListOf(name, cpe, lookup, vulnerableOnly, slicer)).ids();
  }

  /** The same CVEs as a list that writes its JSON from the product's id table. */
  async cveListOf(
    name: Wfn,
    cpe: string,
    lookup: NameLookup,
    vulnerableOnly: boolean,
    slicer: Slicer,
  ): Promise<CveList> {
    const locals = (await this.localsOf(name, cpe, lookup, vulnerableOnly, slicer)).toUint32Array();
    return tableList(() => (this.jsonTable ??= CveJsonTable.of(this.cveIds)), this.cveIds, locals);
  }

  private async localsOf(
    name: Wfn,
    cpe: string,
    lookup: NameLookup,
    vulnerableOnly: boolean,
    slicer: Slicer,
  ): Promise<Bitmap> {
    const parts: Bitmap[] = [];
    const extra: number[] = [];
    const keyed = vulnerableOnly ? [this.vulnerable] : [this.vulnerable, this.other];
    for (const criteria of keyed) {
      if (!criteria.all.isEmpty) parts.push(criteria.all);
      for (const key of new Set([lookup.rawKey, lookup.foldedKey])) {
        if (key === undefined) continue;
        const exact = criteria.exact.get(key);
        if (exact) parts.push(exact);
      }
      if (lookup.foldedKey !== undefined) {
        const stabbed = criteria.ranges.stab(lookup.foldedKey);
        if (!stabbed.covering.isEmpty) parts.push(stabbed.covering);
        extra.push(...stabbed.extra);
      }
    }
    const slow = await this.slowOf(name, cpe, lookup, slicer);
    extra.push(...slow.vulnerable);
    if (!vulnerableOnly) extra.push(...slow.other);
    const union = RoaringBitmap32.orMany(parts);
    if (extra.length > 0) union.addMany(extra);
    return union;
  }

  /**
   * The union of the names' CVEs as local numbers (names of this product, with their lookups):
   * each distinct version key is looked up once, the stabbing blocks' bitmaps are united once
   * each, and a per-name criterion stops at the first name it covers, so thousands of names cost
   * about what their distinct versions do.
   */
  async unionOf(names: readonly ProductName[], vulnerableOnly: boolean, slicer: Slicer): Promise<Bitmap> {
    const keys = new Set<string>();
    const folded = new Set<string>();
    for (const { lookup } of names) {
      if (lookup.rawKey !== undefined) keys.add(lookup.rawKey);
      if (lookup.foldedKey !== undefined) {
        keys.add(lookup.foldedKey);
        folded.add(lookup.foldedKey);
      }
    }
    const parts = new Set<Bitmap>();
    const extra: number[] = [];
    const keyed = vulnerableOnly ? [this.vulnerable] : [this.vulnerable, this.other];
    let i = 0;
    for (const criteria of keyed) {
      if (!criteria.all.isEmpty) parts.add(criteria.all);
      for (const key of keys) {
        const exact = criteria.exact.get(key);
        if (exact) parts.add(exact);
      }
      for (const key of folded) {
        if ((++i & 255) === 255) await slicer.yieldIfDue();
        const stabbed = criteria.ranges.stab(key);
        if (!stabbed.covering.isEmpty) parts.add(stabbed.covering);
        for (const value of stabbed.extra) extra.push(value);
      }
    }
    const union = RoaringBitmap32.orMany([...parts]);
    if (extra.length > 0) union.addMany(extra);
    for (const criterion of this.slow) {
      if ((vulnerableOnly && !criterion.vulnerable) || union.has(criterion.cve)) continue;
      for (const { name, lookup } of names) {
        if ((++i & 1023) === 1023) await slicer.yieldIfDue();
        if (mayCover(criterion, lookup) && criterion.covers(name)) {
          union.add(criterion.cve);
          break;
        }
      }
    }
    return union;
  }

  /** The CVE ids of local numbers, ascending. */
  idsOf(locals: Bitmap): string[] {
    return Array.from(locals, (local) => this.cveIds[local]!);
  }

  private async slowOf(
    name: Wfn,
    cpe: string,
    lookup: NameLookup,
    slicer: Slicer,
  ): Promise<{ vulnerable: number[]; other: number[] }> {
    if (this.slow.length === 0) return NONE;
    const known = this.remembered.get(cpe);
    if (known) return known;
    const result = { vulnerable: [] as number[], other: [] as number[] };
    const candidates = this.slowIndex?.candidatesOf(lookup);
    const count = candidates?.length ?? this.slow.length;
    for (let n = 0; n < count; n++) {
      // CVE 5 version lists can be long: a product with thousands of them is evaluated in slices.
      if ((n & 255) === 255) await slicer.yieldIfDue();
      const criterion = this.slow[candidates ? candidates[n]! : n]!;
      if (!(candidates || mayCover(criterion, lookup)) || !criterion.covers(name)) continue;
      (criterion.vulnerable ? result.vulnerable : result.other).push(criterion.cve);
    }
    if (this.remembered.size >= REMEMBERED_NAMES) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(cpe, result);
    return result;
  }

  /**
   * Host matching's split of the CVEs a fingerprint name is the vulnerable element of: those it
   * confirms by itself (ascending) — hit by a key-decided criterion, in a CVE that `decided` marks (an NVD
   * CVE whose configurations are ORs of OR nodes), and no range bound inside the name's version
   * family — and the rest, which the rules must evaluate.
   */
  async confirmationsOf(
    name: Wfn,
    cpe: string,
    lookup: NameLookup,
    decided: Uint8Array,
    slicer: Slicer,
  ): Promise<{ confirmed: string[]; evaluate: string[] }> {
    const fast: Bitmap[] = [];
    const criteria = this.vulnerable;
    if (!criteria.all.isEmpty) fast.push(criteria.all);
    for (const key of new Set([lookup.rawKey, lookup.foldedKey])) {
      const exact = key === undefined ? undefined : criteria.exact.get(key);
      if (exact) fast.push(exact);
    }
    const hits = RoaringBitmap32.orMany(fast);
    if (lookup.foldedKey !== undefined) {
      const stabbed = criteria.ranges.stab(lookup.foldedKey);
      hits.orInPlace(stabbed.covering);
      if (stabbed.extra.length > 0) hits.addMany(stabbed.extra);
    }
    const cut = this.familyCutsOf(name, lookup);
    const confirmed: string[] = [];
    const evaluate = new Set<number>();
    for (const local of hits.toUint32Array()) {
      if (decided[local] === 1 && !cut?.has(local)) confirmed.push(this.cveIds[local]!);
      else evaluate.add(local);
    }
    for (const local of (await this.slowOf(name, cpe, lookup, slicer)).vulnerable) evaluate.add(local);
    return { confirmed, evaluate: [...evaluate].sort((a, b) => a - b).map((local) => this.cveIds[local]!) };
  }

  /**
   * The CVEs with a range bound within the name's version family (from its version up to the next
   * family, `4` → [4, 5)): their range hit may be a family cut, for the rules to decide.
   */
  private familyCutsOf(name: Wfn, lookup: NameLookup): Set<number> | undefined {
    const { inside, atStart } = this.vulnerableBounds;
    const key = lookup.foldedKey;
    if (key === undefined || (inside.keys.length === 0 && atStart.keys.length === 0)) return undefined;
    const version = versionOfWfn(name);
    const next = version === undefined ? undefined : nextFamily(version);
    if (next === undefined) return undefined;
    const end = versionSortKey(next);
    const cut = new Set<number>();
    // Strictly after the family's start for most bounds, from it for those that cut there.
    for (const [bounds, first] of [
      [inside, upperBound(inside.keys, key)],
      [atStart, lowerBound(atStart.keys, key)],
    ] as const) {
      for (let i = first; i < bounds.keys.length && (end === undefined || bounds.keys[i]! < end); i++)
        for (const cve of bounds.cves[i]!) cut.add(cve);
    }
    return cut;
  }

  /** All CVE ids of the product, ascending (local number order). */
  get cveIdList(): readonly string[] {
    return this.cveIds;
  }

  /** Criteria evaluated per name (for reports). */
  get slowCriteria(): number {
    return this.slow.length;
  }

  get cveCount(): number {
    return this.cveIds.length;
  }
}

const NONE = { vulnerable: [], other: [] };

/** A name of a product with its index lookup (nameLookupOf). */
export interface ProductName {
  name: Wfn;
  lookup: NameLookup;
}

/** Bound keys, ascending, with the CVEs whose ranges have each. */
interface SortedBounds {
  keys: string[];
  cves: number[][];
}

function sortedBounds(bounds: Map<string, number[]>): SortedBounds {
  const keys = [...bounds.keys()].sort();
  return { keys, cves: keys.map((key) => bounds.get(key)!) };
}

interface Builder {
  all: number[];
  exact: Map<string, number[]>;
  ranges: KeyInterval[];
}

const newBuilder = (): Builder => ({ all: [], exact: new Map(), ranges: [] });

function addFast(builder: Builder, fast: FastCriterion, cve: number): void {
  if (fast.type === 'all') builder.all.push(cve);
  else if (fast.type === 'exact') {
    const list = builder.exact.get(fast.key);
    if (list) list.push(cve);
    else builder.exact.set(fast.key, [cve]);
  } else {
    builder.ranges.push({
      ...(fast.start !== undefined ? { start: fast.start } : {}),
      startInclusive: fast.startInclusive,
      ...(fast.end !== undefined ? { end: fast.end } : {}),
      endInclusive: fast.endInclusive,
      value: cve,
    });
  }
}

/** Read-only stand-ins for empty parts: most products have no platform-only criteria, many no ranges. */
const NO_CVES = new RoaringBitmap32();
let noKeyed: Promise<KeyedCriteria> | undefined;

async function buildKeyed(builder: Builder, cveCount: number, pause: () => Promise<void>): Promise<KeyedCriteria> {
  if (builder.all.length === 0 && builder.exact.size === 0 && builder.ranges.length === 0) {
    noKeyed ??= IntervalStabbing.build([], 0).then((ranges) => ({ all: NO_CVES, exact: new Map(), ranges }));
    return noKeyed;
  }
  await pause();
  const exact = new Map<string, Bitmap>();
  for (const [key, cves] of builder.exact) {
    // linux_kernel at 400k CVEs has 3,380 exact versions: ~10 ms of native calls.
    if ((exact.size & 511) === 511) await pause();
    exact.set(key, new RoaringBitmap32(cves));
  }
  return {
    all: builder.all.length > 0 ? new RoaringBitmap32(builder.all) : NO_CVES,
    exact,
    ranges: await IntervalStabbing.build(builder.ranges, cveCount, pause),
  };
}
