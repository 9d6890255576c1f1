import { IdSlots } from './id-slots.js';
import type { KeyedTerms } from './record-terms.js';
import { Slicer } from './slices.js';
import type { SnapshotIn, SnapshotOut } from './snapshot/codec.js';
import { SnapshotCorrupt } from './snapshot/frames.js';

/**
 * Distinct term-id lists shared by the records that hold them, counted so a list no record holds is
 * dropped and its id reused. Records repeat the same few hundred thousand combinations of list
 * terms (CVEs, fingerprints, classifications; asn, country, protocol), so a record keeps a group id
 * (4 bytes) instead of its own list, which at 10M records would cost more than the index itself.
 *
 * A group is found by its key of four numbers in an open-addressing hash table held in typed arrays
 * (IdSlots), not in nested maps, whose hundreds of thousands of objects every major collection of
 * a server's heap would walk. Group 0 means "none".
 */
export class TermGroups {
  private readonly terms: Array<Uint32Array | undefined> = [undefined];
  /** Four key numbers per group id (int32: keys may hold -1). */
  private keys = new Int32Array(4 * 1024);
  private holders = new Uint32Array(1024);
  /** Per group id, a number no other group held under any id: it changes when the id is reused. */
  private generations = new Float64Array(1024);
  private lastGeneration = 0;
  /** Group ids by the hash of their key. */
  private readonly slots = new IdSlots((id) => this.hashOfGroup(id));
  private readonly freeIds: number[] = [];
  private termBytes = 0;
  /** Marks a free group id among the saved term-list lengths. */
  private static readonly FREE = 0xffffffff;

  /** The group of `termIds` under `key` (equal exactly when the term lists are), counting one more holder. */
  acquire({ key, termIds }: KeyedTerms): number {
    const [k0, k1, k2, k3] = key;
    const slots = this.slots;
    for (
      let slot = slots.firstSlot(hashOf(k0, k1, k2, k3)), id = slots.idAt(slot);
      id !== 0;
      slot = slots.nextSlot(slot), id = slots.idAt(slot)
    ) {
      const at = id * 4;
      if (this.keys[at] === k0 && this.keys[at + 1] === k1 && this.keys[at + 2] === k2 && this.keys[at + 3] === k3) {
        this.holders[id]! += 1;
        return id;
      }
    }
    const id = this.freeIds.pop() ?? this.terms.length;
    const terms = Uint32Array.from(termIds);
    this.terms[id] = terms;
    this.ensureIdCapacity(id);
    this.keys.set([k0, k1, k2, k3], id * 4);
    this.holders[id] = 1;
    this.generations[id] = ++this.lastGeneration;
    slots.insert(id);
    this.termBytes += terms.byteLength;
    return id;
  }

  /** One holder fewer; the group goes when it has none. */
  release(id: number): void {
    if (id === 0) return;
    if (this.holders[id]! > 1) {
      this.holders[id]! -= 1;
      return;
    }
    this.slots.delete(id);
    this.termBytes -= this.terms[id]!.byteLength;
    this.terms[id] = undefined;
    this.holders[id] = 0;
    this.freeIds.push(id);
  }

  termsOf(id: number): Uint32Array {
    return this.terms[id] ?? EMPTY;
  }

  /** The group's generation (0 for none): a group id reused for other terms gets a new one. */
  generationOf(id: number): number {
    return this.generations[id] ?? 0;
  }

  /** No group id reaches this. */
  get idLimit(): number {
    return this.terms.length;
  }

  /** Groups currently held. */
  get size(): number {
    return this.slots.size;
  }

  /** Estimated memory: term arrays (with about 100 bytes of object per array), keys, holders, generations, slots. */
  get bytes(): number {
    return (
      this.termBytes +
      this.terms.length * 108 +
      this.keys.byteLength +
      this.holders.byteLength +
      this.generations.byteLength +
      this.slots.byteLength
    );
  }

