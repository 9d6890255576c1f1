import type { AdvisoryIndexRow } from '../../storage/index.js';
import { float64Column, uint32Column } from '../columns.js';
import type { TermDictionary } from './term-dictionary.js';

/**
 * The stored record rows the index holds, one per *slot*: a small integer given to a row when it
 * is added and kept while the row is held (the match index is keyed by it), reused once freed.
 * Per slot: the row id, CVE id, record id, update time and the ids of its terms (packed in one
 * typed array). No record JSON: pages are read from the database by row id.
 */
export class RecordTable {
  private readonly rowIds = float64Column();
  private readonly updatedAt = float64Column();
  private readonly cveIds: string[] = [];
  private readonly recordIds: string[] = [];
  private readonly termStart = uint32Column();
  private readonly termCount = uint32Column();
  private pool = new Uint32Array(1 << 16);
  private poolUsed = 0;
  private poolGarbage = 0;
  private readonly free: number[] = [];
  private next = 0;
  private live = 0;

  constructor(private readonly terms: TermDictionary) {}

  /** Holds a row in a new slot. */
  add(row: AdvisoryIndexRow): number {
    const slot = this.free.pop() ?? this.next++;
    this.rowIds.set(slot, row.id);
    this.updatedAt.set(slot, row.updatedAt ?? Number.NaN);
    this.cveIds[slot] = row.cveId;
    // Most feeds key records by their CVE id: one string serves both.
    this.recordIds[slot] = row.recordId === row.cveId ? row.cveId : row.recordId;
    if (this.poolUsed + row.terms.length > this.pool.length) this.growPool(row.terms.length);
    this.termStart.set(slot, this.poolUsed);
    this.termCount.set(slot, row.terms.length);
    for (const [kind, value] of row.terms) this.pool[this.poolUsed++] = this.terms.acquire(kind, value);
    this.live++;
    return slot;
  }

  /** Frees a slot (its terms are released). */
  remove(slot: number): void {
    for (const id of this.termsOf(slot)) this.terms.release(id);
    this.poolGarbage += this.termCount.get(slot);
    this.termCount.set(slot, 0);
    this.cveIds[slot] = '';
    this.recordIds[slot] = '';
    this.free.push(slot);
    this.live--;
  }

  rowId(slot: number): number {
    return this.rowIds.get(slot);
  }

  cveId(slot: number): string {
    return this.cveIds[slot]!;
  }

  recordId(slot: number): string {
    return this.recordIds[slot]!;
  }

  /** The update time, NaN when the record has none. */
  updated(slot: number): number {
    return this.updatedAt.get(slot);
  }

  /** The slot's term ids (a view: valid until the next add or remove). */
  termsOf(slot: number): Uint32Array {
    const start = this.termStart.get(slot);
    return this.pool.subarray(start, start + this.termCount.get(slot));
  }

  /**
   * Where the slot's term ids sit in {@link termPool}: [start, start + count). Loops over many
   * slots read them so, without a view object per slot for the young-generation collector.
   */
  termStartOf(slot: number): number {
    return this.termStart.get(slot);
  }

  termCountOf(slot: number): number {
    return this.termCount.get(slot);
  }

  /** The term ids of every slot (replaced when it grows: read it again after an add). */
  get termPool(): Uint32Array {
    return this.pool;
  }

  /** Slots are below this. */
  get slotLimit(): number {
    return this.next;
  }

  get size(): number {
    return this.live;
  }

  /** Served order: CVE id, then record id (bytewise on ASCII ids, as the database orders them). */
  readonly compare = (a: number, b: number): number => {
    const ca = this.cveIds[a]!;
    const cb = this.cveIds[b]!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    const ra = this.recordIds[a]!;
    const rb = this.recordIds[b]!;
    return ra < rb ? -1 : ra > rb ? 1 : 0;
  };

  get byteLength(): number {
    let strings = 0;
    for (let slot = 0; slot < this.next; slot++) {
      const cve = this.cveIds[slot] ?? '';
      const record = this.recordIds[slot] ?? '';
      strings += 16 + 24 + cve.length + (record === cve ? 0 : 24 + record.length);
    }
    return (
      this.rowIds.bytes +
      this.updatedAt.bytes +
      this.termStart.bytes +
      this.termCount.bytes +
      this.pool.byteLength +
      strings +
      this.free.length * 8
    );
  }

  /** Room for `needed` more term ids: compacts the pool when half of it is garbage, else grows it. */
  private growPool(needed: number): void {
    const liveIds = this.poolUsed - this.poolGarbage;
    const size = Math.max(this.pool.length, 2 * (liveIds + needed));
    const grown = new Uint32Array(this.poolGarbage > this.poolUsed / 2 ? size : Math.max(size, this.pool.length * 2));
    let used = 0;
    for (let slot = 0; slot < this.next; slot++) {
      const count = this.termCount.get(slot);
      if (count === 0) continue;
      const start = this.termStart.get(slot);
      grown.set(this.pool.subarray(start, start + count), used);
      this.termStart.set(slot, used);
      used += count;
    }
    this.pool = grown;
    this.poolUsed = used;
    this.poolGarbage = 0;
  }
}
