/**
 * The advisory filters that terms alone cannot decide (`version`, `cpe`, several entry filters on
 * one affected entry), answered over the match data of every record held, keyed by a stable
 * record slot. The answer is exactly what core/advisory/match.ts `recordMatches` says, but a
 * query costs lookups and set operations: each affected entry and criterion is a match item with
 * posting lists per identity value, a version structure per product (version-group.ts) built
 * lazily after the product changed, and the CPE criterion strings indexed by vendor and product.
 */
import { criterionCoversVersion, insideRange, parseCached } from '../../core/advisory/cpe-match.js';
import type { MatchCriterion, MatchData, MatchEntry } from '../../core/advisory/facts.js';
import { needsMatchData, type AdvisoryFilters } from '../../core/advisory/filters.js';
import { normalizeText } from '../../core/advisory/terms.js';
import { isAffected } from '../../core/advisory/version-match.js';
import { unquoteWfnValue, type Wfn } from '../../core/cpe.js';
import { versionOfWfn } from '../../core/version/cpe-version.js';
import { bitmapOfUnsorted, intersectAll, RoaringBitmap32, type Bitmap } from '../bitmap.js';
import { answerOf, CpeCriteria } from './cpe-criteria.js';
import { compileCriterion } from './criterion-rule.js';
import { compileEntry } from './entry-rule.js';
import {
  buildGroup,
  criteriaCovering,
  criteriaInside,
  entriesAffected,
  type GroupStructure,
  type ItemSource,
} from './version-group.js';
import { Slicer } from '../slices.js';
import { uint32Column, uint8Column } from '../columns.js';
import { ItemStore } from './item-store.js';

/** Where an item is indexed; derived from its entry or criterion when added and again when deleted. */
interface Placement {
  /** The version groups holding the item; the first is its product's. */
  groups: string[];
  postings: Array<[Posting, string]>;
  cpes: string[];
  vendor: string | undefined;
  product: string | undefined;
}

type Posting = 'vendor' | 'product' | 'platform' | 'packageName' | 'packageKey';

class VersionGroup {
  readonly members = new RoaringBitmap32();
  /** Members added or removed so far; a structure remembers the count it was built at. */
  changes = 0;
  structure: { built: GroupStructure; changes: number } | undefined;
  building: Promise<GroupStructure> | undefined;

  /** How many members changed since the structure was built (at most). */
  get changedSince(): number {
    return this.structure ? this.changes - this.structure.changes : Number.POSITIVE_INFINITY;
  }
}

const GLOBAL = 'all';
const productGroup = (vendor: string | undefined, product: string | undefined) =>
  `vp:${JSON.stringify([vendor ?? null, product ?? null])}`;
const packageNameGroup = (name: string) => `n:${name}`;
const packageKeyGroup = (key: string) => `k:${key}`;

/**
 * By default a structure is rebuilt once 32 + 1/8 of its members (at most 512) changed: in the
 * background while the members changed since stay under {@link WAIT_ABOVE} (the reference decides
 * them per query meanwhile), else before answering.
 */
const defaultStaleAfter = (built: number) => Math.min(32 + (built >> 3), 512);
const WAIT_ABOVE = 4096;

export interface MatchIndexOptions {
  /** How many members of a group may change before its structure is rebuilt, given its size when built. */
  staleAfter?: (built: number) => number;
  /** Above this many changed members a query waits for the rebuild (default 4096). */
  waitAbove?: number;
}

export interface MatchIndexStats {
  items: number;
  groups: number;
  builtGroups: number;
  criterionStrings: number;
  /** Entries and criteria of built structures decided per query by the reference rules. */
  evaluatedEntries: number;
  evaluatedCriteria: number;
  /** The longest build of one product's structure, ms (wall time, slices and yields included). */
  slowestBuildMs: number;
}

export class AdvisoryMatchIndex {
  private readonly store = new ItemStore();
  private liveItems = 0;
  /** A slot's items have consecutive ids: the first, and how many (a slot without any still counts as set). */
  private readonly firstItem = uint32Column();
  private readonly itemCount = uint32Column();
  private readonly slotSet = uint8Column();
  private slotsSet = 0;
  /** The slot of each item id ever given (ids are never reused: a structure may still name a deleted one). */
  private slotOfItem = new Uint32Array(1024);
  private readonly groups = new Map<string, VersionGroup>();
  private readonly postings: Record<Posting, Map<string, Bitmap>> = {
    vendor: new Map(),
    product: new Map(),
    platform: new Map(),
    packageName: new Map(),
    packageKey: new Map(),
  };
  /** Product groups by vendor and by product, with how many items each holds there. */
  private readonly groupsByVendor = new Map<string, Map<string, number>>();
  private readonly groupsByProduct = new Map<string, Map<string, number>>();
  private readonly cpes = new CpeCriteria();
  private readonly staleAfter: (built: number) => number;
  private readonly waitAbove: number;
  private readonly slices = new Slicer();

