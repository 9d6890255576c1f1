import type { KeyedTerms } from './record-terms.js';

/**
 * Distinct term-id lists shared by the records that hold them, counted so a list no record holds is
 * dropped and its id reused. Records repeat the same few hundred thousand combinations of list
 * terms (CVEs, fingerprints, classifications; asn, country, protocol), so a record keeps a group id
 * (4 bytes) instead of its own list: at 10M records the per-record lists took over 1 GB.
 * Group 0 means "none".
 */
export class TermGroups {
  private readonly idByKey = new Map<string, number>();
  private readonly terms: Array<Uint32Array | undefined> = [undefined];
  private readonly keys: string[] = [''];
  private readonly holders: number[] = [0];
  private readonly freeIds: number[] = [];
  private keyBytes = 0;
  private termBytes = 0;

  /** The group of `termIds` (order matters) under `key` (equal exactly when they are), counting one more holder. */
  acquire({ key, termIds }: KeyedTerms): number {
    let id = this.idByKey.get(key);
    if (id === undefined) {
      id = this.freeIds.pop() ?? this.terms.length;
      const terms = Uint32Array.from(termIds);
      this.terms[id] = terms;
      this.keys[id] = key;
      this.holders[id] = 0;
      this.idByKey.set(key, id);
      this.keyBytes += key.length;
      this.termBytes += terms.byteLength;
    }
    this.holders[id]! += 1;
    return id;
  }

  /** One holder fewer; the group goes when it has none. */
  release(id: number): void {
    if (id === 0) return;
    const holders = (this.holders[id] ?? 0) - 1;
    if (holders > 0) {
      this.holders[id] = holders;
      return;
    }
    const key = this.keys[id]!;
    this.idByKey.delete(key);
    this.keyBytes -= key.length;
    this.termBytes -= this.terms[id]!.byteLength;
    this.terms[id] = undefined;
    this.keys[id] = '';
    this.holders[id] = 0;
    this.freeIds.push(id);
  }

  termsOf(id: number): Uint32Array {
    return this.terms[id] ?? EMPTY;
  }

  /** Groups currently held. */
  get size(): number {
    return this.idByKey.size;
  }

  /** Estimated memory: term arrays, key strings and about 100 bytes of bookkeeping per group. */
  get bytes(): number {
    return this.termBytes + this.keyBytes + this.terms.length * 100;
  }
}

const EMPTY = new Uint32Array(0);
