import { removeAll, RoaringBitmap32, type Bitmap } from './bitmap.js';
import { ScratchIds, uint32Column } from './columns.js';
import { byteTrigrams, NameArena, utf8 } from './name-arena.js';
import { RecentSearches } from './recent-searches.js';
import { Slicer } from './slices.js';
import type { SnapshotIn, SnapshotOut } from './snapshot/codec.js';
import { SnapshotCorrupt } from './snapshot/frames.js';

/**
 * Hostname substring and suffix search. Each distinct hostname gets a small id; a trigram index
 * (trigram of UTF-8 bytes, as a number → bitmap of hostname ids; byte containment is string
 * containment in UTF-8) narrows a query to the hostnames holding all its trigrams,
 * which are then checked exactly and mapped to their records. Most hostnames belong to one
 * record, so that mapping is a column, with a side table for shared names.
 */
export class HostnameIndex {
  /** The distinct hostnames by id (id 0 = none). */
  private readonly arena = new NameArena();
  private readonly freeIds: number[] = [];
  private readonly trigrams = new Map<number, Bitmap>();
  private readonly gramScratch: number[] = [];
  /** hostname id → its only record, or 0 when `shared` holds the records. */
  private readonly soleRecord = uint32Column();
  private readonly shared = new Map<number, Set<number>>();
  /** record id → hostname id (0 = none). */
  private readonly hostnameOfRecord = uint32Column();
  /** A broad search checks hundreds of thousands of names (tens of ms at 10M records): remembered. */
  private readonly recent = new RecentSearches(32);
  private readonly candidateScratch = new ScratchIds();
  private readonly recordScratch = new ScratchIds();
  /**
   * While a batch is open: trigram postings not yet written, one list of hostname ids per trigram,
   * and the hostname ids freed meanwhile (not handed out again until the postings are written).
   */
  private batch:
    | { adds: Map<number, number[]>; removes: Map<number, number[]>; freed: number[]; postings: number }
    | undefined;

  /**
   * Until endBatch, trigram postings are gathered and then written with one native call per
   * trigram: an index build adds millions, and a renamed record moves dozens (one call each cost
   * more than everything else its update did). Searches wait for endBatch.
   */
  beginBatch(): void {
    this.batch = { adds: new Map(), removes: new Map(), freed: [], postings: 0 };
  }

  endBatch(): void {
    this.writeBatch();
    this.batch = undefined;
  }

  /** Removals first; an id added and freed within the batch is not added at all. */
  private writeBatch(): void {
    const batch = this.batch;
    if (!batch) return;
    for (const [trigram, ids] of batch.removes) {
      const bitmap = this.trigrams.get(trigram);
      if (!bitmap) continue;
      removeAll(bitmap, ids);
      if (bitmap.isEmpty) this.trigrams.delete(trigram);
    }
    for (const [trigram, ids] of batch.adds) {
      const live = batch.freed.length === 0 ? ids : ids.filter((id) => this.arena.has(id));
      if (live.length === 0) continue;
      let bitmap = this.trigrams.get(trigram);
      if (!bitmap) {
        bitmap = new RoaringBitmap32();
        this.trigrams.set(trigram, bitmap);
      }
      if (live.length === 1) bitmap.add(live[0]!);
      else bitmap.addMany(live);
    }
    for (const id of batch.freed) this.freeIds.push(id);
    this.batch = { adds: new Map(), removes: new Map(), freed: [], postings: 0 };
  }

  /** Files hostname `id` under its trigrams, now or (in a batch) when the batch is written. */
  private postTrigrams(
    id: number,
    into: 'adds' | 'removes',
    now: (bitmap: Bitmap | undefined, trigram: number) => void,
  ): void {
    const grams = this.arena.trigramsOf(id, this.gramScratch);
    const batch = this.batch;
    if (!batch) {
      for (const trigram of grams) now(this.trigrams.get(trigram), trigram);
      return;
    }
    const lists = batch[into];
    for (const trigram of grams) {
      const ids = lists.get(trigram);
      if (ids) ids.push(id);
      else lists.set(trigram, [id]);
    }
    // Written every few million postings, so the buffers of an index build stay small.
    batch.postings += grams.length;
    if (batch.postings >= BATCH_FLUSH_POSTINGS) this.writeBatch();
  }

