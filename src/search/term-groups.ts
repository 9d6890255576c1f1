import type { KeyedTerms } from './record-terms.js';

type Level<T> = Map<number, T>;
type KeyTrie = Level<Level<Level<Level<number>>>>;

/**
 * Distinct term-id lists shared by the records that hold them, counted so a list no record holds is
 * dropped and its id reused. Records repeat the same few hundred thousand combinations of list
 * terms (CVEs, fingerprints, classifications; asn, country, protocol), so a record keeps a group id
 * (4 bytes) instead of its own list: at 10M records the per-record lists took over 1 GB.
 * A group is found by a key of four numbers through nested maps (a string key per record cost a
 * fifth of an index build). Group 0 means "none".
 */
export class TermGroups {
  private readonly byKey: KeyTrie = new Map();
  private readonly terms: Array<Uint32Array | undefined> = [undefined];
  /** Four key numbers per group id. */
  private readonly keys: number[] = [0, 0, 0, 0];
  private readonly holders: number[] = [0];
  private readonly freeIds: number[] = [];
  private count = 0;
  private termBytes = 0;

  /** The group of `termIds` under `key` (equal exactly when the term lists are), counting one more holder. */
  acquire({ key, termIds }: KeyedTerms): number {
    const [k0, k1, k2, k3] = key;
    let level1 = this.byKey.get(k0);
    if (!level1) this.byKey.set(k0, (level1 = new Map()));
    let level2 = level1.get(k1);
    if (!level2) level1.set(k1, (level2 = new Map()));
    let level3 = level2.get(k2);
    if (!level3) level2.set(k2, (level3 = new Map()));
    let id = level3.get(k3);
    if (id === undefined) {
      id = this.freeIds.pop() ?? this.terms.length;
      const terms = Uint32Array.from(termIds);
      this.terms[id] = terms;
      this.keys.splice(id * 4, 4, k0, k1, k2, k3);
      this.holders[id] = 0;
      level3.set(k3, id);
      this.count++;
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
    const k0 = this.keys[id * 4]!;
    const k1 = this.keys[id * 4 + 1]!;
    const k2 = this.keys[id * 4 + 2]!;
    const level1 = this.byKey.get(k0)!;
    const level2 = level1.get(k1)!;
    const level3 = level2.get(k2)!;
    level3.delete(this.keys[id * 4 + 3]!);
    if (level3.size === 0) level2.delete(k2);
    if (level2.size === 0) level1.delete(k1);
    if (level1.size === 0) this.byKey.delete(k0);
    this.termBytes -= this.terms[id]!.byteLength;
    this.terms[id] = undefined;
    this.holders[id] = 0;
    this.count--;
    this.freeIds.push(id);
  }

  termsOf(id: number): Uint32Array {
    return this.terms[id] ?? EMPTY;
  }

  /** Groups currently held. */
  get size(): number {
    return this.count;
  }

  /** Estimated memory: term arrays, and about 150 bytes of keys, maps and bookkeeping per group. */
  get bytes(): number {
    return this.termBytes + this.terms.length * 150;
  }
}

const EMPTY = new Uint32Array(0);
