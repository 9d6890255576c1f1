import { bitmapOfUnsorted, RoaringBitmap32, type Bitmap } from '../bitmap.js';
import type { RecordTable } from './record-table.js';
import type { Slicer } from '../slices.js';
import type { TermDictionary } from './term-dictionary.js';

/** Terms held by at least this many records keep a ready bitmap; rarer ones are made one per query. */
const BITMAP_MIN = 512;
/** Positions of the update-time order per ready bitmap. */
const TIME_BLOCK = 4096;

const EMPTY = new RoaringBitmap32();

/**
 * One feed generation, immutable: its records in the served order (CVE id, record id), a record's
 * *rank* being its position; per term, the sorted ranks holding it (one typed array for all terms,
 * with ready bitmaps for the frequent ones); the ranks in update-time order, with a bitmap per
 * block of that order; and rank ↔ slot. Filters are set algebra over ranks; a page is a range of
 * ranks or a `select` in a result bitmap; a cursor position is a binary search of the keys.
 */
export class FeedSegment {
  private constructor(
    readonly feed: string,
    readonly generation: number,
    /** Rank → slot. */
    readonly slots: Uint32Array,
    /** Update-time order, as slots (kept to merge the next generation's changes into). */
    readonly timeSlots: Uint32Array,
    private readonly table: RecordTable,
    private readonly rankBySlot: Int32Array,
    private readonly termIds: Uint32Array,
    private readonly offsets: Uint32Array,
    private readonly postings: Uint32Array,
    private readonly ready: Map<number, Bitmap>,
    private readonly times: Float64Array,
    private readonly timeBlocks: Bitmap[],
  ) {}

  static empty(feed: string, generation: number, table: RecordTable): FeedSegment {
    const none = new Uint32Array(0);
    return new FeedSegment(
      feed,
      generation,
      none,
      none,
      table,
      new Int32Array(0),
      none,
      new Uint32Array(1),
      none,
      new Map(),
      new Float64Array(0),
      [],
    );
  }

  /** Builds the segment of `slots` (in the served order) and `timeSlots` (by update time), in slices. */
  static async build(
    feed: string,
    generation: number,
    slots: Uint32Array,
    timeSlots: Uint32Array,
    table: RecordTable,
    terms: TermDictionary,
    slicer: Slicer,
  ): Promise<FeedSegment> {
    const n = slots.length;
    const rankBySlot = new Int32Array(table.slotLimit).fill(-1);
    for (let rank = 0; rank < n; rank++) rankBySlot[slots[rank]!] = rank;
    // Postings, counted then filled in rank order (so each term's ranks come out sorted).
    const cursor = new Uint32Array(terms.idLimit + 1);
    let total = 0;
    const pool = table.termPool;
    for (let rank = 0; rank < n; rank++) {
      const slot = slots[rank]!;
      const from = table.termStartOf(slot);
      const to = from + table.termCountOf(slot);
      for (let j = from; j < to; j++) cursor[pool[j]!]!++;
      if (slicer.due()) await slicer.pause();
    }
    let distinct = 0;
    for (let id = 0; id < cursor.length; id++) if (cursor[id]! > 0) distinct++;
    const termIds = new Uint32Array(distinct);
    const offsets = new Uint32Array(distinct + 1);
    for (let id = 0, i = 0; id < cursor.length; id++) {
      const count = cursor[id]!;
      if (count === 0) continue;
      termIds[i] = id;
      offsets[i] = total;
      cursor[id] = total;
      total += count;
      i++;
    }
    offsets[distinct] = total;
    const postings = new Uint32Array(total);
    for (let rank = 0; rank < n; rank++) {
      const slot = slots[rank]!;
      const from = table.termStartOf(slot);
      const to = from + table.termCountOf(slot);
      for (let j = from; j < to; j++) postings[cursor[pool[j]!]!++] = rank;
      if (slicer.due()) await slicer.pause();
    }
    const ready = new Map<number, Bitmap>();
    for (let i = 0; i < distinct; i++) {
      const from = offsets[i]!;
      const to = offsets[i + 1]!;
      if (to - from < BITMAP_MIN) continue;
      const bitmap = new RoaringBitmap32(postings.subarray(from, to));
      bitmap.runOptimize();
      bitmap.shrinkToFit();
      ready.set(termIds[i]!, bitmap);
      if (slicer.due()) await slicer.pause();
    }
    const times = new Float64Array(timeSlots.length);
    const timeBlocks: Bitmap[] = [];
    for (let from = 0; from < timeSlots.length; from += TIME_BLOCK) {
      const to = Math.min(from + TIME_BLOCK, timeSlots.length);
      const ranks = new Uint32Array(to - from);
      for (let p = from; p < to; p++) {
        const slot = timeSlots[p]!;
        times[p] = table.updated(slot);
        ranks[p - from] = rankBySlot[slot]!;
      }
      const block = new RoaringBitmap32(ranks);
      block.shrinkToFit();
      timeBlocks.push(block);
      if (slicer.due()) await slicer.pause();
    }
    return new FeedSegment(
      feed,
      generation,
      slots,
      timeSlots,
      table,
      rankBySlot,
      termIds,
      offsets,
      postings,
      ready,
      times,
      timeBlocks,
    );
  }

