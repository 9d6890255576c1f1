import { loopTurns } from './loop-turns.js';

/**
 * Long work in slices, so rebuilding an index never holds a server's requests: `tick()` and
 * `due()` are cheap to call in a loop (the clock is read every so many calls), `yieldIfDue()`
 * reads it at once, and `pause()` yields to the event loop and starts a new slice.
 */
export const SLICE_MS = 10;

/** Waits for a later turn of the event loop in the process's queue. */
export const yieldToLoop = (): Promise<void> => loopTurns.next();

export class Slicer {
  private started = performance.now();
  private calls = 0;

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Whether the slice is used up (the clock is read every 256 calls). */
  due(): boolean {
    return (++this.calls & 255) === 0 && performance.now() - this.started >= this.sliceMs;
  }

  /** Waits for a later turn in the process's queue (requests and other slices go first in their order). */
  async pause(): Promise<void> {
    await loopTurns.next();
    this.started = performance.now();
  }

  /** Yields when the slice is used up (the clock is read every 16 calls). */
  async tick(): Promise<void> {
    if ((++this.calls & 15) === 0) await this.yieldIfDue();
  }

  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.started >= this.sliceMs) await this.pause();
  }
}

const SORTED_RUN = 32;

/** Sorts `items` in place by `compare` (a stable bottom-up merge sort that yields between slices). */
export async function sortSliced(
  items: Uint32Array,
  compare: (a: number, b: number) => number,
  slicer: Slicer,
): Promise<Uint32Array> {
  const n = items.length;
  // Runs of 32 sorted natively first (stable), so the merges start at width 32.
  for (let start = 0; start < n; start += SORTED_RUN) {
    const run = Array.from(items.subarray(start, Math.min(n, start + SORTED_RUN)));
    run.sort(compare);
    items.set(run, start);
    if (slicer.due()) await slicer.pause();
  }
  let from: Uint32Array = items;
  let to: Uint32Array = new Uint32Array(n);
  for (let width = SORTED_RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        to[k++] = compare(from[j]!, from[i]!) < 0 ? from[j++]! : from[i++]!;
        if (slicer.due()) await slicer.pause();
      }
      while (i < mid) to[k++] = from[i++]!;
      while (j < hi) to[k++] = from[j++]!;
    }
    [from, to] = [to, from];
  }
  if (from !== items) items.set(from);
  return items;
}

/** The merge of two lists sorted by `compare` (on ties, `a` first). */
export async function mergeSliced(
  a: Uint32Array,
  b: Uint32Array,
  compare: (x: number, y: number) => number,
  slicer: Slicer,
): Promise<Uint32Array> {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    out[k++] = compare(b[j]!, a[i]!) < 0 ? b[j++]! : a[i++]!;
    if (slicer.due()) await slicer.pause();
  }
  out.set(a.subarray(i), k);
  out.set(b.subarray(j), k + a.length - i);
  return out;
}

/** Sorts by `compare` with a bottom-up merge sort that yields between slices. */
export async function sortInSlices<T>(items: T[], compare: (a: T, b: T) => number, slicer: Slicer): Promise<T[]> {
  const RUN = 32;
  let source = items.slice();
  for (let start = 0; start < source.length; start += RUN) {
    const run = source.slice(start, start + RUN).sort(compare);
    for (let i = 0; i < run.length; i++) source[start + i] = run[i]!;
    await slicer.tick();
  }
  let target = new Array<T>(source.length);
  for (let width = RUN; width < source.length; width *= 2) {
    for (let left = 0; left < source.length; left += 2 * width) {
      const middle = Math.min(left + width, source.length);
      const right = Math.min(left + 2 * width, source.length);
      let i = left;
      let j = middle;
      for (let k = left; k < right; k++) {
        target[k] = i < middle && (j >= right || compare(source[i]!, source[j]!) <= 0) ? source[i++]! : source[j++]!;
        if ((k & 63) === 0) await slicer.tick();
      }
    }
    [source, target] = [target, source];
  }
  return source;
}
