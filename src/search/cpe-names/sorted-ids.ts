import type { Slicer } from '../slices.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Distinct strings in bytewise order as UTF-8 in one buffer, addressed by rank (position): 1.5M
 * CPE names cost their bytes and four bytes each, and nothing for the garbage collector to walk.
 */
export class SortedIds {
  constructor(
    private readonly bytes: Uint8Array,
    /** offsets[rank] … offsets[rank + 1]: the bytes of `rank`. */
    private readonly offsets: Uint32Array,
  ) {}

  get size(): number {
    return this.offsets.length - 1;
  }

  get byteLength(): number {
    return this.bytes.byteLength + this.offsets.byteLength;
  }

  at(rank: number): string {
    return decoder.decode(this.bytes.subarray(this.offsets[rank]!, this.offsets[rank + 1]!));
  }

  /** The rank of `id`, or -1. */
  rankOf(id: string): number {
    const target = encoder.encode(id);
    const rank = this.lowerBound(target, false);
    return rank < this.size && this.compare(rank, target, false) === 0 ? rank : -1;
  }

  /** The number of ids below `id` (where it is or would be). */
  insertionPoint(id: string): number {
    return this.lowerBound(encoder.encode(id), false);
  }

  /** The ranks [from, to) of the ids starting with `prefix`. */
  prefixRange(prefix: string): [number, number] {
    const target = encoder.encode(prefix);
    return [this.lowerBound(target, true), this.upperBound(target)];
  }

  /** First rank whose id (cut to the target's length when `prefix`) is not below `target`. */
  private lowerBound(target: Uint8Array, prefix: boolean): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(middle, target, prefix) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** First rank whose id, cut to the target's length, is above `target`. */
  private upperBound(target: Uint8Array): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(middle, target, true) <= 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private compare(rank: number, target: Uint8Array, prefix: boolean): number {
    const from = this.offsets[rank]!;
    const length = this.offsets[rank + 1]! - from;
    const common = Math.min(length, target.length);
    const bytes = this.bytes;
    for (let i = 0; i < common; i++) {
      const difference = bytes[from + i]! - target[i]!;
      if (difference !== 0) return difference;
    }
    if (prefix && length >= target.length) return 0;
    return length - target.length;
  }
}

/** Bytes per buffer while collecting: growing one buffer of 90 MB by copying would hold the event loop. */
const PIECE = 1 << 22;

/** Collects ids given in ascending order. */
export class SortedIdsBuilder {
  private readonly pieces: Uint8Array[] = [];
  private piece = new Uint8Array(PIECE);
  private pieceUsed = 0;
  private used = 0;
  private offsets: Uint32Array = new Uint32Array(1 << 14);
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(id: string): void {
    if (this.pieceUsed + id.length * 3 > this.piece.length) {
      this.pieces.push(this.piece.subarray(0, this.pieceUsed));
      this.piece = new Uint8Array(Math.max(PIECE, id.length * 3));
      this.pieceUsed = 0;
    }
    if (this.count + 2 > this.offsets.length) this.offsets = grown(this.offsets, this.count + 2);
    this.offsets[this.count] = this.used;
    const { written } = encoder.encodeInto(id, this.piece.subarray(this.pieceUsed));
    this.pieceUsed += written;
    this.used += written;
    this.count++;
  }

  async finish(slicer: Slicer): Promise<SortedIds> {
    const offsets = this.offsets.slice(0, this.count + 1);
    offsets[this.count] = this.used;
    const bytes = new Uint8Array(this.used);
    let at = 0;
    for (const piece of [...this.pieces, this.piece.subarray(0, this.pieceUsed)]) {
      bytes.set(piece, at);
      at += piece.length;
      await slicer.yieldIfDue();
    }
    return new SortedIds(bytes, offsets);
  }
}

function grown(array: Uint32Array, atLeast: number): Uint32Array {
  let length = array.length;
  while (length < atLeast) length = Math.ceil(length * 1.5);
  const copy = new Uint32Array(length);
  copy.set(array);
  return copy;
}