  get size(): number {
    return this.slots.length;
  }

  /** Whether the segment holds the slot. */
  holds(slot: number): boolean {
    return slot < this.rankBySlot.length && this.rankBySlot[slot]! >= 0;
  }

  /** The ranks holding term `id` (read only: it may be the segment's own bitmap). */
  posting(id: number): Bitmap {
    const ready = this.ready.get(id);
    if (ready) return ready;
    let lo = 0;
    let hi = this.termIds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.termIds[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= this.termIds.length || this.termIds[lo] !== id) return EMPTY;
    return new RoaringBitmap32(this.postings.subarray(this.offsets[lo]!, this.offsets[lo + 1]!));
  }

  /** How many ranks hold term `id` (no bitmap made). */
  postingSize(id: number): number {
    const ready = this.ready.get(id);
    if (ready) return ready.size;
    let lo = 0;
    let hi = this.termIds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.termIds[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.termIds.length && this.termIds[lo] === id ? this.offsets[lo + 1]! - this.offsets[lo]! : 0;
  }

  /** The first rank whose key is after (cveId, recordId). */
  rankAfter(cveId: string, recordId: string): number {
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const slot = this.slots[mid]!;
      const c = this.table.cveId(slot);
      const r = this.table.recordId(slot);
      const after = c > cveId || (c === cveId && r > recordId);
      if (after) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** The ranks [lo, hi) of the records of one CVE id (contiguous in the served order). */
  cveRange(cveId: string): [number, number] {
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.table.cveId(this.slots[mid]!) < cveId) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < this.slots.length && this.table.cveId(this.slots[end]!) === cveId) end++;
    return [lo, end];
  }

  /** The ranks whose update time is after `after` and before `before` (both exclusive, either optional). */
  updatedBetween(after: number | undefined, before: number | undefined): Bitmap {
    const lo = after === undefined ? 0 : this.timePosition(after, true);
    const hi = before === undefined ? this.times.length : this.timePosition(before, false);
    if (lo >= hi) return new RoaringBitmap32();
    const firstFull = Math.ceil(lo / TIME_BLOCK);
    const endFull = Math.floor(hi / TIME_BLOCK);
    const edge: number[] = [];
    const addRanks = (from: number, to: number) => {
      for (let p = from; p < to; p++) edge.push(this.rankBySlot[this.timeSlots[p]!]!);
    };
    if (firstFull >= endFull) {
      addRanks(lo, hi);
      return new RoaringBitmap32(edge);
    }
    addRanks(lo, firstFull * TIME_BLOCK);
    addRanks(endFull * TIME_BLOCK, hi);
    const result = RoaringBitmap32.orMany(this.timeBlocks.slice(firstFull, endFull));
    if (edge.length > 0) result.addMany(edge);
    return result;
  }

  /** First position whose time is > t (`strictlyAfter`) or >= t. */
  private timePosition(t: number, strictlyAfter: boolean): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const time = this.times[mid]!;
      if (strictlyAfter ? time <= t : time < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The ranks of those of `slots` this segment holds. */
  ranksOfSlots(slots: Bitmap): Bitmap {
    const values = slots.toUint32Array();
    const ranks = new Uint32Array(values.length);
    let count = 0;
    for (let i = 0; i < values.length; i++) {
      const slot = values[i]!;
      if (slot >= this.rankBySlot.length) continue;
      const rank = this.rankBySlot[slot]!;
      if (rank >= 0) ranks[count++] = rank;
    }
    return bitmapOfUnsorted(ranks.subarray(0, count), this.slots.length);
  }

  /** The slots of these ranks. */
  slotsOfRanks(ranks: Bitmap): Bitmap {
    const values = ranks.toUint32Array();
    let bound = 0;
    for (let i = 0; i < values.length; i++) {
      const slot = this.slots[values[i]!]!;
      values[i] = slot;
      if (slot > bound) bound = slot;
    }
    return bitmapOfUnsorted(values, bound);
  }

  get byteLength(): number {
    let ready = 0;
    for (const bitmap of this.ready.values()) ready += bitmap.getSerializationSizeInBytes('croaring') + 64;
    for (const bitmap of this.timeBlocks) ready += bitmap.getSerializationSizeInBytes('croaring') + 64;
    return (
      this.slots.byteLength +
      this.timeSlots.byteLength +
      this.rankBySlot.byteLength +
      this.termIds.byteLength +
      this.offsets.byteLength +
      this.postings.byteLength +
      this.times.byteLength +
      ready
    );
  }
}