  constructor(options: MatchIndexOptions = {}) {
    this.staleAfter = options.staleAfter ?? defaultStaleAfter;
    this.waitAbove = options.waitAbove ?? WAIT_ABOVE;
  }

  private readonly source: ItemSource = {
    has: (item) => this.store.has(item),
    isCriterion: (item) => this.store.isCriterion(item),
    entry: (item) => this.store.entry(item),
    criterion: (item) => this.store.criterion(item),
    entryRule: (item) => compileEntry(this.store.entry(item)),
    criterionRule: (item) => compileCriterion(this.store.criterion(item)),
  };

  /** Adds the match data of a record slot, or replaces it. */
  set(slot: number, data: MatchData): void {
    this.delete(slot);
    let first: number | undefined;
    let count = 0;
    const added = (id: number) => {
      first ??= id;
      count++;
    };
    for (const entry of data.entries) added(this.addItem(slot, { entry }, entryPlacement(entry)));
    for (const criterion of data.criteria) {
      const placement = criterionPlacement(criterion);
      if (placement) added(this.addItem(slot, { criterion }, placement));
    }
    this.firstItem.set(slot, first ?? 0);
    this.itemCount.set(slot, count);
    this.slotSet.set(slot, 1);
    this.slotsSet++;
  }

  delete(slot: number): void {
    if (this.slotSet.get(slot) === 0) return;
    this.slotSet.set(slot, 0);
    this.slotsSet--;
    const first = this.firstItem.get(slot);
    for (let id = first, end = first + this.itemCount.get(slot); id < end; id++) {
      const placement = this.store.isCriterion(id)
        ? criterionPlacement(this.store.criterion(id))!
        : entryPlacement(this.store.entry(id));
      for (const key of placement.groups) {
        const group = this.groups.get(key);
        if (!group) continue;
        group.members.remove(id);
        group.changes++;
        if (group.members.isEmpty && !group.building) this.groups.delete(key);
      }
      for (const [posting, value] of placement.postings) {
        const bitmap = this.postings[posting].get(value);
        bitmap?.remove(id);
        if (bitmap?.isEmpty) this.postings[posting].delete(value);
      }
      this.countGroup(placement, -1);
      for (const text of placement.cpes) this.cpes.remove(text, id, placement.groups[0]!);
      this.store.delete(id);
      this.liveItems--;
    }
  }

  get size(): number {
    return this.slotsSet;
  }

  /** The slot's affected entries that name the package `key`, in record order. */
  packageEntries(slot: number, key: string): MatchEntry[] {
    const naming = this.postings.packageKey.get(key);
    if (!naming || this.slotSet.get(slot) === 0) return [];
    const out: MatchEntry[] = [];
    const first = this.firstItem.get(slot);
    // A slot's entries precede its criteria and take consecutive ids in record order.
    for (let id = first, end = first + this.itemCount.get(slot); id < end; id++) {
      if (naming.has(id)) out.push(this.store.entry(id));
    }
    return out;
  }

  stats(): MatchIndexStats {
    let builtGroups = 0;
    let evaluatedEntries = 0;
    let evaluatedCriteria = 0;
    let slowestBuildMs = 0;
    for (const [key, group] of this.groups) {
      if (!group.structure || key === GLOBAL || !key.startsWith('vp:')) continue;
      builtGroups++;
      slowestBuildMs = Math.max(slowestBuildMs, group.structure.built.buildMs);
      evaluatedEntries += group.structure.built.entriesEvaluated.length;
      evaluatedCriteria += group.structure.built.criteriaEvaluated.length;
    }
    return {
      items: this.liveItems,
      groups: this.groups.size,
      builtGroups,
      criterionStrings: this.cpes.size,
      evaluatedEntries,
      evaluatedCriteria,
      slowestBuildMs,
    };
  }

  /** Builds every stale product structure now (in slices), e.g. after a start or a feed load. */
  async prepare(): Promise<void> {
    for (const [key, group] of [...this.groups]) if (key !== GLOBAL) await this.structureOf(group);
  }

  private addItem(
    slot: number,
    item: { entry: MatchEntry } | { criterion: MatchCriterion },
    placement: Placement,
  ): number {
    const id = this.store.add(item);
    this.liveItems++;
    if (id >= this.slotOfItem.length) {
      const grown = new Uint32Array(this.slotOfItem.length * 2);
      grown.set(this.slotOfItem);
      this.slotOfItem = grown;
    }
    this.slotOfItem[id] = slot;
    for (const key of placement.groups) {
      let group = this.groups.get(key);
      if (!group) {
        group = new VersionGroup();
        this.groups.set(key, group);
      }
      group.members.add(id);
      group.changes++;
    }
    for (const [posting, value] of placement.postings) {
      let bitmap = this.postings[posting].get(value);
      if (!bitmap) {
        bitmap = new RoaringBitmap32();
        this.postings[posting].set(value, bitmap);
      }
      bitmap.add(id);
    }
    this.countGroup(placement, 1);
    for (const text of placement.cpes) this.cpes.add(text, id, placement.groups[0]!);
    return id;
  }

