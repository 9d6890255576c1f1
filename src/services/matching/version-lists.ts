/**
 * Per product identity, the CVEs whose CVE 5 `versions` lists alone decide its names
 * (core/applicability/version-lists.ts), with their entries' key spans in an interval-stabbing
 * structure and their single releases by text: a name's candidates are found by its version and
 * each is confirmed by the status algorithm, so a product listed in thousands of CVEs costs a
 * lookup and a few checks instead of thousands of evaluations.
 */
import { keyedListsFor, type KeyedList } from '../../core/applicability/version-lists.js';
import { HOST } from '../../core/applicability/evaluate.js';
import { isConcrete, versionsConfirm } from '../../core/applicability/name-match.js';
import type { CveApplicability } from '../../core/applicability/types.js';
import type { Wfn } from '../../core/cpe.js';
import { plainVersion } from '../../core/version/cve5-single-index.js';
import { versionOfWfn } from '../../core/version/cpe-version.js';
import { versionSortKey } from '../../core/version/sort-key.js';
import { IntervalStabbing, type KeyInterval } from '../../search/cpe-cves/interval-stabbing.js';
import { LruCache } from '../../core/lru.js';

interface Listed {
  cve: string;
  list: KeyedList;
}

class ProductLists {
  /** CVE → whether its lists decide it for this product. */
  readonly decided = new Map<string, boolean>();
  readonly listed: Listed[] = [];
  readonly intervals: KeyInterval[] = [];
  readonly byText = new Map<string, number[]>();
  /** Lists whose `defaultStatus` is affected: a version outside every entry is affected. */
  readonly byDefault: number[] = [];
  private stabbing: IntervalStabbing | undefined;

  add(cve: string, lists: KeyedList[]): void {
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
      if (list.entry.defaultStatus === 'affected') this.byDefault.push(value);
    }
    this.stabbing = undefined;
  }

  /** The lists that can hold `version`. */
  async candidates(version: string): Promise<Set<number>> {
    const found = new Set<number>([...(this.byText.get(plainVersion(version)) ?? []), ...this.byDefault]);
    const key = versionSortKey(version);
    if (key !== undefined && this.intervals.length > 0) {
      this.stabbing ??= await IntervalStabbing.build(this.intervals, this.listed.length);
      const { covering, extra } = this.stabbing.stab(key);
      for (const value of covering) found.add(value);
      for (const value of extra) found.add(value);
    }
    return found;
  }
}

/** keyedListsFor answers alike for names of one identity whose versions are both concrete or both not. */
const identityOf = (name: Wfn) =>
  `${name.part}\u0000${name.vendor}\u0000${name.product}\u0000${isConcrete(name.version) ? 'v' : ''}`;

export class VersionLists {
  /** Products asked about recently: a long scan names tens of thousands. */
  private readonly products = new LruCache<string, ProductLists>(20_000);

  /** Of `apps` (CVEs that can concern `name`), the confirmed ones their version lists decide, and the rest to evaluate. */
  async split(name: Wfn, apps: CveApplicability[]): Promise<{ confirmed: string[]; evaluate: CveApplicability[] }> {
    const identity = identityOf(name);
    let product = this.products.get(identity);
    if (!product) {
      product = new ProductLists();
      this.products.set(identity, product);
    }
    const evaluate: CveApplicability[] = [];
    const decided = new Set<string>();
    for (const app of apps) {
      let known = product.decided.get(app.cveId);
      if (known === undefined) {
        const lists = keyedListsFor(app, name);
        known = lists !== undefined;
        product.decided.set(app.cveId, known);
        if (lists) product.add(app.cveId, lists);
      }
      if (known) decided.add(app.cveId);
      else evaluate.push(app);
    }
    const version = versionOfWfn(name);
    if (decided.size === 0 || version === undefined) return { confirmed: [], evaluate };
    const confirmed = new Set<string>();
    for (const value of await product.candidates(version)) {
      const { cve, list } = product.listed[value]!;
      if (!confirmed.has(cve) && decided.has(cve) && versionsConfirm(list.entry, name, HOST)) confirmed.add(cve);
    }
    return { confirmed: [...confirmed], evaluate };
  }

  clear(): void {
    this.products.clear();
  }
}
