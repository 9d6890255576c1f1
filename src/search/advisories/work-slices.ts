/**
 * Building version structures in slices: `tick()` is cheap in a loop and yields to the event loop
 * once the current slice has run for SLICE_MS, so no build holds a server's requests.
 */
const SLICE_MS = 10;

export class WorkSlices {
  private started = performance.now();
  private calls = 0;

  async tick(): Promise<void> {
    if ((++this.calls & 15) !== 0 || performance.now() - this.started < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}

/** Sorts by `compare` with a bottom-up merge sort that yields between slices. */
export async function sortInSlices<T>(items: T[], compare: (a: T, b: T) => number, slices: WorkSlices): Promise<T[]> {
  const RUN = 32;
  let source = items.slice();
  for (let start = 0; start < source.length; start += RUN) {
    const run = source.slice(start, start + RUN).sort(compare);
    for (let i = 0; i < run.length; i++) source[start + i] = run[i]!;
    await slices.tick();
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
        if ((k & 63) === 0) await slices.tick();
      }
    }
    [source, target] = [target, source];
  }
  return source;
}
