/**
 * Which intervals over byte-ordered string keys contain a key: the key space is cut into blocks at
 * every `span`-th distinct endpoint; each block keeps a bitmap of the values whose interval covers
 * the whole block and a short list of the intervals that only partly cover it, checked one by one.
 * A lookup is a binary search, one bitmap and at most ~2·span comparisons, whatever the number of
 * intervals. Any key can be looked up, not only keys seen at build time.
 */
import { RoaringBitmap32, type Bitmap } from '../bitmap.js';

export interface KeyInterval {
  /** Lower bound; absent: none. */
  start?: string;
  startInclusive: boolean;
  /** Upper bound; absent: none. */
  end?: string;
  endInclusive: boolean;
  value: number;
}

export function intervalContains(interval: KeyInterval, key: string): boolean {
  const { start, end } = interval;
  if (start !== undefined && (interval.startInclusive ? key < start : key <= start)) return false;
  if (end !== undefined && (interval.endInclusive ? key > end : key >= end)) return false;
  return true;
}

/** Blocks aimed at per structure: more means smaller partial lists and more bitmaps. */
const TARGET_BLOCKS = 512;
const MIN_SPAN = 16;

export class IntervalStabbing {
  private constructor(
    /** Block c holds keys in [starts[c], starts[c + 1]); starts[0] is '' (below every key). */
    private readonly starts: string[],
    private readonly full: Bitmap[],
    private readonly partial: KeyInterval[][],
  ) {}

  /** Builds the blocks, pausing between slices of work (`pause` yields to the event loop when due). */
  static async build(
    intervals: readonly KeyInterval[],
    valueCount: number,
    pause: () => Promise<void> = async () => {},
  ): Promise<IntervalStabbing> {
    const endpoints = new Set<string>();
    for (let i = 0; i < intervals.length; i++) {
      if ((i & 4095) === 4095) await pause();
      const interval = intervals[i]!;
      if (interval.start !== undefined) endpoints.add(interval.start);
      if (interval.end !== undefined) endpoints.add(interval.end);
    }
    const sorted = [...endpoints].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const span = Math.max(MIN_SPAN, Math.ceil(sorted.length / TARGET_BLOCKS));
    const starts = [''];
    for (let i = span; i < sorted.length; i += span) starts.push(sorted[i]!);
    const blocks = starts.length;
    const structure = new IntervalStabbing(
      starts,
      [],
      Array.from({ length: blocks }, () => []),
    );
    await pause();
    // Values entering (covering fully from) block c, and leaving after block c.
    const enter: number[][] = Array.from({ length: blocks }, () => []);
    const leave: number[][] = Array.from({ length: blocks }, () => []);
    for (let i = 0; i < intervals.length; i++) {
      if ((i & 1023) === 1023) await pause();
      const interval = intervals[i]!;
      const first = interval.start === undefined ? 0 : structure.blockOf(interval.start);
      const last = interval.end === undefined ? blocks - 1 : structure.blockOf(interval.end);
      let fullFrom = first;
      let fullTo = last;
      if (!structure.coversBlock(interval, first)) {
        structure.partial[first]!.push(interval);
        fullFrom = first + 1;
      }
      if (last >= fullFrom && !structure.coversBlock(interval, last)) {
        structure.partial[last]!.push(interval);
        fullTo = last - 1;
      }
      if (fullFrom <= fullTo) {
        enter[fullFrom]!.push(interval.value);
        leave[fullTo]!.push(interval.value);
      }
    }
    // One bitmap per block from the values counted in: a few native calls, not one per value.
    const counts = new Int32Array(valueCount);
    const active = new Uint32Array(valueCount);
    for (let c = 0; c < blocks; c++) {
      await pause();
      for (const value of enter[c]!) counts[value]!++;
      let n = 0;
      for (let value = 0; value < valueCount; value++) if (counts[value]! > 0) active[n++] = value;
      structure.full.push(new RoaringBitmap32(active.subarray(0, n)));
      for (const value of leave[c]!) counts[value]!--;
    }
    return structure;
  }

  /** The block holding `key`: the last c with starts[c] <= key. */
  private blockOf(key: string): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= key) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Whether the interval holds every key of block c. */
  private coversBlock(interval: KeyInterval, c: number): boolean {
    const from = this.starts[c]!;
    const { start, end } = interval;
    const startOk = start === undefined || start < from || (start === from && interval.startInclusive && c > 0);
    if (!startOk) return false;
    if (end === undefined) return true;
    const next = this.starts[c + 1];
    return next !== undefined && end >= next;
  }

  /** The values of the intervals holding `key`: a shared read-only bitmap plus extra values. */
  stab(key: string): { covering: Bitmap; extra: number[] } {
    const c = this.blockOf(key);
    const extra: number[] = [];
    for (const interval of this.partial[c]!) if (intervalContains(interval, key)) extra.push(interval.value);
    return { covering: this.full[c]!, extra };
  }

  /** Bitmaps and partial entries held, for memory reports. */
  get blocks(): number {
    return this.starts.length;
  }
}
