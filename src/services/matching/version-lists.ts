/**
 * Per product identity, the CVEs whose CVE 5 `versions` lists alone decide its names
 * (core/applicability/version-lists.ts), with their entries' key spans in an interval-stabbing
 * structure and their single releases by text: a name's candidates are found by its version and
 * each is confirmed by the status algorithm, so a product listed in thousands of CVEs costs a
 * lookup and a few checks instead of thousands of evaluations.
 */
import { keyedListsFor, type KeyedList } from '../../core/applicability/version-lists.js';
import { HOST } from '../../core/applicability/evaluate.js';
import { extrasAreAny, isConcrete, versionsConfirm } from '../../core/applicability/name-match.js';
import type { CveApplicability } from '../../core/applicability/types.js';
import type { Wfn } from '../../core/cpe.js';
import { entryConfirms } from '../../core/applicability/confirmed.js';
import { versionKeysOf } from '../../core/applicability/index-keys.js';
import { plainVersion } from '../../core/version/cve5-single-index.js';
import { versionOfWfn } from '../../core/version/cpe-version.js';
import { IntervalStabbing, intervalContains, type KeyInterval } from '../../search/cpe-cves/interval-stabbing.js';
import { LruCache } from '../../core/lru.js';

interface Listed {
  cve: string;
  list: KeyedList;
}

/** Below this many spans a product's lists are scanned: most products have a handful, and a stabbing structure costs more to build than it saves. */
const SCANNED_INTERVALS = 64;

class ProductLists {
  /** CVE → whether its lists decide it for this product. */
  private readonly decided = new Map<string, boolean>();
  private readonly listed: Listed[] = [];
  private readonly intervals: KeyInterval[] = [];
  private readonly byText = new Map<string, number[]>();
  /** Lists whose `defaultStatus` is affected: a version outside every entry is affected. */
  private readonly byDefault: number[] = [];
  private stabbing: IntervalStabbing | undefined;
  /** Once every CVE of the product was learned: those its lists cannot decide. */
  undecided: ReadonlySet<string> | undefined;

  /** Whether the CVE's lists decide names of this product (worked out once per CVE). */
  learn(app: CveApplicability, name: Wfn): boolean {
    const known = this.decided.get(app.cveId);
    if (known !== undefined) return known;
    const lists = keyedListsFor(app, name);
    this.decided.set(app.cveId, lists !== undefined);
    if (lists) this.add(app.cveId, lists);
    return lists !== undefined;
  }

  private add(cve: string, lists: KeyedList[]): void {
    for (const list of lists) {
      const value = this.listed.length;
      this.listed.push({ cve, list });
      for (const span of list.spans)
        this.intervals.push({
          ...(span.start !== undefined ? { start: span.start } : {}),
          ...(span.end !== undefined ? { end: span.end } : {}),
          startInclusive: true,
          endInclusive: true,
          value,
        });
      for (const text of list.texts) {
        const values = this.byText.get(text);
        if (values) values.push(value);
        else this.byText.set(text, [value]);
      }
      // Without versions, a CPE's ANY version stands for the default (its span covers every key).
      if (!list.byCpeVersions && list.entry.defaultStatus === 'affected') this.byDefault.push(value);
    }
    this.stabbing = undefined;
  }

  /** The CVEs (of those `wanted` accepts) whose lists confirm the name: its version's candidates, each checked by the status algorithm. */
  async confirmedOf(name: Wfn, wanted: (cve: string) => boolean = () => true): Promise<string[]> {
    const version = versionOfWfn(name);
    if (version === undefined || this.listed.length === 0) return [];
    const confirmed = new Set<string>();
    for (const value of await this.candidates(name, version)) {
      const { cve, list } = this.listed[value]!;
      if (confirmed.has(cve) || !wanted(cve)) continue;
      if (list.byCpeVersions ? entryConfirms(list.entry, name) : versionsConfirm(list.entry, name, HOST))
        confirmed.add(cve);
    }
    return [...confirmed];
  }

  /** The lists that can hold the name's `version` (its update folded in), or its version as written. */
  private async candidates(name: Wfn, version: string): Promise<Set<number>> {
    const found = new Set<number>([...(this.byText.get(plainVersion(version)) ?? []), ...this.byDefault]);
    if (this.intervals.length === 0) return found;
    const { raw, folded } = versionKeysOf(name);
    const keys = new Set([folded, raw]);
    for (const key of keys) {
      if (key === undefined) continue;
      if (this.intervals.length <= SCANNED_INTERVALS) {
        for (const interval of this.intervals) if (intervalContains(interval, key)) found.add(interval.value);
        continue;
      }
      this.stabbing ??= await IntervalStabbing.build(this.intervals, this.listed.length);
      const { covering, extra } = this.stabbing.stab(key);
      for (const value of covering) found.add(value);
      for (const value of extra) found.add(value);
    }
    return found;
  }
}

/** keyedListsFor answers alike for names of one identity whose versions are both concrete or both not, and whose other attributes are both ANY or both not. */
const identityOf = (name: Wfn) =>
  `${name.part}\u0000${name.vendor}\u0000${name.product}\u0000${isConcrete(name.version) ? 'v' : ''}\u0000${extrasAreAny(name) ? '' : 'x'}`;

export class VersionLists {
  /** Products asked about recently: a long scan names tens of thousands. */
  private readonly products = new LruCache<string, ProductLists>(20_000);

  /** Of `apps` (CVEs that can concern `name`), the confirmed ones their version lists decide, and the rest to evaluate. */
  async split(name: Wfn, apps: CveApplicability[]): Promise<{ confirmed: string[]; evaluate: CveApplicability[] }> {
    const product = this.productOf(name);
    const evaluate: CveApplicability[] = [];
    const decided = new Set<string>();
    for (const app of apps) {
      if (product.learn(app, name)) decided.add(app.cveId);
      else evaluate.push(app);
    }
    if (decided.size === 0) return { confirmed: [], evaluate };
    return { confirmed: await product.confirmedOf(name, (cve) => decided.has(cve)), evaluate };
  }

  /**
   * Of every CVE of the name's product (`all`, read once per product), the confirmed ones their
   * version lists decide, found from the name's version alone, and the CVEs the lists cannot
   * decide: a name's cost then follows the CVEs near its version, not those of its product.
   */
  async confirmedByLists(
    name: Wfn,
    all: () => Promise<CveApplicability[]>,
  ): Promise<{ confirmed: string[]; undecided: ReadonlySet<string> }> {
    const product = this.productOf(name);
    if (product.undecided === undefined) {
      const undecided = new Set<string>();
      for (const app of await all()) if (!product.learn(app, name)) undecided.add(app.cveId);
      product.undecided = undecided;
    }
    return { confirmed: await product.confirmedOf(name), undecided: product.undecided };
  }

  clear(): void {
    this.products.clear();
  }

  private productOf(name: Wfn): ProductLists {
    const identity = identityOf(name);
    let product = this.products.get(identity);
    if (!product) {
      product = new ProductLists();
      this.products.set(identity, product);
    }
    return product;
  }
}
