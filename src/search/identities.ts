import type { Wfn } from '../core/cpe.js';

/** One distinct fingerprint identity (vendor, product, version, cpe) across all records. */
export interface Identity {
  vendor: string;
  product: string;
  version: string;
  cpe?: Wfn;
  /** `part:vendor:product` of the CPE, as knowledge keys products (set when first asked). */
  productKey?: string;
  /** The ids of its fp:, v:, p: and ver: terms. */
  termIds: number[];
}

type Attribute = 'vendor' | 'product' | 'version';
const ATTRIBUTES: Attribute[] = ['vendor', 'product', 'version'];

/**
 * The distinct fingerprint identities by key, with their keys grouped per vendor, product and
 * version, so a combined filter scans only the identities of its rarest given value instead of
 * all of them (tens of thousands at 1M records).
 */
export class IdentityCatalog {
  private readonly byKey = new Map<string, Identity>();
  private readonly byValue: Record<Attribute, Map<string, Set<string>>> = {
    vendor: new Map(),
    product: new Map(),
    version: new Map(),
  };

  get(key: string): Identity | undefined {
    return this.byKey.get(key);
  }

  entries(): IterableIterator<[string, Identity]> {
    return this.byKey.entries();
  }

  add(key: string, identity: Identity): void {
    this.byKey.set(key, identity);
    for (const attribute of ATTRIBUTES) {
      const groups = this.byValue[attribute];
      let keys = groups.get(identity[attribute]);
      if (!keys) {
        keys = new Set();
        groups.set(identity[attribute], keys);
      }
      keys.add(key);
    }
  }

  delete(key: string): void {
    const identity = this.byKey.get(key);
    if (!identity) return;
    this.byKey.delete(key);
    for (const attribute of ATTRIBUTES) {
      const groups = this.byValue[attribute];
      const keys = groups.get(identity[attribute]);
      keys?.delete(key);
      if (keys?.size === 0) groups.delete(identity[attribute]);
    }
  }

  /** Identities that may have the given values (lower-case): those of the rarest given value, else all. */
  *candidates(values: Partial<Record<Attribute, string>>): Iterable<[string, Identity]> {
    let narrowest: Set<string> | undefined;
    for (const attribute of ATTRIBUTES) {
      const value = values[attribute];
      if (value === undefined) continue;
      const keys = this.byValue[attribute].get(value);
      if (!keys) return;
      if (!narrowest || keys.size < narrowest.size) narrowest = keys;
    }
    if (!narrowest) {
      yield* this.byKey;
      return;
    }
    for (const key of narrowest) yield [key, this.byKey.get(key)!];
  }
}
