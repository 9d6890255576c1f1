import { removeAll, RoaringBitmap32, type Bitmap } from './bitmap.js';
import type { BucketKind } from './bucket-kind.js';
import { yieldToLoop } from './slices.js';
import type { SnapshotIn, SnapshotOut } from './snapshot/codec.js';
import { SnapshotCorrupt } from './snapshot/frames.js';

/**
 * Term → bitmap of record ids. Terms are interned to small ids so a record's term list is a
 * compact array. Some terms belong to a numeric "family", one per bucket kind (hours, IP blocks,
 * ports: see bucket-kind.ts), whose keys can be walked in order — that is how broad result sets are
 * paged in sort order.
 */
export class Postings {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly bitmaps: (Bitmap | undefined)[] = [];
  /** Every posting list this holds or held (a query's own bitmaps are released after it, these never). */
  private readonly lists = new WeakSet<Bitmap>();
  private readonly families = new Map<BucketKind, BucketFamily>();
  /** While bulk loading: ids per term not yet added to the bitmaps, and how many in all. */
  private pending: Array<number[] | undefined> | undefined;
  private pendingCount = 0;

  private readonly familyIds = new Map<BucketKind, Map<number, number>>();

  /** The interned id of family term `<kind>#<key>`, without building its name when known. */
  familyTermId(kind: BucketKind, key: number): number {
    let ids = this.familyIds.get(kind);
    if (!ids) {
      ids = new Map();
      this.familyIds.set(kind, ids);
    }
    const known = ids.get(key);
    if (known !== undefined && this.bitmaps[known]) return known;
    const id = this.intern(familyTerm(kind, key));
    ids.set(key, id);
    return id;
  }

