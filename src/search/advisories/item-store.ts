import type { MatchCriterion, MatchEntry } from '../../core/advisory/facts.js';
import { uint32Column, uint8Column } from '../columns.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const ENTRY = 1;
const CRITERION = 2;

/**
 * The advisory match items (affected entries and CPE criteria) as JSON in one byte buffer,
 * addressed by item id. Held as objects, a full NVD's 1.2M items and their ranges were most of
 * the objects each major collection walks; the few a query or a rebuild reads are decoded in
 * microseconds. Ids are given once, in ascending order, and never reused.
 */
export class ItemStore {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  private garbage = 0;
  private readonly start = uint32Column();
  private readonly length = uint32Column();
  private readonly kind = uint8Column();
  private next = 0;

  /** Stores an item under the next id, which it returns. */
  add(item: { entry: MatchEntry } | { criterion: MatchCriterion }): number {
    const id = this.next++;
    const text = JSON.stringify('entry' in item ? item.entry : item.criterion);
    const needed = text.length * 3;
    if (this.used + needed > this.bytes.length) this.grow(this.used + needed);
    const { written } = encoder.encodeInto(text, this.bytes.subarray(this.used));
    this.start.set(id, this.used);
    this.length.set(id, written);
    this.kind.set(id, 'entry' in item ? ENTRY : CRITERION);
    this.used += written;
    return id;
  }

  delete(id: number): void {
    const length = this.length.get(id);
    if (length === 0) return;
    this.length.set(id, 0);
    this.kind.set(id, 0);
    this.garbage += length;
    if (this.garbage > 1 << 20 && this.garbage > this.used / 2) this.compact();
  }

  has(id: number): boolean {
    return this.kind.get(id) !== 0;
  }

  isCriterion(id: number): boolean {
    return this.kind.get(id) === CRITERION;
  }

  /** The entry held under `id` (a new object each call). */
  entry(id: number): MatchEntry {
    return this.decode(id) as MatchEntry;
  }

  /** The criterion held under `id` (a new object each call). */
  criterion(id: number): MatchCriterion {
    return this.decode(id) as MatchCriterion;
  }

  get byteLength(): number {
    return this.bytes.byteLength + this.start.bytes + this.length.bytes + this.kind.bytes;
  }

  private decode(id: number): unknown {
    const from = this.start.get(id);
    return JSON.parse(decoder.decode(this.bytes.subarray(from, from + this.length.get(id))));
  }

  private grow(atLeast: number): void {
    let size = this.bytes.length;
    // A quarter more each time, as the index's columns grow: doubling left up to half of 300 MB unused.
    while (size < atLeast) size = Math.ceil(size * 1.25);
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
  }

  /** Rewrites the live items in id order into a fresh buffer. */
  private compact(): void {
    const compacted = new Uint8Array(Math.max(1 << 16, (this.used - this.garbage) * 2));
    let used = 0;
    for (let id = 0; id < this.next; id++) {
      const length = this.length.get(id);
      if (length === 0) continue;
      const from = this.start.get(id);
      compacted.set(this.bytes.subarray(from, from + length), used);
      this.start.set(id, used);
      used += length;
    }
    this.bytes = compacted;
    this.used = used;
    this.garbage = 0;
  }
}