  /** The highest list id any key holds (RecordTerms numbers new lists above it). */
  get highestKeyNumber(): number {
    let highest = 0;
    for (let id = 1; id < this.terms.length; id++) {
      if (!this.terms[id]) continue;
      for (let k = 0; k < 3; k++) highest = Math.max(highest, this.keys[id * 4 + k]!);
    }
    return highest;
  }

  async saveTo(out: SnapshotOut): Promise<void> {
    const lengths = new Uint32Array(this.terms.length);
    let total = 0;
    for (let id = 1; id < this.terms.length; id++) total += this.terms[id]?.length ?? 0;
    const terms = new Uint32Array(total);
    let at = 0;
    const slicer = new Slicer();
    for (let id = 1; id < this.terms.length; id++) {
      if (slicer.due()) await slicer.pause();
      const list = this.terms[id];
      lengths[id] = list ? list.length : TermGroups.FREE;
      if (list) terms.set(list, at);
      at += list?.length ?? 0;
    }
    await out.array(lengths);
    await out.array(terms);
    await out.array(this.keys, this.terms.length * 4);
    await out.array(this.holders, this.terms.length);
    await this.slots.saveTo(out);
  }

  /** Reads what saveTo wrote into this empty table. */
  async loadFrom(input: SnapshotIn): Promise<void> {
    const { array: lengths } = await input.array((length) => new Uint32Array(length));
    const { array: terms } = await input.array((length) => new Uint32Array(length));
    // Four key numbers per holder count, as ensureIdCapacity keeps them.
    this.keys = (
      await input.array(
        (length) => new Int32Array(length),
        (length) => Math.max(length, 4 * 1024),
      )
    ).array;
    this.holders = (
      await input.array(
        (length) => new Uint32Array(length),
        (length) => Math.max(length, 1024),
      )
    ).array;
    await this.slots.loadFrom(input);
    let at = 0;
    for (let id = 1; id < lengths.length; id++) {
      const length = lengths[id]!;
      if (length === TermGroups.FREE) {
        this.terms[id] = undefined;
        this.freeIds.push(id);
        continue;
      }
      if (at + length > terms.length) throw new SnapshotCorrupt('term groups inconsistent');
      const list = terms.slice(at, at + length);
      at += length;
      this.terms[id] = list;
      this.termBytes += list.byteLength;
    }
    if (at !== terms.length || this.keys.length < lengths.length * 4 || this.holders.length < lengths.length) {
      throw new SnapshotCorrupt('term groups inconsistent');
    }
    this.generations = new Float64Array(this.holders.length);
    for (let id = 1; id < this.terms.length; id++) if (this.terms[id]) this.generations[id] = ++this.lastGeneration;
  }

  private hashOfGroup(id: number): number {
    const at = id * 4;
    return hashOf(this.keys[at]!, this.keys[at + 1]!, this.keys[at + 2]!, this.keys[at + 3]!);
  }

  private ensureIdCapacity(id: number): void {
    if (id < this.holders.length) return;
    const length = Math.max(id + 1, Math.ceil(this.holders.length * 1.5));
    const holders = new Uint32Array(length);
    holders.set(this.holders);
    this.holders = holders;
    const generations = new Float64Array(length);
    generations.set(this.generations);
    this.generations = generations;
    const keys = new Int32Array(length * 4);
    keys.set(this.keys);
    this.keys = keys;
  }
}

/** A 32-bit mix of the four key numbers (each multiplied in, then the bits folded down). */
function hashOf(k0: number, k1: number, k2: number, k3: number): number {
  let h = Math.imul(k0 ^ 0x2545f491, 0x9e3779b1);
  h = Math.imul(h ^ k1 ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ k2 ^ (h >>> 13), 0xc2b2ae35);
  h = Math.imul(h ^ k3 ^ (h >>> 16), 0x27d4eb2f);
  return (h ^ (h >>> 15)) >>> 0;
}

const EMPTY = new Uint32Array(0);