  /** The interned id of `name`, creating its (empty) posting list. */
  intern(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
      this.bitmaps.push(this.newList());
      const family = familyOf(name);
      if (family) this.family(family.kind).addKey(family.key);
    } else if (!this.bitmaps[id]) {
      this.bitmaps[id] = this.newList();
      const family = familyOf(name);
      if (family) this.family(family.kind).addKey(family.key);
    }
    return id;
  }

  private newList(): Bitmap {
    const bitmap = new RoaringBitmap32();
    this.lists.add(bitmap);
    return bitmap;
  }

  /** Whether the bitmap is (or was) one of the posting lists, which callers only read. */
  isList(bitmap: Bitmap): boolean {
    return this.lists.has(bitmap);
  }

  add(termId: number, recordId: number): void {
    // A term whose last record left is revived (callers may hold its id from a cache).
    if (!this.bitmaps[termId]) this.intern(this.names[termId]!);
    if (!this.pending) {
      this.bitmaps[termId]!.add(recordId);
      return;
    }
    const ids = this.pending[termId];
    if (ids) ids.push(recordId);
    else this.pending[termId] = [recordId];
    if (++this.pendingCount >= BULK_FLUSH_POSTINGS) this.flushPending();
  }

  /**
   * Bulk loading (index build): one native call per term and flush instead of one per posting.
   * Only adds may happen until endBulk.
   */
  beginBulk(): void {
    this.pending = [];
  }

  endBulk(): void {
    this.flushPending();
    this.pending = undefined;
    // Ids arrive in order, so many containers are runs: smaller, and faster to copy and combine.
    for (const bitmap of this.bitmaps) bitmap?.runOptimize();
  }

  /**
   * Buffered postings go into their bitmaps every few million: holding all of them until the end
   * of a 10M-record build took gigabytes of JavaScript arrays (8 bytes a posting, plus the copies
   * made while they grew), memory the process kept long after the build.
   */
  private flushPending(): void {
    const pending = this.pending;
    if (!pending) return;
    pending.forEach((ids, termId) => {
      if (ids) this.bitmaps[termId]!.addMany(ids);
    });
    this.pending = [];
    this.pendingCount = 0;
  }

  /** Removes the record from the term; returns true when the term has no records left. */
  remove(termId: number, recordId: number): boolean {
    const bitmap = this.bitmaps[termId];
    if (!bitmap) return false;
    bitmap.remove(recordId);
    return this.dropIfEmpty(termId, bitmap);
  }

  /** Removes the records from the term in one native call; returns true when the term has no records left. */
  removeMany(termId: number, recordIds: readonly number[]): boolean {
    const bitmap = this.bitmaps[termId];
    if (!bitmap) return false;
    removeAll(bitmap, recordIds);
    return this.dropIfEmpty(termId, bitmap);
  }

  private dropIfEmpty(termId: number, bitmap: Bitmap): boolean {
    if (!bitmap.isEmpty) return false;
    this.bitmaps[termId] = undefined;
    const family = familyOf(this.names[termId]!);
    if (family) this.family(family.kind).removeKey(family.key);
    return true;
  }

  /** Whether some record holds the term. */
  isLive(termId: number): boolean {
    return this.bitmaps[termId] !== undefined;
  }

  /** No term id reaches this. */
  get termLimit(): number {
    return this.names.length;
  }

  /** Whether the id was ever handed out. */
  hasTerm(termId: number): boolean {
    return termId < this.names.length;
  }

  nameOf(termId: number): string {
    return this.names[termId]!;
  }

  get(name: string): Bitmap | undefined {
    const id = this.ids.get(name);
    return id === undefined ? undefined : this.bitmaps[id];
  }

  family(kind: BucketKind): BucketFamily {
    let family = this.families.get(kind);
    if (!family) {
      family = new BucketFamily(kind, this);
      this.families.set(kind, family);
    }
    return family;
  }

  /** Every term name (ids are positions, kept as they are) and the bitmaps of the live ones. */
  async saveTo(out: SnapshotOut): Promise<void> {
    if (this.pending) throw new Error('postings are saved outside bulk loading');
    await out.strings(this.names);
    let live = 0;
    for (const bitmap of this.bitmaps) if (bitmap) live++;
    await out.bitmaps(live, this.liveEntries());
  }

  private *liveEntries(): Iterable<[number, Bitmap]> {
    for (let id = 0; id < this.bitmaps.length; id++) {
      const bitmap = this.bitmaps[id];
      if (bitmap) yield [id, bitmap];
    }
  }

  /** Reads what saveTo wrote into these empty postings. */
  async loadFrom(input: SnapshotIn): Promise<void> {
    const names = await input.strings();
    for (const name of names) {
      if (this.ids.has(name)) throw new SnapshotCorrupt('a term name repeats');
      this.ids.set(name, this.names.length);
      this.names.push(name);
      this.bitmaps.push(undefined);
    }
    await input.bitmaps((id, bitmap) => {
      if (id >= names.length || this.bitmaps[id]) throw new SnapshotCorrupt('a bitmap of no term');
      this.bitmaps[id] = bitmap;
      this.lists.add(bitmap);
      const family = familyOf(names[id]!);
      if (family) this.family(family.kind).addKey(family.key);
    });
  }

  /** Memory held by the bitmaps (serialised size, a close proxy). */
  bitmapBytes(): number {
    return this.bitmapBytesOf(0, this.bitmaps.length);
  }

  /**
   * bitmapBytes() a slice of terms at a time, letting other work run between slices: one native
   * call per term, and a 10M-record index has hundreds of thousands of terms.
   */
  async bitmapBytesYielding(slice = 20_000): Promise<number> {
    let total = 0;
    for (let start = 0; start < this.bitmaps.length; start += slice) {
      total += this.bitmapBytesOf(start, Math.min(this.bitmaps.length, start + slice));
      await yieldToLoop();
    }
    return total;
  }

  private bitmapBytesOf(from: number, to: number): number {
    let total = 0;
    for (let i = from; i < to; i++) total += this.bitmaps[i]?.getSerializationSizeInBytes(false) ?? 0;
    return total;
  }
}

const BULK_FLUSH_POSTINGS = 4_000_000;

/** Family terms are named `<kind>#<integer key>`. */
export const familyTerm = (kind: BucketKind, key: number) => `${kind}#${key}`;

function familyOf(name: string): { kind: BucketKind; key: number } | undefined {
  const hash = name.indexOf('#');
  return hash < 0 ? undefined : { kind: name.slice(0, hash) as BucketKind, key: Number(name.slice(hash + 1)) };
}

export class BucketFamily {
  private readonly keys = new Set<number>();
  private sorted: number[] | undefined = [];

  constructor(
    private readonly kind: BucketKind,
    private readonly postings: Postings,
  ) {}

  addKey(key: number): void {
    if (!this.keys.has(key)) {
      this.keys.add(key);
      this.sorted = undefined;
    }
  }

  removeKey(key: number): void {
    if (this.keys.delete(key)) this.sorted = undefined;
  }

  /** Keys present, ascending. */
  sortedKeys(): number[] {
    if (!this.sorted) this.sorted = [...this.keys].sort((a, b) => a - b);
    return this.sorted;
  }

  bucket(key: number): Bitmap | undefined {
    return this.postings.get(familyTerm(this.kind, key));
  }

  /** Keys in [from, to] (inclusive), ascending. */
  keysBetween(from: number, to: number): number[] {
    const keys = this.sortedKeys();
    const result: number[] = [];
    for (let i = lowerBound(keys, from); i < keys.length && keys[i]! <= to; i++) result.push(keys[i]!);
    return result;
  }
}

export function lowerBound(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