  private countGroup(placement: Placement, delta: number): void {
    const group = placement.groups[0]!;
    const count = (index: Map<string, Map<string, number>>, value: string | undefined) => {
      if (value === undefined) return;
      let groups = index.get(value);
      if (!groups) {
        groups = new Map();
        index.set(value, groups);
      }
      const next = (groups.get(group) ?? 0) + delta;
      if (next > 0) groups.set(group, next);
      else groups.delete(group);
      if (groups.size === 0) index.delete(value);
    };
    count(this.groupsByVendor, placement.vendor);
    count(this.groupsByProduct, placement.product);
  }

  /** The group's structure, built or rebuilt first when missing or when many members changed. */
  private async structureOf(group: VersionGroup): Promise<GroupStructure> {
    for (;;) {
      const current = group.structure;
      if (current && group.changedSince <= this.staleAfter(current.built.members.size)) return current.built;
      const building = group.building ?? this.rebuild(group);
      if (current && group.changedSince <= this.waitAbove) {
        // A failed background build is retried, and awaited, by a later query.
        building.catch(() => {});
        return current.built;
      }
      await building;
    }
  }

  private rebuild(group: VersionGroup): Promise<GroupStructure> {
    const changes = group.changes;
    group.building = buildGroup(group.members.clone(), this.source, this.slices)
      .then((built) => {
        group.structure = { built, changes };
        return built;
      })
      .finally(() => {
        group.building = undefined;
      });
    return group.building;
  }

  /**
   * Items of the group that a structure answers for, plus its members added since the build
   * (decided by `decide`), restricted to the members still held.
   */
  private async answer(
    key: string,
    fromStructure: (structure: GroupStructure) => Bitmap,
    decide: (item: number) => boolean,
  ): Promise<Bitmap> {
    const group = this.groups.get(key);
    if (!group) return new RoaringBitmap32();
    const structure = await this.structureOf(group);
    const out = fromStructure(structure);
    for (const item of RoaringBitmap32.andNot(group.members, structure.members)) if (decide(item)) out.add(item);
    out.andInPlace(group.members);
    return out;
  }

  /** The version groups a version query reads: one product or package, a vendor's products, or all. */
  private versionGroups(filters: AdvisoryFilters): string[] {
    if (filters.packageKey !== undefined) return [packageKeyGroup(filters.packageKey)];
    if (filters.packageName !== undefined) return [packageNameGroup(filters.packageName)];
    if (filters.vendor !== undefined && filters.product !== undefined)
      return [productGroup(filters.vendor, filters.product)];
    if (filters.vendor !== undefined) return [...(this.groupsByVendor.get(filters.vendor)?.keys() ?? [])];
    if (filters.product !== undefined) return [...(this.groupsByProduct.get(filters.product)?.keys() ?? [])];
    // A platform alone, or no identity at all: every product, through one structure.
    return [GLOBAL];
  }

  /** Items whose identity fits every named entry filter (criteria only when no entry-only filter is named). */
  private identityPostings(filters: AdvisoryFilters): Bitmap[] {
    const out: Bitmap[] = [];
    const posting = (kind: Posting, value: string | undefined) => {
      if (value !== undefined) out.push(this.postings[kind].get(value) ?? new RoaringBitmap32());
    };
    posting('vendor', filters.vendor);
    posting('product', filters.product);
    posting('platform', filters.platform);
    posting('packageName', filters.packageName);
    posting('packageKey', filters.packageKey);
    return out;
  }

  private async versionItems(filters: AdvisoryFilters, version: string): Promise<Bitmap> {
    const entryOnly =
      filters.platform !== undefined || filters.packageName !== undefined || filters.packageKey !== undefined;
    const out = new RoaringBitmap32();
    for (const key of this.versionGroups(filters)) {
      const entries = await this.answer(
        key,
        (structure) => entriesAffected(structure, this.source, version),
        (item) => (this.source.isCriterion(item) ? false : isAffected(version, this.source.entry(item))),
      );
      out.orInPlace(entries);
      if (entryOnly) continue;
      const criteria = await this.answer(
        key,
        (structure) => criteriaCovering(structure, this.source, version),
        (item) => this.source.isCriterion(item) && criterionCoversVersion(this.source.criterion(item), version),
      );
      out.orInPlace(criteria);
    }
    const identity = this.identityPostings(filters);
    return identity.length > 0 ? intersectAll([out, ...identity]) : out;
  }

