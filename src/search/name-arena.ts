import { uint32Column } from './columns.js';
import { IdSlots } from './id-slots.js';
import type { SnapshotIn, SnapshotOut } from './snapshot/codec.js';
import { SnapshotCorrupt } from './snapshot/frames.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Names (hostnames) as UTF-8 bytes in one contiguous buffer, addressed by a small id, with a
 * hash table from the bytes back to the id. Checking tens of thousands of candidate names per
 * query is then a walk through adjacent memory, where JavaScript strings scattered over a large
 * heap cost a cache miss each; and millions of names cost the garbage collector nothing, where a
 * string and a Map entry each would be objects every major collection walks.
 * Removed names leave garbage that is compacted away once it outweighs the live bytes.
 */
export class NameArena {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  private garbage = 0;
  private readonly start = uint32Column();
  private readonly length = uint32Column();
  private readonly hashOf = uint32Column();
  /** Name ids by the hash of their bytes. */
  private readonly slots = new IdSlots((id) => this.hashOf.get(id));
  private highest = 0;
  private scratch = new Uint8Array(1 << 10);

  /** Stores `name` under `id` (replacing what `id` held); names must be distinct and non-empty. */
  set(id: number, name: string): void {
    this.clear(id);
    const needed = name.length * 3;
    if (this.used + needed > this.bytes.length) this.grow(this.used + needed);
    const { written } = encoder.encodeInto(name, this.bytes.subarray(this.used));
    this.start.set(id, this.used);
    this.length.set(id, written);
    this.hashOf.set(id, hashBytes(this.bytes, this.used, this.used + written));
    this.used += written;
    if (id > this.highest) this.highest = id;
    this.slots.insert(id);
  }

  clear(id: number): void {
    const length = this.length.get(id);
    if (length === 0) return;
    this.slots.delete(id);
    this.length.set(id, 0);
    this.garbage += length;
    if (this.garbage > 1 << 20 && this.garbage > this.used / 2) this.compact();
  }

  has(id: number): boolean {
    return this.length.get(id) > 0;
  }

  /** The id holding `name`, or 0. */
  idOf(name: string): number {
    if (this.scratch.length < name.length * 3) this.scratch = new Uint8Array(name.length * 3);
    const { written } = encoder.encodeInto(name, this.scratch);
    const hash = hashBytes(this.scratch, 0, written);
    for (
      let slot = this.slots.firstSlot(hash), id = this.slots.idAt(slot);
      id !== 0;
      slot = this.slots.nextSlot(slot), id = this.slots.idAt(slot)
    ) {
      if (this.hashOf.get(id) === hash && this.equals(id, this.scratch, written)) return id;
    }
    return 0;
  }

  /** The distinct byte trigrams of name `id` (each as b0 << 16 | b1 << 8 | b2), into `out`. */
  trigramsOf(id: number, out: number[]): number[] {
    const from = this.start.get(id);
    return byteTrigrams(this.bytes, from, from + this.length.get(id), out);
  }

  /** Name `id` as text ('' when `id` holds none). */
  nameOf(id: number): string {
    const from = this.start.get(id);
    return decoder.decode(this.bytes.subarray(from, from + this.length.get(id)));
  }

  /** Number of names held. */
  get size(): number {
    return this.slots.size;
  }

  /** No id above this holds a name. */
  get highestId(): number {
    return this.highest;
  }

  /** Whether name `id` contains `needle` (UTF-8 bytes; UTF-8 containment is string containment). */
  contains(id: number, needle: Uint8Array): boolean {
    const from = this.start.get(id);
    const last = from + this.length.get(id) - needle.length;
    const first = needle[0];
    const bytes = this.bytes;
    outer: for (let i = from; i <= last; i++) {
      if (bytes[i] !== first) continue;
      for (let j = 1; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
      return true;
    }
    return false;
  }

  /** Whether name `id` is `domain` or one of its subdomains (`domain` as UTF-8 bytes). */
  isWithinDomain(id: number, domain: Uint8Array): boolean {
    const from = this.start.get(id);
    const length = this.length.get(id);
    if (length < domain.length) return false;
    const offset = from + length - domain.length;
    for (let j = 0; j < domain.length; j++) if (this.bytes[offset + j] !== domain[j]) return false;
    return length === domain.length || this.bytes[offset - 1] === DOT;
  }

  get byteLength(): number {
    return this.bytes.byteLength + this.slots.byteLength + this.start.bytes + this.length.bytes + this.hashOf.bytes;
  }

  async saveTo(out: SnapshotOut): Promise<void> {
    await out.numbers([this.used, this.garbage, this.highest]);
    await out.array(this.bytes, this.used);
    for (const column of [this.start, this.length, this.hashOf]) await column.saveTo(out, this.highest + 1);
    await this.slots.saveTo(out);
  }

  async loadFrom(input: SnapshotIn): Promise<void> {
    const [used = 0, garbage = 0, highest = 0] = await input.numbers(3);
    const room = (length: number) => Math.max(1 << 16, Math.ceil(length * 1.25));
    const { array, length } = await input.array((size) => new Uint8Array(size), room);
    if (length !== used) throw new SnapshotCorrupt('name bytes of a wrong length');
    this.bytes = array;
    this.used = used;
    this.garbage = garbage;
    this.highest = highest;
    for (const column of [this.start, this.length, this.hashOf]) await column.loadFrom(input);
    await this.slots.loadFrom(input);
  }

  private equals(id: number, other: Uint8Array, length: number): boolean {
    if (this.length.get(id) !== length) return false;
    const from = this.start.get(id);
    for (let i = 0; i < length; i++) if (this.bytes[from + i] !== other[i]) return false;
    return true;
  }

  private grow(atLeast: number): void {
    let size = this.bytes.length;
    while (size < atLeast) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
  }

  /** Rewrites the live names in id order into a fresh buffer. */
  private compact(): void {
    const compacted = new Uint8Array(Math.max(1 << 16, (this.used - this.garbage) * 2));
    let used = 0;
    for (let id = 0; id <= this.highest; id++) {
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

const DOT = 0x2e;

/** The distinct trigrams of bytes[from, to) (each as b0 << 16 | b1 << 8 | b2), into `out`. */
export function byteTrigrams(bytes: Uint8Array, from: number, to: number, out: number[]): number[] {
  out.length = 0;
  for (let i = from; i + 3 <= to; i++) {
    const gram = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    if (!out.includes(gram)) out.push(gram);
  }
  return out;
}

/** FNV-1a over bytes[from, to). */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

export const utf8 = (text: string): Uint8Array => encoder.encode(text);
