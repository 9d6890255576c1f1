import type { SeededRandom } from '../src/ingest/demo/random.js';

/** Samples ranks 0..n-1 with probability ∝ 1/(rank+1)^s, by binary search over the CDF. */
export class Zipf {
  private readonly cdf: Float64Array;

  constructor(
    readonly n: number,
    s: number,
  ) {
    this.cdf = new Float64Array(n);
    let total = 0;
    for (let i = 0; i < n; i++) total += 1 / (i + 1) ** s;
    let running = 0;
    for (let i = 0; i < n; i++) {
      running += 1 / (i + 1) ** s / total;
      this.cdf[i] = running;
    }
  }

  sample(random: SeededRandom): number {
    const r = random.next();
    let low = 0;
    let high = this.n - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.cdf[mid]! < r) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Expected share of rank i. */
  share(i: number): number {
    return this.cdf[i]! - (i > 0 ? this.cdf[i - 1]! : 0);
  }
}
