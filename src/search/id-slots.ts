import type { SnapshotIn, SnapshotOut } from './snapshot/codec.js';
import { SnapshotCorrupt } from './snapshot/frames.js';

/**
 * An open-addressing hash table of small positive ids (linear probing, at most half full, 0 = empty
 * slot), for tables whose keys live elsewhere in typed arrays: the caller gives each id's hash and
 * checks candidates against its own keys. Deletion shifts later entries back, so no tombstones pile
 * up. Unlike a Map, it adds no JavaScript objects per entry for the garbage collector to walk.
 *
 * Lookup without a callback per call (hot paths):
 *   for (let slot = t.firstSlot(hash); t.idAt(slot) !== 0; slot = t.nextSlot(slot)) …
 */
export class IdSlots {
  private slots = new Uint32Array(1 << 10);
  private count = 0;

  constructor(private readonly hashOfId: (id: number) => number) {}

  firstSlot(hash: number): number {
    return hash & (this.slots.length - 1);
  }

  nextSlot(slot: number): number {
    return (slot + 1) & (this.slots.length - 1);
  }

  /** The id in `slot`, 0 when the slot is empty (the end of the probe run). */
  idAt(slot: number): number {
    return this.slots[slot]!;
  }

  /** Adds an id not yet held. */
  insert(id: number): void {
    if ((this.count + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    this.place(this.slots, id);
    this.count++;
  }

  /** Removes a held id. */
  delete(id: number): void {
    const mask = this.slots.length - 1;
    let hole = this.hashOfId(id) & mask;
    while (this.slots[hole] !== id) hole = (hole + 1) & mask;
    for (let next = (hole + 1) & mask; this.slots[next] !== 0; next = (next + 1) & mask) {
      const home = this.hashOfId(this.slots[next]!) & mask;
      // The entry at `next` may fill the hole unless its home lies cyclically in (hole, next].
      const homeBetween = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (homeBetween) continue;
      this.slots[hole] = this.slots[next]!;
      hole = next;
    }
    this.slots[hole] = 0;
    this.count--;
  }

  get size(): number {
    return this.count;
  }

  get byteLength(): number {
    return this.slots.byteLength;
  }

  async saveTo(out: SnapshotOut): Promise<void> {
    await out.numbers([this.count]);
    await out.array(this.slots);
  }

  async loadFrom(input: SnapshotIn): Promise<void> {
    const count = await input.number();
    const { array } = await input.array((length) => new Uint32Array(length));
    // Probing masks with the length, which must be a power of two, and a run must end in an empty slot.
    if (array.length < 2 || (array.length & (array.length - 1)) !== 0 || count * 2 > array.length) {
      throw new SnapshotCorrupt('hash table of a wrong size');
    }
    this.slots = array;
    this.count = count;
  }

  private rehash(size: number): void {
    const grown = new Uint32Array(size);
    for (const id of this.slots) if (id !== 0) this.place(grown, id);
    this.slots = grown;
  }

  private place(slots: Uint32Array, id: number): void {
    const mask = slots.length - 1;
    let slot = this.hashOfId(id) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = id;
  }
}
