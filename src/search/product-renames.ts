/**
 * The CPE dictionary's product renames as a target-intel filter sees them: `vendor=nginx` also
 * finds fingerprints named `igor_sysoev:nginx` (renamed to `nginx:nginx`) and `f5:nginx` (its
 * new name), because they are one product. Renames link `part:vendor:product` keys, followed both
 * ways and transitively; filters compare unquoted, lower-cased vendor and product values.
 */
import { parseProductKey } from '../storage/index.js';

export interface VendorProduct {
  vendor: string;
  product: string;
}

const MAX_GROUP = 1000;

function split(key: string): VendorProduct | undefined {
  const parsed = parseProductKey(key);
  return parsed && { vendor: unquote(parsed.vendor), product: unquote(parsed.product) };
}

/** Renames are keyed by WFN values; filters by what the fingerprint shows. */
const unquote = (value: string) => value.replace(/\\(.)/g, '$1').toLowerCase();

export class ProductRenames {
  /** Each product key → the other keys of its rename group. */
  private readonly groups = new Map<string, string[]>();
  private readonly byVendor = new Map<string, string[]>();
  private readonly byProduct = new Map<string, string[]>();

  constructor(renames: ReadonlyArray<readonly [string, string]>) {
    const links = new Map<string, Set<string>>();
    const link = (a: string, b: string) => {
      const set = links.get(a);
      if (set) set.add(b);
      else links.set(a, new Set([b]));
    };
    for (const [from, to] of renames) {
      if (from === to) continue;
      link(from, to);
      link(to, from);
    }
    for (const start of links.keys()) {
      if (this.groups.has(start)) continue;
      const group = [start];
      const seen = new Set(group);
      for (let i = 0; i < group.length && group.length < MAX_GROUP; i++) {
        for (const next of links.get(group[i]!) ?? []) {
          if (!seen.has(next)) {
            seen.add(next);
            group.push(next);
          }
        }
      }
      for (const key of group) this.groups.set(key, group);
    }
    for (const key of this.groups.keys()) {
      const parsed = split(key);
      if (!parsed) continue;
      push(this.byVendor, parsed.vendor, key);
      push(this.byProduct, parsed.product, key);
    }
  }

  get size(): number {
    return this.groups.size;
  }

  /**
   * The (vendor, product) pairs that name the same products as a filter on `vendor` and/or
   * `product` (lower-cased), beyond those the filter matches by itself.
   */
  alternatives(vendor: string | undefined, product: string | undefined): VendorProduct[] {
    if (vendor === undefined && product === undefined) return [];
    const starts =
      vendor !== undefined
        ? (this.byVendor.get(vendor) ?? [])
        : product !== undefined
          ? (this.byProduct.get(product) ?? [])
          : [];
    const out = new Map<string, VendorProduct>();
    for (const start of starts) {
      const parsed = split(start);
      if (!parsed || (product !== undefined && parsed.product !== product)) continue;
      for (const key of this.groups.get(start) ?? []) {
        const other = split(key);
        if (!other) continue;
        // Pairs the filter already matches by itself.
        if ((vendor === undefined || other.vendor === vendor) && (product === undefined || other.product === product))
          continue;
        out.set(`${other.vendor}\u0000${other.product}`, { vendor: other.vendor, product: other.product });
      }
    }
    return [...out.values()].sort((a, b) => (a.vendor + a.product < b.vendor + b.product ? -1 : 1));
  }
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
