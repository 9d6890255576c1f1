/**
 * The `cpe` filter's view of the match items: every distinct CPE criterion string (of
 * `affected[].cpes` and of applicability criteria) with the items holding it, grouped by the
 * criterion's vendor and product, so a query reads only the strings its vendor (or product) can
 * meet and compares each of them once (NISTIR 7696, cpe-match.ts), whatever the number of records.
 */
import { compatible, identityCompatible, parseCached } from '../../core/advisory/cpe-match.js';
import { ANY, concreteWfnValue, NA, type Wfn } from '../../core/cpe.js';

export interface CriterionString {
  wfn: Wfn;
  holders: number[];
  /** The version groups of the holders (how many of them in each). */
  groups: Map<string, number>;
}

/** What a criterion string says about the query: nothing, every holder, or the holders whose version rules hold. */
export type StringAnswer = 'none' | 'all' | 'version';

const valueKey = (value: string) => concreteWfnValue(value)?.toLowerCase();

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set?.delete(value) && set.size === 0) map.delete(key);
}

export class CpeCriteria {
  private readonly strings = new Map<string, CriterionString>();
  /** Criterion strings by concrete vendor / product value; wildcard, ANY and NA values apart. */
  private readonly byVendor = new Map<string, Set<string>>();
  private readonly byProduct = new Map<string, Set<string>>();
  private readonly wildVendor = new Set<string>();
  private readonly wildProduct = new Set<string>();

  get size(): number {
    return this.strings.size;
  }

  add(text: string, item: number, group: string): void {
    let entry = this.strings.get(text);
    if (!entry) {
      const wfn = parseCached(text);
      if (!wfn) return;
      entry = { wfn, holders: [], groups: new Map() };
      this.strings.set(text, entry);
      const vendor = valueKey(wfn.vendor);
      const product = valueKey(wfn.product);
      if (vendor === undefined) this.wildVendor.add(text);
      else addTo(this.byVendor, vendor, text);
      if (product === undefined) this.wildProduct.add(text);
      else addTo(this.byProduct, product, text);
    }
    entry.holders.push(item);
    entry.groups.set(group, (entry.groups.get(group) ?? 0) + 1);
  }

  remove(text: string, item: number, group: string): void {
    const entry = this.strings.get(text);
    if (!entry) return;
    const at = entry.holders.indexOf(item);
    if (at >= 0) entry.holders.splice(at, 1);
    const count = (entry.groups.get(group) ?? 1) - 1;
    if (count > 0) entry.groups.set(group, count);
    else entry.groups.delete(group);
    if (entry.holders.length > 0) return;
    this.strings.delete(text);
    const vendor = valueKey(entry.wfn.vendor);
    const product = valueKey(entry.wfn.product);
    if (vendor === undefined) this.wildVendor.delete(text);
    else removeFrom(this.byVendor, vendor, text);
    if (product === undefined) this.wildProduct.delete(text);
    else removeFrom(this.byProduct, product, text);
  }

  /**
   * The strings that can meet the query: those of its concrete vendor (or, with a pattern vendor,
   * of its concrete product) and those with a wildcard there; every string only when neither is
   * concrete (the route refuses such queries).
   */
  *candidates(query: Wfn): Iterable<[string, CriterionString]> {
    const pick = (value: string, by: Map<string, Set<string>>, wild: Set<string>): Iterable<string> | undefined => {
      if (value === NA) return wild;
      const key = valueKey(value);
      return key === undefined ? undefined : [...(by.get(key) ?? []), ...wild];
    };
    const texts = pick(query.vendor, this.byVendor, this.wildVendor) ??
      pick(query.product, this.byProduct, this.wildProduct) ?? [...this.strings.keys()];
    for (const text of texts) {
      const entry = this.strings.get(text);
      if (entry) yield [text, entry];
    }
  }
}

/** cpe-match.ts criterionMatches, before its version rule: decided once per string and query. */
export function answerOf(criterion: Wfn, query: Wfn, queryVersion: string | undefined): StringAnswer {
  if (!identityCompatible(criterion, query)) return 'none';
  if (criterion.version !== ANY || queryVersion === undefined) {
    return compatible(criterion.version, query.version) ? 'all' : 'none';
  }
  return 'version';
}
