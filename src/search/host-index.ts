import { productKeyOf } from '../core/applicability/index-keys.js';
import { cpeMatches } from '../core/cpe.js';
import { dottedQuadValue, parseIp, type IpRange } from '../core/ip.js';
import type { IndexEntry } from '../core/host-record.js';
import { intersectAll, RoaringBitmap32, uniteOwned, unionAll, type Bitmap } from './bitmap.js';
import { float64Column, uint16Column, uint32Column, uint8Column, type GrowableColumn } from './columns.js';
import type { HostQuery, PageRequest, PageResult, SortPosition, TimeRange } from './host-query.js';
import { selectPage, type SortColumns } from './page.js';
import { HostnameIndex } from './hostname-index.js';
import { Intersection } from './intersection.js';
import { IdentityCatalog } from './identities.js';
import { BucketKind } from './bucket-kind.js';
import { familyTerm, Postings } from './postings.js';
import { ProductTerms } from './product-terms.js';
import { RecordTerms } from './record-terms.js';
import { TermGroups } from './term-groups.js';
import { countFacets } from './facets/count-facets.js';
import { FacetTerms } from './facets/facet-terms.js';
import { GroupFacetValues } from './facets/group-values.js';
import { Slice, SliceCounts, type SliceMember } from './facets/slice-counts.js';
import type { FacetRequest, FacetResult } from './facets/fields.js';
import type { SnapshotIn, SnapshotOut } from './snapshot/codec.js';
import { SnapshotCorrupt } from './snapshot/frames.js';

export const HOUR_MS = 3_600_000;
/** IPv6 addresses per snapshot chunk (a few ms of BigInt arithmetic). */
const IPV6_CHUNK = 20_000;

/**
 * The live records of one classification type by product: `ids[i]` holds those classified
 * `type:products[i]`; `products[0]` is '' and `ids[0]` holds those with no product of the type.
 */
export interface ClassifiedGroups {
  products: string[];
  ids: Uint32Array[];
}

/**
 * In-memory index of the target-intel records: compressed bitmaps of record ids per term (cve,
 * vendor, product, version, fingerprint identity, classification, asn, country, protocol, port,
 * hostname), per hour of observation and of first addition, and per IP block; plus the per-record
 * columns needed to sort and to check range edges exactly. Filters and exact counts are bitmap
 * algebra; the database remains the source of truth and serves the records themselves.
 */
export class HostIndex {
  private readonly postings = new Postings();
  private live = new RoaringBitmap32();
  private readonly observedAt = float64Column();
  private readonly dateAdded = float64Column();
  private readonly ipv4 = uint32Column();
  private readonly ipIsV6 = uint8Column();
  private readonly ipv6 = new Map<number, bigint>();
  private readonly port = uint16Column();
  private readonly changeSeq = float64Column();
  /** Each record's list terms and place terms as shared groups; its family terms follow from the columns. */
  private readonly termGroups = new TermGroups();
  private readonly listGroup = uint32Column();
  private readonly placeGroup = uint32Column();
  private readonly identities = new IdentityCatalog();
  private readonly recordTerms = new RecordTerms(this.postings, this.identities);
  private readonly hostnames = new HostnameIndex();
  private readonly facetTerms = new FacetTerms(this.postings);
  private readonly groupFacetValues = new GroupFacetValues(this.termGroups, this.facetTerms);
  private readonly sliceCounts = new SliceCounts(this.groupFacetValues, this.facetTerms);
  private readonly familyScratch: number[] = [];
  private readonly previousFamilyScratch: number[] = [];
  /** While bulk loading: ids to add to `live` in one call. */
  private pendingLive: number[] | undefined;
  /** Recent changes (seq, id), oldest first, to exclude records changed during a cursor walk. */
  private readonly recentSeqs: number[] = [];
  private readonly recentIds: number[] = [];
  private static readonly RECENT_LIMIT = 1_000_000;
  /** Per classification type, its product terms (the C2 lists read them on every request). */
  private readonly productTerms = new Map<string, ProductTerms>();

  get size(): number {
    return this.live.size;
  }

