import type { AdvisoryIndexRow } from '../../storage/index.js';
import type { AdvisoryMatchIndex } from './match-index.js';
import type { RecordTable } from './record-table.js';
import { FeedSegment } from './segment.js';
import { mergeSliced, type Slicer, sortSliced } from '../slices.js';
import type { TermDictionary } from './term-dictionary.js';

/** One feed as the index holds it: its record ids' slots and the segment of its generation. */
export class FeedState {
  recordSlots = new Map<string, number>();
  segment: FeedSegment;

  constructor(
    readonly name: string,
    table: RecordTable,
  ) {
    this.segment = FeedSegment.empty(name, 0, table);
  }

  get generation(): number {
    return this.segment.generation;
  }
}

/**
 * The change from a feed's held generation to a newer one, gathered while it is read: rows added
 * go into new slots at once (no segment refers to them yet, so queries are not disturbed), while
 * the slots they replace, and those of removed records, are freed only at the switch.
 */
export class FeedChange {
  private added = new Map<string, number>();
  private readonly replaced = new Set<number>();

  constructor(
    private readonly feed: FeedState,
    private readonly table: RecordTable,
    private readonly terms: TermDictionary,
    private readonly match: AdvisoryMatchIndex,
  ) {}

  /** Every held record goes unless read again (a reload of the whole generation). */
  replaceAll(): void {
    for (const slot of this.feed.recordSlots.values()) this.replaced.add(slot);
  }

  add(row: AdvisoryIndexRow): void {
    const pending = this.added.get(row.recordId);
    const held = this.feed.recordSlots.get(row.recordId);
    if (pending !== undefined) {
      if (this.table.rowId(pending) === row.id) return;
      this.discard(row.recordId, pending);
    } else if (held !== undefined) {
      if (this.table.rowId(held) === row.id) {
        this.replaced.delete(held);
        return;
      }
      this.replaced.add(held);
    }
    const slot = this.table.add(row);
    this.match.set(slot, row.matchData);
    this.added.set(row.recordId, slot);
  }

  /** Records after the change. */
  get count(): number {
    return this.feed.recordSlots.size - this.replaced.size + this.added.size;
  }

  /**
   * Keeps exactly the records of `visible` (record id → row id, what the generation sees); false
   * when a visible row is not the one held (then only a reload is exact).
   */
  keepOnly(visible: ReadonlyMap<string, number>): boolean {
    for (const [recordId, slot] of this.added) {
      if (!visible.has(recordId)) this.discard(recordId, slot);
    }
    for (const [recordId, slot] of this.feed.recordSlots) {
      if (!this.added.has(recordId) && !visible.has(recordId)) this.replaced.add(slot);
    }
    for (const [recordId, rowId] of visible) {
      const slot = this.added.get(recordId) ?? this.heldSlot(recordId);
      if (slot === undefined || this.table.rowId(slot) !== rowId) return false;
    }
    return true;
  }

  /** Undoes what was read (a failed or abandoned catch-up). */
  abandon(): void {
    for (const [recordId, slot] of this.added) this.discard(recordId, slot);
    this.replaced.clear();
  }

  /** The feed's segment after the change (built in slices; held slots are not touched). */
  async nextSegment(generation: number, slicer: Slicer): Promise<FeedSegment> {
    const { segment } = this.feed;
    const table = this.table;
    const kept = segment.slots.filter((slot) => !this.replaced.has(slot));
    const added = await sortSliced(Uint32Array.from(this.added.values()), table.compare, slicer);
    const order = await mergeSliced(kept, added, table.compare, slicer);
    const byTime = (a: number, b: number) => table.updated(a) - table.updated(b);
    const keptTimes = segment.timeSlots.filter((slot) => !this.replaced.has(slot));
    const addedTimes = await sortSliced(
      added.filter((slot) => !Number.isNaN(table.updated(slot))),
      byTime,
      slicer,
    );
    const timeOrder = await mergeSliced(keptTimes, addedTimes, byTime, slicer);
    return FeedSegment.build(this.feed.name, generation, order, timeOrder, table, this.terms, slicer);
  }

  /** Makes the change the feed's state (synchronous: under the index's write gate). */
  switchTo(segment: FeedSegment): void {
    for (const slot of this.replaced) {
      const recordId = this.table.recordId(slot);
      if (this.feed.recordSlots.get(recordId) === slot) this.feed.recordSlots.delete(recordId);
      this.table.remove(slot);
      this.match.delete(slot);
    }
    // A first load (or a full reload) adopts the map read, rather than copying 400k entries under the gate.
    if (this.feed.recordSlots.size === 0) this.feed.recordSlots = this.added;
    else for (const [recordId, slot] of this.added) this.feed.recordSlots.set(recordId, slot);
    this.feed.segment = segment;
    this.added = new Map();
    this.replaced.clear();
  }

  private heldSlot(recordId: string): number | undefined {
    const slot = this.feed.recordSlots.get(recordId);
    return slot === undefined || this.replaced.has(slot) ? undefined : slot;
  }

  private discard(recordId: string, slot: number): void {
    this.added.delete(recordId);
    this.table.remove(slot);
    this.match.delete(slot);
  }
}