  add(recordId: number, hostname: string): void {
    if (!hostname) return;
    let id = this.arena.idOf(hostname);
    if (id === 0) {
      id = this.freeIds.pop() ?? this.arena.highestId + 1;
      this.arena.set(id, hostname);
      this.postTrigrams(id, 'adds', (bitmap, trigram) => {
        if (bitmap) bitmap.add(id);
        else this.trigrams.set(trigram, RoaringBitmap32.of(id));
      });
      this.soleRecord.set(id, recordId);
    } else {
      const sole = this.soleRecord.get(id);
      let records = this.shared.get(id);
      if (!records) {
        records = new Set(sole ? [sole] : []);
        this.shared.set(id, records);
      }
      records.add(recordId);
      this.soleRecord.set(id, 0);
    }
    this.hostnameOfRecord.set(recordId, id);
    for (const search of this.recent.values()) {
      if (this.nameMatches(id, search.needles, search.domains)) search.records.add(recordId);
    }
  }

  /** The ids of the records' hostnames (0 for none), in the order of `recordIds`. */
  hostnameIdsOf(recordIds: Uint32Array): Uint32Array {
    const column = this.hostnameOfRecord.values;
    const ids = new Uint32Array(recordIds.length);
    for (let i = 0; i < recordIds.length; i++) ids[i] = column[recordIds[i]!] ?? 0;
    return ids;
  }

  /** The hostname with this id. */
  hostnameById(id: number): string {
    return this.arena.nameOf(id);
  }

  /** Whether the record is filed under exactly this hostname ('' = none). */
  holds(recordId: number, hostname: string): boolean {
    const id = this.hostnameOfRecord.get(recordId);
    return id === 0 ? hostname === '' : hostname !== '' && this.arena.idOf(hostname) === id;
  }

  remove(recordId: number): void {
    this.removeMany([recordId]);
  }

  /** Takes the records off their hostnames; a hostname left without records leaves its trigrams. */
  removeMany(recordIds: readonly number[]): void {
    if (!this.batch && recordIds.length > 1) {
      this.beginBatch();
      this.removeMany(recordIds);
      this.endBatch();
      return;
    }
    const unfiled: number[] = [];
    for (const recordId of recordIds) {
      const id = this.hostnameOfRecord.get(recordId);
      if (id === 0) continue;
      this.hostnameOfRecord.set(recordId, 0);
      unfiled.push(recordId);
      if (!this.detach(id, recordId)) continue;
      this.postTrigrams(id, 'removes', (bitmap, trigram) => {
        if (!bitmap) return;
        bitmap.remove(id);
        if (bitmap.isEmpty) this.trigrams.delete(trigram);
      });
      this.arena.clear(id);
      this.soleRecord.set(id, 0);
      if (this.batch) this.batch.freed.push(id);
      else this.freeIds.push(id);
    }
    for (const search of this.recent.values()) removeAll(search.records, unfiled);
  }

  /** Takes one record off hostname `id`; true when no record is left on it. */
  private detach(id: number, recordId: number): boolean {
    const records = this.shared.get(id);
    if (!records) return true;
    records.delete(recordId);
    if (records.size > 1) return false;
    this.shared.delete(id);
    const [last] = records;
    if (last === undefined) return true;
    this.soleRecord.set(id, last);
    return false;
  }

  /**
   * Records whose hostname contains any of `substrings` (when given) and ends with any of
   * `domains` (when given: the domain itself or a subdomain). Inputs are lower-case.
   */
  search(substrings: string[] | undefined, domains: string[] | undefined): Bitmap {
    const key = JSON.stringify([substrings ?? null, domains ?? null]);
    const remembered = this.recent.get(key);
    if (remembered) return remembered.records.clone();
    const needles = substrings?.map(utf8);
    const domainBytes = domains?.map(utf8);
    const records = this.matchingRecords(substrings ?? domains!, needles, domainBytes);
    this.recent.remember(key, { needles, domains: domainBytes, records });
    return records.clone();
  }