  /** Adds or replaces a record; `seq` is the change-log sequence number that produced this state. */
  upsert(entry: IndexEntry, seq: number): void {
    const id = entry.id;
    const lists = this.termGroups.acquire(this.recordTerms.listTerms(entry));
    const place = this.termGroups.acquire(this.recordTerms.placeTerms(entry));
    const hostname = entry.hostname.toLowerCase();
    if (!this.pendingLive && this.live.has(id)) {
      const counted = this.sliceMemberOf(id);
      const moves = counted.listGroup !== lists || counted.placeGroup !== place || counted.port !== entry.port;
      // Counted out while its groups are still held: a group no record holds may be reused at once.
      if (moves) this.sliceCounts.apply(counted, -1);
      // An update mostly moves the observation hour: only the postings that differ are touched.
      this.moveGroup(this.listGroup, id, lists);
      this.moveGroup(this.placeGroup, id, place);
      const before = this.familyTermsOf(id, this.previousFamilyScratch);
      this.setColumns(id, entry);
      this.repost(id, before, this.familyTermsOf(id));
      if (!this.hostnames.holds(id, hostname)) {
        this.hostnames.remove(id);
        this.hostnames.add(id, hostname);
      }
      if (moves) this.sliceCounts.apply(this.sliceMemberOf(id), 1);
    } else {
      if (this.pendingLive) this.pendingLive.push(id);
      else this.live.add(id);
      for (const termId of this.termGroups.termsOf(lists)) this.postings.add(termId, id);
      for (const termId of this.termGroups.termsOf(place)) this.postings.add(termId, id);
      this.listGroup.set(id, lists);
      this.placeGroup.set(id, place);
      this.setColumns(id, entry);
      for (const termId of this.familyTermsOf(id)) this.postings.add(termId, id);
      this.hostnames.add(id, hostname);
      // A bulk load counts every record at its end.
      if (!this.pendingLive) this.sliceCounts.apply(this.sliceMemberOf(id), 1);
    }
    this.noteChange(id, seq);
  }

  private async rebuildSliceCounts(): Promise<void> {
    const columns = { listGroup: this.listGroup, placeGroup: this.placeGroup, port: this.port };
    await this.sliceCounts.rebuild(this.live, columns, this.termGroups.idLimit);
  }

  private sliceMemberOf(id: number): SliceMember {
    return { listGroup: this.listGroup.get(id), placeGroup: this.placeGroup.get(id), port: this.port.get(id) };
  }

  /**
   * A record observed again with nothing else changed: only its observation time (and hour
   * posting) moves. Returns false, changing nothing, when the index does not hold the record.
   */
  retime(id: number, observedAt: number, seq: number): boolean {
    if (this.pendingLive || !this.live.has(id)) return false;
    // Only the observation hour's posting can differ (a continuous scan sends most records through here).
    const before = Math.floor(this.observedAt.get(id) / HOUR_MS);
    const after = Math.floor(observedAt / HOUR_MS);
    this.observedAt.set(id, observedAt);
    if (before !== after) {
      this.unpost(this.postings.familyTermId(BucketKind.ObservedHour, before), id);
      this.postings.add(this.postings.familyTermId(BucketKind.ObservedHour, after), id);
    }
    this.noteChange(id, seq);
    return true;
  }

  private setColumns(id: number, entry: IndexEntry): void {
    const ipv4 = dottedQuadValue(entry.ip);
    if (ipv4 !== undefined) {
      this.ipIsV6.set(id, 0);
      this.ipv4.set(id, ipv4);
      this.ipv6.delete(id);
    } else {
      this.ipIsV6.set(id, 1);
      this.ipv6.set(id, parseIp(entry.ip).value);
    }
    this.observedAt.set(id, entry.observedAt);
    this.dateAdded.set(id, entry.dateAdded);
    this.port.set(id, entry.port);
  }

  /** Points the record at group `next` (already acquired for it), posting only the terms that differ. */
  private moveGroup(column: GrowableColumn<Uint32Array>, id: number, next: number): void {
    const previous = column.get(id);
    if (previous !== next) {
      this.repost(id, this.termGroups.termsOf(previous), this.termGroups.termsOf(next));
      column.set(id, next);
    }
    this.termGroups.release(previous);
  }

  /** Moves the record from the terms `before` to the terms `after`, leaving the ones they share. */
  private repost(id: number, before: Uint32Array | number[], after: Uint32Array | number[]): void {
    for (const termId of before) if (!after.includes(termId)) this.unpost(termId, id);
    for (const termId of after) if (!before.includes(termId)) this.postings.add(termId, id);
  }

