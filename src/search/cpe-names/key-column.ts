import { type Bitmap, RoaringBitmap32 } from '../bitmap.js';
import { compareCodePoints } from './code-points.js';
import { type Slicer, sortSliced } from '../slices.js';

/** Positions per block of the first and second level (a range unites at most ~60 blocks). */
const SMALL_BLOCK = 4096;
const LARGE_BLOCK = 65536;

/**
 * One search column (product or version) over ranks: the distinct values in code-point order and
 * every rank sorted by (value, rank), so an exact value or a value prefix is one contiguous slice
 * of positions. A slice becomes a bitmap of ranks by uniting prebuilt bitmaps of aligned blocks of
 * positions and adding the few loose positions at its ends: a prefix that spans thousands of
 * distinct versions costs a bounded union, not one per version.
 */
export class KeyColumn {
  constructor(
    private readonly keys: string[],
    /** starts[k] … starts[k + 1]: the positions of keys[k]. */
    private readonly starts: Uint32Array,
    /** Ranks sorted by (key, rank). */
    private readonly ranks: Uint32Array,
    private readonly small: Bitmap[],
    private readonly large: Bitmap[],
  ) {}

  /** Positions [from, to) of `key`. */
  exact(key: string): [number, number] {
    const k = this.lowerBound(key);
    return k < this.keys.length && this.keys[k] === key ? [this.starts[k]!, this.starts[k + 1]!] : [0, 0];
  }

  /** Positions [from, to) of every key starting with `prefix`. */
  prefix(prefix: string): [number, number] {
    const first = this.lowerBound(prefix);
    let low = first;
    let high = this.keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.keys[middle]!.startsWith(prefix)) low = middle + 1;
      else high = middle;
    }
    return [this.starts[first]!, this.starts[low]!];
  }

  /** The ranks at positions [from, to), as a new bitmap. */
  bitmap(from: number, to: number): Bitmap {
    const parts: Bitmap[] = [];
    const loose = new RoaringBitmap32();
    let at = from;
    while (at < to) {
      if (at % LARGE_BLOCK === 0 && at + LARGE_BLOCK <= to) {
        parts.push(this.large[at / LARGE_BLOCK]!);
        at += LARGE_BLOCK;
      } else if (at % SMALL_BLOCK === 0 && at + SMALL_BLOCK <= to) {
        parts.push(this.small[at / SMALL_BLOCK]!);
        at += SMALL_BLOCK;
      } else {
        const end = Math.min(to, (Math.floor(at / SMALL_BLOCK) + 1) * SMALL_BLOCK);
        loose.addMany(this.ranks.subarray(at, end));
        at = end;
      }
    }
    if (parts.length === 0) return loose;
    parts.push(loose);
    return RoaringBitmap32.orMany(parts);
  }

  get byteLength(): number {
    let bytes = this.starts.byteLength + this.ranks.byteLength;
    for (const key of this.keys) bytes += 16 + key.length;
    for (const block of [...this.small, ...this.large]) bytes += 64 + block.getSerializationSizeInBytes(true);
    return bytes;
  }

  private lowerBound(key: string): number {
    let low = 0;
    let high = this.keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareCodePoints(this.keys[middle]!, key) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/** Collects each rank's key (ranks 0, 1, 2, … in turn), then sorts in slices. */
export class KeyColumnBuilder {
  private readonly keyIndex = new Map<string, number>();
  private readonly keys: string[] = [];
  private keyOf = new Uint32Array(1 << 14);
  private count = 0;

  add(key: string): void {
    let k = this.keyIndex.get(key);
    if (k === undefined) {
      k = this.keys.length;
      this.keys.push(key);
      this.keyIndex.set(key, k);
    }
    if (this.count === this.keyOf.length) {
      const grown = new Uint32Array(Math.ceil(this.keyOf.length * 1.5));
      grown.set(this.keyOf);
      this.keyOf = grown;
    }
    this.keyOf[this.count++] = k;
  }

  async finish(slicer: Slicer): Promise<KeyColumn> {
    this.keyIndex.clear();
    const order = await sortedOrder(this.keys, slicer);
    const keyCount = this.keys.length;
    const positionOf = new Uint32Array(keyCount);
    for (let p = 0; p < keyCount; p++) positionOf[order[p]!] = p;
    const starts = new Uint32Array(keyCount + 1);
    for (let rank = 0; rank < this.count; rank++) {
      const p = positionOf[this.keyOf[rank]!]! + 1;
      starts[p] = starts[p]! + 1;
      if ((rank & 0xffff) === 0) await slicer.yieldIfDue();
    }
    for (let p = 0; p < keyCount; p++) starts[p + 1] = starts[p + 1]! + starts[p]!;
    await slicer.yieldIfDue();
    const next = starts.slice(0, keyCount);
    const ranks = new Uint32Array(this.count);
    for (let rank = 0; rank < this.count; rank++) {
      const p = positionOf[this.keyOf[rank]!]!;
      ranks[next[p]!] = rank;
      next[p] = next[p]! + 1;
      if ((rank & 0xffff) === 0) await slicer.yieldIfDue();
    }
    await slicer.yieldIfDue();
    const sortedKeys = Array.from(order, (k) => this.keys[k]!);
    const small = await blocks(ranks, SMALL_BLOCK, slicer);
    const large = await blocks(ranks, LARGE_BLOCK, slicer);
    return new KeyColumn(sortedKeys, starts, ranks, small, large);
  }
}

async function blocks(ranks: Uint32Array, size: number, slicer: Slicer): Promise<Bitmap[]> {
  const out: Bitmap[] = [];
  for (let from = 0; from + size <= ranks.length; from += size) {
    const block = new RoaringBitmap32(ranks.subarray(from, from + size));
    block.runOptimize();
    block.shrinkToFit();
    out.push(block);
    await slicer.yieldIfDue();
  }
  return out;
}

/** Indices of `keys` in code-point order of their keys. */
function sortedOrder(keys: string[], slicer: Slicer): Promise<Uint32Array> {
  return sortSliced(Uint32Array.from(keys.keys()), (a, b) => compareCodePoints(keys[a]!, keys[b]!), slicer);
}