  private matchingRecords(
    narrowing: string[],
    needles: Uint8Array[] | undefined,
    domainBytes: Uint8Array[] | undefined,
  ): Bitmap {
    // Every alternative of the narrowing parameter must be satisfied, so its trigrams narrow.
    const candidates = this.candidates(narrowing);
    const ids = candidates ? candidates.toUint32Array(this.candidateScratch.ofSize(candidates.size)) : this.allIds();
    const records = this.recordScratch.ofSize(ids.length);
    const sharedRecords: number[] = [];
    let found = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (!this.nameMatches(id, needles, domainBytes)) continue;
      const sole = this.soleRecord.get(id);
      if (sole) records[found++] = sole;
      else for (const record of this.shared.get(id) ?? []) sharedRecords.push(record);
    }
    // Hostname ids are handed out in record order while the index is built, so the records usually
    // come out sorted already; roaring takes sorted input several times faster.
    const collected = records.subarray(0, found);
    const result = RoaringBitmap32.from(isSorted(collected) ? collected : collected.sort());
    if (sharedRecords.length > 0) result.addMany(sharedRecords);
    return result;
  }

  /** Contains one of `needles` (when given) and lies within one of `domains` (when given). */
  private nameMatches(id: number, needles: Uint8Array[] | undefined, domains: Uint8Array[] | undefined): boolean {
    // Plain loops: a closure per candidate (Array.some) costs more than the byte comparison.
    const arena = this.arena;
    if (!arena.has(id)) return false;
    if (needles) {
      let contained = false;
      for (let i = 0; i < needles.length && !contained; i++) contained = arena.contains(id, needles[i]!);
      if (!contained) return false;
    }
    if (!domains) return true;
    for (let i = 0; i < domains.length; i++) if (arena.isWithinDomain(id, domains[i]!)) return true;
    return false;
  }

  private allIds(): Uint32Array {
    const ids = new Uint32Array(this.arena.highestId);
    for (let id = 1; id <= this.arena.highestId; id++) ids[id - 1] = id;
    return ids;
  }

  get size(): number {
    return this.arena.size;
  }

  bytes(): number {
    let total = 0;
    for (const bitmap of this.trigrams.values()) total += bitmap.getSerializationSizeInBytes(false);
    return total + this.arena.byteLength;
  }

  /** Writes everything but the remembered searches; `recordLimit` is above every record id. */
  async saveTo(out: SnapshotOut, recordLimit: number): Promise<void> {
    if (this.batch) throw new Error('a hostname index is saved between batches');
    await this.arena.saveTo(out);
    await out.array(Uint32Array.from(this.freeIds));
    await out.bitmaps(this.trigrams.size, this.trigrams);
    await this.soleRecord.saveTo(out, this.arena.highestId + 1);
    await this.hostnameOfRecord.saveTo(out, recordLimit);
    const shared: number[] = [];
    const slicer = new Slicer();
    for (const [id, records] of this.shared) {
      if (slicer.due()) await slicer.pause();
      shared.push(id, records.size);
      for (const record of records) shared.push(record);
    }
    await out.array(Uint32Array.from(shared));
  }

  /** Reads what saveTo wrote into this empty index. */
  async loadFrom(input: SnapshotIn): Promise<void> {
    await this.arena.loadFrom(input);
    for (const id of (await input.array((length) => new Uint32Array(length))).array) this.freeIds.push(id);
    await input.bitmaps((trigram, bitmap) => this.trigrams.set(trigram, bitmap));
    await this.soleRecord.loadFrom(input);
    await this.hostnameOfRecord.loadFrom(input);
    const { array: shared } = await input.array((length) => new Uint32Array(length));
    for (let at = 0; at < shared.length; ) {
      const id = shared[at]!;
      const count = shared[at + 1] ?? 0;
      if (at + 2 + count > shared.length) throw new SnapshotCorrupt('shared hostnames inconsistent');
      this.shared.set(id, new Set(shared.subarray(at + 2, at + 2 + count)));
      at += 2 + count;
    }
  }

  /** Hostname ids that may match any alternative; undefined when some alternative is too short to narrow. */
  private candidates(alternatives: string[]): Bitmap | undefined {
    const union = new RoaringBitmap32();
    for (const text of alternatives) {
      const bytes = utf8(text);
      const grams = byteTrigrams(bytes, 0, bytes.length, []);
      if (grams.length === 0) return undefined;
      const bitmaps = grams.map((g) => this.trigrams.get(g));
      if (bitmaps.some((b) => b === undefined)) continue;
      bitmaps.sort((a, b) => a!.size - b!.size);
      const hit = bitmaps[0]!.clone();
      for (let i = 1; i < bitmaps.length && !hit.isEmpty; i++) hit.andInPlace(bitmaps[i]!);
      union.orInPlace(hit);
    }
    return union;
  }
}

const BATCH_FLUSH_POSTINGS = 4_000_000;

function isSorted(values: Uint32Array): boolean {
  for (let i = 1; i < values.length; i++) if (values[i]! < values[i - 1]!) return false;
  return true;
}
