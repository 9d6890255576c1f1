import { RoaringBitmap32, type Bitmap } from './bitmap.js';
import { ScratchIds, uint32Column } from './columns.js';
import { byteTrigrams, NameArena, utf8 } from './name-arena.js';
import { RecentSearches } from './recent-searches.js';

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
  /** While bulk loading: hostname ids per trigram not yet in the bitmaps, and how many in all. */
  private pending: Map<number, number[]> | undefined;
  private pendingCount = 0;

  beginBulk(): void {
    this.pending = new Map();
  }

  endBulk(): void {
    this.flushPending();
    this.pending = undefined;
  }

  /** One native call per trigram and flush; flushed every few million so the buffers stay small. */
  private flushPending(): void {
    for (const [trigram, ids] of this.pending ?? []) {
      let bitmap = this.trigrams.get(trigram);
      if (!bitmap) this.trigrams.set(trigram, (bitmap = new RoaringBitmap32()));
      bitmap.addMany(ids);
    }
    if (this.pending) this.pending = new Map();
    this.pendingCount = 0;
  }

  add(recordId: number, hostname: string): void {
    if (!hostname) return;
    let id = this.arena.idOf(hostname);
    if (id === 0) {
      id = this.freeIds.pop() ?? this.arena.highestId + 1;
      this.arena.set(id, hostname);
      for (const trigram of this.arena.trigramsOf(id, this.gramScratch)) {
        if (this.pending) {
          let ids = this.pending.get(trigram);
          if (!ids) this.pending.set(trigram, (ids = []));
          ids.push(id);
          if (++this.pendingCount >= BULK_FLUSH_POSTINGS) this.flushPending();
          continue;
        }
        let bitmap = this.trigrams.get(trigram);
        if (!bitmap) this.trigrams.set(trigram, (bitmap = new RoaringBitmap32()));
        bitmap.add(id);
      }
      this.soleRecord.set(id, recordId);
    } else {
      const sole = this.soleRecord.get(id);
      let records = this.shared.get(id);
      if (!records) this.shared.set(id, (records = new Set(sole ? [sole] : [])));
      records.add(recordId);
      this.soleRecord.set(id, 0);
    }
    this.hostnameOfRecord.set(recordId, id);
    for (const search of this.recent.values()) {
      if (this.nameMatches(id, search.needles, search.domains)) search.records.add(recordId);
    }
  }

  /** Whether the record is filed under exactly this hostname ('' = none). */
  holds(recordId: number, hostname: string): boolean {
    const id = this.hostnameOfRecord.get(recordId);
    return id === 0 ? hostname === '' : hostname !== '' && this.arena.idOf(hostname) === id;
  }

  remove(recordId: number): void {
    const id = this.hostnameOfRecord.get(recordId);
    if (id === 0) return;
    this.hostnameOfRecord.set(recordId, 0);
    for (const search of this.recent.values()) search.records.remove(recordId);
    const records = this.shared.get(id);
    if (records) {
      records.delete(recordId);
      if (records.size > 1) return;
      this.shared.delete(id);
      const [last] = records;
      if (last !== undefined) {
        this.soleRecord.set(id, last);
        return;
      }
    }
    for (const trigram of this.arena.trigramsOf(id, this.gramScratch)) {
      const bitmap = this.trigrams.get(trigram);
      bitmap?.remove(id);
      if (bitmap?.isEmpty) this.trigrams.delete(trigram);
    }
    this.arena.clear(id);
    this.soleRecord.set(id, 0);
    this.freeIds.push(id);
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

  private matchingRecords(narrowing: string[], needles: Uint8Array[] | undefined, domainBytes: Uint8Array[] | undefined): Bitmap {
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

const BULK_FLUSH_POSTINGS = 4_000_000;

function isSorted(values: Uint32Array): boolean {
  for (let i = 1; i < values.length; i++) if (values[i]! < values[i - 1]!) return false;
  return true;
}
