/**
 * The advisory filters that terms alone cannot decide (`version`, `cpe`, several entry filters on
 * one affected entry), answered over the match data of every record held, keyed by a stable
 * record slot. The answer is exactly what core/advisory/match.ts `recordMatches` says.
 */
import { needsMatchData, type AdvisoryFilters } from '../../core/advisory/filters.js';
import type { MatchData } from '../../core/advisory/facts.js';
import { recordMatches } from '../../core/advisory/match.js';
import { RoaringBitmap32, type Bitmap } from '../bitmap.js';

/** How long one slice of work may hold the event loop before it yields. */
const SLICE_MS = 10;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class AdvisoryMatchIndex {
  private readonly data = new Map<number, MatchData>();

  /** Adds the match data of a record slot, or replaces it. */
  set(slot: number, data: MatchData): void {
    this.data.set(slot, data);
  }

  delete(slot: number): void {
    this.data.delete(slot);
  }

  get size(): number {
    return this.data.size;
  }

  /**
   * The slots among `candidates` (all slots when absent) whose match data satisfy `filters`; only
   * for filters that need match data (`needsMatchData`).
   */
  async matching(filters: AdvisoryFilters, candidates?: Bitmap): Promise<Bitmap> {
    if (!needsMatchData(filters)) throw new Error('matching() is for filters that need match data');
    const out = new RoaringBitmap32();
    let sliceStart = performance.now();
    const consider = (slot: number, data: MatchData) => {
      if (recordMatches(data, filters)) out.add(slot);
    };
    let n = 0;
    if (candidates) {
      for (const slot of candidates) {
        const data = this.data.get(slot);
        if (data) consider(slot, data);
        if (++n % 256 === 0 && performance.now() - sliceStart > SLICE_MS) {
          await yieldToLoop();
          sliceStart = performance.now();
        }
      }
    } else {
      for (const [slot, data] of this.data) {
        consider(slot, data);
        if (++n % 256 === 0 && performance.now() - sliceStart > SLICE_MS) {
          await yieldToLoop();
          sliceStart = performance.now();
        }
      }
    }
    return out;
  }
}