  /** Items meeting a `cpe` query: each candidate string decided once, version rules through the structures. */
  private async cpeItems(query: Wfn): Promise<Bitmap> {
    const queryVersion = versionOfWfn(query);
    const out = new RoaringBitmap32();
    const byVersion: number[][] = [];
    const groups = new Set<string>();
    for (const [, string] of this.cpes.candidates(query)) {
      const answer = answerOf(string.wfn, query, queryVersion);
      if (answer === 'all') out.addMany(string.holders);
      if (answer !== 'version') continue;
      byVersion.push(string.holders);
      for (const group of string.groups.keys()) groups.add(group);
    }
    if (byVersion.length === 0 || queryVersion === undefined) return out;
    const holding = new RoaringBitmap32();
    for (const holders of byVersion) holding.addMany(holders);
    const inside = new RoaringBitmap32();
    for (const key of groups) {
      const entries = await this.answer(
        key,
        (structure) => entriesAffected(structure, this.source, queryVersion),
        (item) => !this.source.isCriterion(item) && isAffected(queryVersion, this.source.entry(item)),
      );
      inside.orInPlace(entries);
      const criteria = await this.answer(
        key,
        (structure) => criteriaInside(structure, this.source, queryVersion),
        (item) => this.source.isCriterion(item) && insideRange(this.source.criterion(item).range)(queryVersion),
      );
      inside.orInPlace(criteria);
    }
    inside.andInPlace(holding);
    out.orInPlace(inside);
    return out;
  }

  private slotsOf(items: Bitmap): Bitmap {
    const ids = items.toUint32Array();
    const slots = new Uint32Array(ids.length);
    let bound = 0;
    for (let i = 0; i < ids.length; i++) {
      const slot = this.slotOfItem[ids[i]!]!;
      slots[i] = slot;
      if (slot > bound) bound = slot;
    }
    return bitmapOfUnsorted(slots, bound);
  }

  /**
   * The slots among `candidates` (all slots when absent) whose match data satisfy `filters`; only
   * for filters that need match data (`needsMatchData`).
   */
  async matching(filters: AdvisoryFilters, candidates?: Bitmap): Promise<Bitmap> {
    if (!needsMatchData(filters)) throw new Error('matching() is for filters that need match data');
    const entryFiltered =
      filters.version !== undefined ||
      filters.vendor !== undefined ||
      filters.product !== undefined ||
      filters.platform !== undefined ||
      filters.packageName !== undefined ||
      filters.packageKey !== undefined;
    let slots: Bitmap | undefined;
    if (entryFiltered) {
      const items =
        filters.version !== undefined
          ? await this.versionItems(filters, filters.version)
          : intersectAll(this.identityPostings(filters));
      slots = this.slotsOf(items);
    }
    if (filters.cpe !== undefined) {
      const cpeSlots = this.slotsOf(await this.cpeItems(filters.cpe));
      slots = slots ? RoaringBitmap32.and(slots, cpeSlots) : cpeSlots;
    }
    const out = slots ?? new RoaringBitmap32();
    return candidates ? RoaringBitmap32.and(out, candidates) : out;
  }
}

function entryPlacement(entry: MatchEntry): Placement {
  const postings: Array<[Posting, string]> = [];
  if (entry.vendor !== undefined) postings.push(['vendor', entry.vendor]);
  if (entry.product !== undefined) postings.push(['product', entry.product]);
  for (const platform of new Set(entry.platforms ?? [])) postings.push(['platform', platform]);
  if (entry.packageName !== undefined) postings.push(['packageName', entry.packageName]);
  const packages = [...new Set(entry.packages ?? [])];
  for (const key of packages) postings.push(['packageKey', key]);
  const groups = [productGroup(entry.vendor, entry.product), GLOBAL];
  if (entry.packageName !== undefined) groups.push(packageNameGroup(entry.packageName));
  for (const key of packages) groups.push(packageKeyGroup(key));
  const cpes = [...new Set((entry.cpes ?? []).filter((text) => typeof text === 'string'))];
  return { groups, postings, cpes, vendor: entry.vendor, product: entry.product };
}

function criterionPlacement(criterion: MatchCriterion): Placement | undefined {
  const wfn = typeof criterion.criteria === 'string' ? parseCached(criterion.criteria) : undefined;
  if (!wfn) return undefined;
  const vendor = normalizeText(unquoteWfnValue(wfn.vendor));
  const product = normalizeText(unquoteWfnValue(wfn.product));
  return {
    groups: [productGroup(vendor, product), GLOBAL],
    postings: [
      ['vendor', vendor],
      ['product', product],
    ],
    cpes: [criterion.criteria],
    vendor,
    product,
  };
}