  /** Bulk loading (index build): only upserts of new records until endBulk. */
  beginBulk(): void {
    this.postings.beginBulk();
    this.hostnames.beginBatch();
    this.pendingLive = [];
  }

  async endBulk(): Promise<void> {
    this.postings.endBulk();
    this.hostnames.endBatch();
    if (this.pendingLive) this.live.addMany(this.pendingLive);
    this.pendingLive = undefined;
    await this.rebuildSliceCounts();
  }

  /**
   * A batch of changes (applying the change log): until endBatch, hostname postings are gathered
   * and written per trigram. The index must not be queried meanwhile.
   */
  beginBatch(): void {
    this.hostnames.beginBatch();
  }

  endBatch(): void {
    this.hostnames.endBatch();
  }

  remove(id: number, seq: number): void {
    this.removeMany([id], [seq]);
  }

  /**
   * Removes records (`seqs[i]` produced the removal of `ids[i]`). Postings are gathered per term
   * and each term touched is updated in one native call: expiry removes hundreds of thousands of
   * records, each filed under dozens of terms, and a native call per posting dominated the cost.
   */
  removeMany(ids: readonly number[], seqs: readonly number[]): void {
    const removed: number[] = [];
    const idsByTerm = new Map<number, number[]>();
    const file = (termId: number, id: number) => {
      const termIds = idsByTerm.get(termId);
      if (termIds) termIds.push(id);
      else idsByTerm.set(termId, [id]);
    };
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (!this.live.delete(id)) continue;
      const listGroup = this.listGroup.get(id);
      const placeGroup = this.placeGroup.get(id);
      this.sliceCounts.apply({ listGroup, placeGroup, port: this.port.get(id) }, -1);
      for (const termId of this.termGroups.termsOf(listGroup)) file(termId, id);
      for (const termId of this.termGroups.termsOf(placeGroup)) file(termId, id);
      for (const termId of this.familyTermsOf(id)) file(termId, id);
      this.termGroups.release(listGroup);
      this.termGroups.release(placeGroup);
      this.listGroup.set(id, 0);
      this.placeGroup.set(id, 0);
      this.ipv6.delete(id);
      this.noteChange(id, seqs[i]!);
      removed.push(id);
    }
    if (removed.length === 0) return;
    this.hostnames.removeMany(removed);
    for (const [termId, termIds] of idsByTerm) {
      if (this.postings.removeMany(termId, termIds)) this.forgetTerm(termId);
    }
  }

  /**
   * Record ids matching the query. Read only: it may be one of the index's own posting lists, valid
   * until the index next changes.
   */
  evaluate(query: HostQuery): Bitmap {
    const parts = this.filters(query);
    if (parts.length === 0) return this.live;
    const result = intersectAll(parts);
    if (parts.length > 1) for (const part of parts) this.release(part);
    return result;
  }

  /** One bitmap per filter of the query (read only; none: every record), to be intersected. */
  private filters(query: HostQuery): Bitmap[] {
    const parts: Bitmap[] = [];
    const empty = () => new RoaringBitmap32();
    const term = (name: string) => this.postings.get(name) ?? empty();

    if (query.id !== undefined) parts.push(this.live.has(query.id) ? RoaringBitmap32.of(query.id) : empty());
    if (query.cve) parts.push(term(`cve:${query.cve.toUpperCase()}`));
    if (query.asn) parts.push(term(`asn:${query.asn.toUpperCase()}`));
    if (query.countryCode) parts.push(term(`cc:${query.countryCode.toUpperCase()}`));
    if (query.country) parts.push(term(`cn:${query.country.toLowerCase()}`));
    if (query.protocol) parts.push(term(`proto:${query.protocol.toLowerCase()}`));
    if (query.port !== undefined) parts.push(term(familyTerm(BucketKind.Port, query.port)));
    if (query.containsCve !== undefined) parts.push(this.flagged('hascve', query.containsCve));
    if (query.confirmed !== undefined) parts.push(this.flagged('confirmed', query.confirmed));
    if (query.classifications?.length) parts.push(this.classified(query.classifications));
    const fingerprint = this.fingerprintFilter(query);
    if (fingerprint) parts.push(fingerprint);
    if (query.hostnameContains?.length || query.domains?.length) parts.push(this.hostnameFilter(query));
    if (query.cidr) parts.push(this.cidrFilter(query.cidr));
    for (const range of query.dateAdded) parts.push(this.timeFilter(BucketKind.AddedHour, this.dateAdded, range));
    for (const range of query.observed) parts.push(this.timeFilter(BucketKind.ObservedHour, this.observedAt, range));
    return parts;
  }

  /**
   * Frees a bitmap made for one query at once. Roaring reports its native memory to V8, and a
   * server dropping megabytes of it per query was set off into a full garbage collection of its
   * heap every few dozen queries (a third of a broad query's time at 10M records).
   */
  private release(bitmap: Bitmap): void {
    if (bitmap !== this.live && !this.postings.isList(bitmap)) bitmap.clear();
  }

  /** Ids of the records observed before `before`, ascending (the expiry sweep's candidates). */
  /**
   * The records with a fingerprint whose CPE names a product `accepts` (`part:vendor:product` as
   * knowledge keys it): what a knowledge change can alter, found without reading other records.
   */
  idsNamingProducts(accepts: (productKey: string) => boolean): number[] {
    const matching: Bitmap[] = [];
    for (const [key, identity] of this.identities.entries()) {
      if (!identity.cpe) continue;
      identity.productKey ??= productKeyOf(identity.cpe);
      if (!accepts(identity.productKey)) continue;
      const bitmap = this.postings.get(`fp:${key}`);
      if (bitmap) matching.push(bitmap);
    }
    return matching.length === 0 ? [] : unionAll(matching).toArray();
  }

  idsObservedBefore(before: number): number[] {
    return Array.from(this.timeFilter(BucketKind.ObservedHour, this.observedAt, { to: before }).toUint32Array());
  }

  /**
   * Up to `limit` ids of matching records above `afterId`, ascending: an export walks by id, since
   * a record keeps its id for life, so every record present throughout a walk is met exactly once.
   */
  idsAbove(query: HostQuery, afterId: number, limit: number): number[] {
    const parts = this.filters(query);
    const matching = new Intersection(parts.length > 0 ? parts : [this.live]);
    try {
      const all = matching.all();
      return Array.from(all.rangeUint32Array(afterId < 0 ? 0 : all.rank(afterId), limit));
    } finally {
      matching.free();
      for (const part of parts) this.release(part);
    }
  }

  /** Exact total and one page of ids in sort order. */
  page(query: HostQuery, request: PageRequest): PageResult {
    const parts = this.filters(query);
    const matching = new Intersection(parts.length > 0 ? parts : [this.live]);
    let candidates = matching;
    try {
      if (request.snapshotSeq !== undefined) {
        const changed = this.changedSince(request.snapshotSeq, () => matching.all());
        if (!changed.isEmpty) candidates = Intersection.ofOwned(RoaringBitmap32.andNot(matching.all(), changed));
        changed.clear();
      }
      return selectPage(candidates, request, this.sortColumns());
    } finally {
      if (candidates !== matching) candidates.free();
      matching.free();
      for (const part of parts) this.release(part);
    }
  }

  /**
   * Exact counts of the values of each requested field over the records matching the query (see
   * facets/). The work is sliced, and the index must not change until the promise settles.
   */
  async facets(query: HostQuery, requests: FacetRequest[]): Promise<FacetResult> {
    const parts = this.filters(query);
    const slice =
      parts.length === 0 ? Slice.All : parts.length === 1 && query.containsCve === true ? Slice.WithCve : undefined;
    if (slice !== undefined && SliceCounts.answers(requests)) {
      for (const part of parts) this.release(part);
      return this.sliceCounts.facets(slice, requests);
    }
    const matching = new Intersection(parts.length > 0 ? parts : [this.live]);
    try {
      return await countFacets(
        {
          termGroups: this.termGroups,
          listGroup: this.listGroup,
          placeGroup: this.placeGroup,
          terms: this.facetTerms,
          values: this.groupFacetValues,
          termLimit: this.postings.termLimit,
          postings: this.postings,
          port: this.port,
          dateAdded: this.dateAdded,
          observedAt: this.observedAt,
        },
        matching.all(),
        requests,
      );
    } finally {
      matching.free();
      for (const part of parts) this.release(part);
    }
  }

  /**
   * Writes the index (not its record of recent changes: a cursor older than the snapshot is
   * checked against the change-sequence column instead). The index must not change meanwhile.
   */
  async saveTo(out: SnapshotOut): Promise<void> {
    if (this.pendingLive) throw new Error('an index is saved outside bulk loading');
    const limit = this.live.isEmpty ? 0 : this.live.maximum() + 1;
    await out.numbers([limit]);
    await out.bitmaps(1, [[0, this.live]]);
    for (const column of this.columns()) await column.saveTo(out, limit);
    await this.saveIpv6(out);
    await this.postings.saveTo(out);
    await this.termGroups.saveTo(out);
    await this.hostnames.saveTo(out, limit);
  }

  /** Reads what saveTo wrote into this empty index. */
  async loadFrom(input: SnapshotIn): Promise<void> {
    await input.number();
    await input.bitmaps((_, live) => (this.live = live));
    for (const column of this.columns()) await column.loadFrom(input);
    await this.loadIpv6(input);
    await this.postings.loadFrom(input);
    await this.termGroups.loadFrom(input);
    await this.hostnames.loadFrom(input);
    for (let termId = 0; this.postings.hasTerm(termId); termId++) {
      const name = this.postings.nameOf(termId);
      if (name.startsWith('fp:') && this.postings.isLive(termId)) this.recordTerms.restoreIdentity(name.slice(3));
    }
    this.recordTerms.numberListsAbove(this.termGroups.highestKeyNumber);
    await this.rebuildSliceCounts();
  }

  /** The IPv6 addresses as (id, four 32-bit words), in chunks: BigInt arithmetic is slow enough to slice. */
  private async saveIpv6(out: SnapshotOut): Promise<void> {
    const chunks = Math.ceil(this.ipv6.size / IPV6_CHUNK);
    await out.numbers([chunks]);
    const entries = this.ipv6.entries();
    for (let chunk = 0; chunk < chunks; chunk++) {
      const words = new Uint32Array(Math.min(IPV6_CHUNK, this.ipv6.size - chunk * IPV6_CHUNK) * 5);
      for (let at = 0; at < words.length; ) {
        const [id, value] = entries.next().value!;
        words[at++] = id;
        for (let shift = 96n; shift >= 0n; shift -= 32n) words[at++] = Number((value >> shift) & 0xffffffffn);
      }
      await out.array(words);
    }
  }

  private async loadIpv6(input: SnapshotIn): Promise<void> {
    const chunks = await input.number();
    for (let chunk = 0; chunk < chunks; chunk++) {
      const { array: words } = await input.array((length) => new Uint32Array(length));
      if (words.length % 5 !== 0) throw new SnapshotCorrupt('IPv6 column of a wrong size');
      for (let at = 0; at < words.length; at += 5) {
        let value = 0n;
        for (let word = 1; word <= 4; word++) value = (value << 32n) | BigInt(words[at + word]!);
        this.ipv6.set(words[at]!, value);
      }
    }
  }

  /** The per-record columns, in the order a snapshot holds them. */
  private columns(): GrowableColumn<Float64Array | Uint32Array | Uint16Array | Uint8Array>[] {
    return [
      this.observedAt,
      this.dateAdded,
      this.ipv4,
      this.ipIsV6,
      this.port,
      this.changeSeq,
      this.listGroup,
      this.placeGroup,
    ];
  }

  /** Sort key of a record (for cursors). */
  positionOf(id: number, sort: PageRequest['sort']): SortPosition {
    return { key: this.sortColumns().keyOf(id, sort), id };
  }

  memoryBytes(): number {
    return this.postings.bitmapBytes() + this.columnBytes();
  }

  /** memoryBytes() measured a slice at a time, so a serving process is not held up by it. */
  async memoryBytesYielding(): Promise<number> {
    return (await this.postings.bitmapBytesYielding()) + this.columnBytes();
  }

  /** Everything but the bitmaps: hostnames, term groups, facet counts, columns. */
  private columnBytes(): number {
    return (
      this.hostnames.bytes() +
      this.termGroups.bytes +
      this.groupFacetValues.bytes +
      this.sliceCounts.bytes +
      this.listGroup.bytes +
      this.placeGroup.bytes +
      this.observedAt.bytes +
      this.dateAdded.bytes +
      this.ipv4.bytes +
      this.ipIsV6.bytes +
      this.port.bytes +
      this.changeSeq.bytes
    );
  }

  /**
   * The records classified `type` (bare or with a product) and observed at or after `since`, by
   * product; a record under several products is in each of their groups.
   */
  classifiedSince(type: string, since: number): ClassifiedGroups {
    const all = this.postings.get(`clt:${type}`);
    if (!all) return { products: [''], ids: [new Uint32Array(0)] };
    // Records past the window are few (the sweeper removes them): subtracting them beats uniting the hours inside it.
    const expired =
      since > -Infinity ? this.timeFilter(BucketKind.ObservedHour, this.observedAt, { to: since }) : undefined;
    const current = expired && !expired.isEmpty ? RoaringBitmap32.andNot(all, expired) : all;
    if (expired) this.release(expired);
    let terms = this.productTerms.get(type);
    if (!terms) {
      terms = new ProductTerms(type);
      this.productTerms.set(type, terms);
    }
    const products = [''];
    const ids: Uint32Array[] = [];
    const named: Bitmap[] = [];
    for (const { product, name } of terms.of(this.postings)) {
      const bitmap = this.postings.get(name);
      if (!bitmap) continue;
      const inWindow = RoaringBitmap32.and(bitmap, current);
      if (!inWindow.isEmpty) {
        products.push(product);
        ids.push(inWindow.toUint32Array());
      }
      this.release(inWindow);
      named.push(bitmap);
    }
    const withProduct = unionAll(named);
    const bare = RoaringBitmap32.andNot(current, withProduct);
    ids.unshift(bare.toUint32Array());
    for (const bitmap of [bare, withProduct, current]) this.release(bitmap);
    return { products, ids };
  }

  /** The records' IPv4 addresses as numbers, in the order of `ids`; -1 for an IPv6 record (see ipv6Of). */
  ipv4Of(ids: Uint32Array): Float64Array {
    // The columns' raw arrays: a column's get() is shared by columns of every array type, and slow in a loop.
    const isV6 = this.ipIsV6.values;
    const ipv4 = this.ipv4.values;
    const addresses = new Float64Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      addresses[i] = isV6[id] === 1 ? -1 : (ipv4[id] ?? 0);
    }
    return addresses;
  }

  /** The earliest observation time of the records (Infinity for none). */
  oldestObservedAt(ids: Uint32Array): number {
    const observedAt = this.observedAt.values;
    let oldest = Infinity;
    for (let i = 0; i < ids.length; i++) oldest = Math.min(oldest, observedAt[ids[i]!] ?? 0);
    return oldest;
  }

  ipv6Of(id: number): bigint | undefined {
    return this.ipv6.get(id);
  }

  /** The ids of the records' hostnames (one per distinct hostname; 0 for none), in the order of `ids`. */
  hostnameIdsOf(ids: Uint32Array): Uint32Array {
    return this.hostnames.hostnameIdsOf(ids);
  }

  hostnameById(hostnameId: number): string {
    return this.hostnames.hostnameById(hostnameId);
  }

  /** Records filed under a flag term (`hascve`, `confirmed`), or with `false` those that are not. */
  private flagged(name: string, flag: boolean): Bitmap {
    const withFlag = this.postings.get(name) ?? new RoaringBitmap32();
    return flag ? withFlag : RoaringBitmap32.andNot(this.live, withFlag);
  }

  private classified(values: string[]): Bitmap {
    return unionAll(
      values
        .map((value) => this.postings.get(value.includes(':') ? `cls:${value}` : `clt:${value}`))
        .filter((bitmap): bitmap is Bitmap => bitmap !== undefined),
    );
  }

  /**
   * vendor, product, version and cpe must all hold for one and the same fingerprint, so a
   * combination is answered from the distinct fingerprint identities, each with its bitmap.
   */
  private fingerprintFilter(query: HostQuery): Bitmap | undefined {
    const { renamedAs, ...named } = query;
    const own = this.identityFilter(named);
    if (!renamedAs?.length || own === undefined) return own;
    return unionAll([
      own,
      // Both vendor and product are given, so each filter is defined.
      ...renamedAs.map(({ vendor, product }) => this.identityFilter({ ...named, vendor, product })!),
    ]);
  }

  private identityFilter(query: HostQuery): Bitmap | undefined {
    const { vendor, product, version, cpe } = query;
    const given = [vendor, product, version, cpe].filter((value) => value !== undefined).length;
    if (given === 0) return undefined;
    if (given === 1 && !cpe) {
      const name = vendor !== undefined ? `v:${vendor}` : product !== undefined ? `p:${product}` : `ver:${version}`;
      return this.postings.get(name.toLowerCase()) ?? new RoaringBitmap32();
    }
    const lower = (value: string | undefined) => value?.toLowerCase();
    const [v, p, ver] = [lower(vendor), lower(product), lower(version)];
    const matching: Bitmap[] = [];
    for (const [key, identity] of this.identities.candidates({ vendor: v, product: p, version: ver })) {
      if (v !== undefined && identity.vendor !== v) continue;
      if (p !== undefined && identity.product !== p) continue;
      if (ver !== undefined && identity.version !== ver) continue;
      if (cpe && (!identity.cpe || !cpeMatches(cpe, identity.cpe))) continue;
      const bitmap = this.postings.get(`fp:${key}`);
      if (bitmap) matching.push(bitmap);
    }
    return unionAll(matching);
  }

  private hostnameFilter(query: HostQuery): Bitmap {
    const substrings = query.hostnameContains?.map((s) => s.toLowerCase());
    const domains = query.domains?.map((d) => d.toLowerCase().replace(/^\.+/, ''));
    return this.hostnames.search(substrings, domains);
  }

  private cidrFilter(range: IpRange): Bitmap {
    if (range.version === 4) return this.ipv4RangeFilter(Number(range.first), Number(range.last));
    const family = this.postings.family(BucketKind.Ipv6Slash48);
    const result = new RoaringBitmap32();
    const firstBlock = Number(range.first >> 80n);
    const lastBlock = Number(range.last >> 80n);
    for (const block of family.keysBetween(firstBlock, lastBlock)) {
      for (const id of family.bucket(block)!) {
        const value = this.ipv6.get(id)!;
        if (value >= range.first && value <= range.last) result.add(id);
      }
    }
    return result;
  }

  /**
   * IPv4 records in [first, last]: whole /16 blocks from the /16 buckets, the rest from whole /24
   * blocks, and the edge /24 blocks checked against the address column. Whole blocks are united
   * in one call, and a /16 bitmap spares uniting its 256 /24 bitmaps.
   */
  private ipv4RangeFilter(first: number, last: number): Bitmap {
    const whole: Bitmap[] = [];
    const result = new RoaringBitmap32();
    const blocks16 = this.postings.family(BucketKind.Ipv4Slash16);
    const blocks24 = this.postings.family(BucketKind.Ipv4Slash24);
    for (const block16 of blocks16.keysBetween(Math.floor(first / 65536), Math.floor(last / 65536))) {
      const start = block16 * 65536;
      if (start >= first && start + 65535 <= last) {
        whole.push(blocks16.bucket(block16)!);
        continue;
      }
      const from = Math.max(first, start);
      const to = Math.min(last, start + 65535);
      for (const block of blocks24.keysBetween(Math.floor(from / 256), Math.floor(to / 256))) {
        const bucket = blocks24.bucket(block)!;
        if (block * 256 >= from && block * 256 + 255 <= to) whole.push(bucket);
        else for (const id of bucket) if (this.ipv4.get(id) >= from && this.ipv4.get(id) <= to) result.add(id);
      }
    }
    return uniteOwned(result, whole);
  }

  private timeFilter(
    kind: typeof BucketKind.AddedHour | typeof BucketKind.ObservedHour,
    column: { get(id: number): number },
    range: TimeRange,
  ): Bitmap {
    const family = this.postings.family(kind);
    const from = range.from ?? -Infinity;
    const to = range.to ?? Infinity;
    const keys = family.sortedKeys();
    if (keys.length === 0) return new RoaringBitmap32();
    const firstHour = Math.max(keys[0]!, Math.floor(from / HOUR_MS));
    const lastHour = Math.min(keys[keys.length - 1]!, Math.floor((to - 1) / HOUR_MS));
    const whole: Bitmap[] = [];
    const result = new RoaringBitmap32();
    for (const hour of family.keysBetween(firstHour, lastHour)) {
      const bucket = family.bucket(hour)!;
      if (hour * HOUR_MS >= from && (hour + 1) * HOUR_MS <= to) whole.push(bucket);
      else for (const id of bucket) if (column.get(id) >= from && column.get(id) < to) result.add(id);
    }
    return uniteOwned(result, whole);
  }

  /** Ids changed after `seq` (among `within`), from the recent-change log or, past it, the columns. */
  private changedSince(seq: number, within: () => Bitmap): Bitmap {
    const changed = new RoaringBitmap32();
    if (this.recentSeqs.length > 0 && this.recentSeqs[0]! <= seq + 1) {
      for (let i = this.recentSeqs.length - 1; i >= 0 && this.recentSeqs[i]! > seq; i--)
        changed.add(this.recentIds[i]!);
      return changed;
    }
    for (const id of within()) if (this.changeSeq.get(id) > seq) changed.add(id);
    return changed;
  }

  private noteChange(id: number, seq: number): void {
    this.changeSeq.set(id, seq);
    this.recentSeqs.push(seq);
    this.recentIds.push(id);
    if (this.recentSeqs.length > HostIndex.RECENT_LIMIT * 1.5) {
      this.recentSeqs.splice(0, this.recentSeqs.length - HostIndex.RECENT_LIMIT);
      this.recentIds.splice(0, this.recentIds.length - HostIndex.RECENT_LIMIT);
    }
  }

  /** The numeric family terms (IP blocks, port, hours) of a record, from its columns, into `terms` (reused). */
  private familyTermsOf(id: number, terms: number[] = this.familyScratch): number[] {
    const postings = this.postings;
    terms.length = 0;
    if (this.ipIsV6.get(id) === 1)
      terms.push(postings.familyTermId(BucketKind.Ipv6Slash48, Number(this.ipv6.get(id)! >> 80n)));
    else {
      const ipv4 = this.ipv4.get(id);
      terms.push(
        postings.familyTermId(BucketKind.Ipv4Slash24, ipv4 >>> 8),
        postings.familyTermId(BucketKind.Ipv4Slash16, ipv4 >>> 16),
      );
    }
    terms.push(
      postings.familyTermId(BucketKind.Port, this.port.get(id)),
      postings.familyTermId(BucketKind.ObservedHour, Math.floor(this.observedAt.get(id) / HOUR_MS)),
      postings.familyTermId(BucketKind.AddedHour, Math.floor(this.dateAdded.get(id) / HOUR_MS)),
    );
    return terms;
  }

  private unpost(termId: number, id: number): void {
    if (this.postings.remove(termId, id)) this.forgetTerm(termId);
  }

  /** The last record holding this term is gone: drop it from the dictionaries scanned by filters. */
  private forgetTerm(termId: number): void {
    const name = this.postings.nameOf(termId);
    if (name.startsWith('fp:')) this.identities.delete(name.slice(3));
  }

  private sortColumns(): SortColumns {
    return {
      postings: this.postings,
      observedAt: this.observedAt,
      dateAdded: this.dateAdded,
      ipv4: this.ipv4,
      ipIsV6: this.ipIsV6,
      ipv6: this.ipv6,
      port: this.port,
      keyOf: (id, sort) => sortKeyOf(this, id, sort),
    };
  }

  /** @internal column access for sort keys */
  columnsFor(id: number) {
    return {
      observedAt: this.observedAt.get(id),
      dateAdded: this.dateAdded.get(id),
      isV6: this.ipIsV6.get(id) === 1,
      ipv4: this.ipv4.get(id),
      ipv6: this.ipv6.get(id),
      port: this.port.get(id),
    };
  }
}

function sortKeyOf(index: HostIndex, id: number, sort: PageRequest['sort']): Array<number | string> {
  const c = index.columnsFor(id);
  switch (sort) {
    case 'timestamp':
      return [c.observedAt];
    case 'date_added':
      return [c.dateAdded];
    case 'port':
      return [c.port];
    case 'ip':
      return c.isV6 ? [6, c.ipv6!.toString(), c.port] : [4, String(c.ipv4), c.port];
  }
}
