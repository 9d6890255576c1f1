/**
 * The in-memory index behind `/v4/advisory`: per feed an immutable segment of the generation its
 * pointer names (see segment.ts), over records held in slots (record-table.ts), with the filters
 * terms cannot decide answered by the match index. Kept current by generation switch: before a
 * query, the feed pointers are read (one statement); a feed that moved is brought forward by
 * reading only the rows its new generations wrote, and records they removed are found by count.
 */
import type { AdvisoryFilters } from '../../core/advisory/filters.js';
import { entriesFixedVersion, recordCveIds, type PackageFinding } from '../../core/advisory/package-finding.js';
import { unavailable } from '../../core/errors.js';
import type {
  AdvisoryPaging,
  AdvisoryRepository,
  AdvisoryPosition,
  IndexRowPosition,
  StoredFeed,
} from '../../storage/index.js';
import { LruCache } from '../../core/lru.js';
import { Announcements } from '../announcements.js';
import type { Bitmap } from '../bitmap.js';
import { FeedChange, FeedState } from './feed-change.js';
import { ReadWriteGate } from './gate.js';
import { AdvisoryMatchIndex } from './match-index.js';
import { RecordTable } from './record-table.js';
import { findPage, type PageHit } from './query.js';
import { RecordCves } from './record-cves.js';
import { RecordTexts } from './record-texts.js';
import { SLICE_MS, Slicer, yieldToLoop } from '../slices.js';
import { TermDictionary } from './term-dictionary.js';

/** Rows read per statement (with their terms, about ten each: under 2,000 term rows), and the least. */
const ROW_CHUNK = 200;
const ROW_CHUNK_MIN = 25;
/** Attempts at a consistent read while loads keep switching a feed. */
const MAX_ATTEMPTS = 5;

export interface AdvisoryIndexStatus {
  feeds: number;
  records: number;
  memoryBytes: number;
  buildMs?: number;
}

/** A page of advisories: the stored records' JSON text, each with its place in the served order. */
export interface AdvisoryIndexPage {
  /** Records in the feeds searched. */
  total: number;
  /** Records matching the filters. */
  filtered: number;
  /** Records matching the filters per feed searched. */
  filteredByFeed: Map<string, number>;
  /** Each record's stored JSON, UTF-8. */
  records: Array<AdvisoryPosition & { json: Uint8Array }>;
  /** In `after` mode: more records follow the last one returned. */
  more: boolean;
}

/** The findings of a package version (see {@link AdvisoryIndex.packageFindings}). */
export interface PackageFindingsPage {
  /** Records affecting the package version in the feeds searched. */
  filtered: number;
  records: Array<AdvisoryPosition & { finding: PackageFinding }>;
}

const decoder = new TextDecoder();
/** Findings kept for repeated package lookups, weighed by their records (about 100 bytes each). */
const KEPT_FINDING_RECORDS = 200_000;

export class AdvisoryIndex {
  private readonly terms = new TermDictionary();
  private readonly table = new RecordTable(this.terms);
  private readonly states = new Map<string, FeedState>();
  private readonly gate = new ReadWriteGate();
  /** Feeds a query asked for that the next catch-up adds. */
  private readonly wanted = new Set<string>();
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private built: Promise<void> | undefined;
  private buildMs: number | undefined;
  /** Feed switches, as storage announces them (PostgreSQL). */
  private readonly announcements: Announcements;
  /** Counts generation switches (match results are cached per version). */
  private version = 0;
  private readonly matchCache = new Map<string, Promise<Bitmap>>();
  private readonly texts: RecordTexts;
  private readonly cves = new RecordCves();
  /** The feed list as read while the announcements' epoch had this value. */
  private feedList: { epoch: number; feeds: StoredFeed[] } | undefined;
  /** Package lookups' answers, each under the index version it was read at: a switch makes them unreachable. */
  private readonly keptFindings = new LruCache<string, PackageFindingsPage>(
    KEPT_FINDING_RECORDS,
    (page) => 1 + page.records.length,
  );

  constructor(
    private readonly advisories: AdvisoryRepository,
    readonly match = new AdvisoryMatchIndex(),
  ) {
    this.texts = new RecordTexts((rowIds) => advisories.recordTextsByRowIds(rowIds));
    this.announcements = new Announcements((handlers) => advisories.watchGenerations(handlers));
  }

  /** Reads every loaded feed (at server start; otherwise the first query does). */
  build(): Promise<void> {
    this.built ??= (async () => {
      const started = performance.now();
      for (const feed of await this.advisories.feeds()) this.wanted.add(feed.name);
      await this.refresh();
      // The match index's per-product structures, now rather than on the first query that needs one.
      await this.match.prepare();
      this.buildMs = performance.now() - started;
    })().catch((error: unknown) => {
      this.built = undefined;
      throw error;
    });
    return this.built;
  }

  /**
   * Brings `feeds` (and every feed held) to the generation their pointers name. A caller arriving
   * while a catch-up runs waits for the next one, which reads the pointers after its arrival:
   * a query always sees what was committed before it began.
   */
  async catchUp(feeds: readonly string[]): Promise<void> {
    await this.build();
    for (const feed of feeds) if (!this.states.has(feed)) this.wanted.add(feed);
    // Listening, with nothing announced since the last read began: that read (if still running) is current.
    if (this.announcements.quiet && this.wanted.size === 0) return this.running;
    return this.refresh();
  }

  /** The feeds storage holds: on PostgreSQL read again only after a load announced a switch. */
  async feeds(): Promise<StoredFeed[]> {
    const epoch = this.announcements.epoch;
    if (epoch !== undefined && this.feedList?.epoch === epoch) return this.feedList.feeds;
    const feeds = await this.advisories.feeds();
    if (epoch !== undefined) this.feedList = { epoch, feeds };
    return feeds;
  }

  /** Listens for announced feed switches, where storage announces them (PostgreSQL). */
  listen(onError: (error: unknown) => void, retryMs = 1000): Promise<void> {
    return this.announcements.listen(onError, retryMs);
  }

  async stop(): Promise<void> {
    await this.announcements.stop();
  }

  private refresh(): Promise<void> {
    if (!this.running) {
      this.announcements.readStarted();
      this.running = this.run()
        .catch((error: unknown) => {
          this.announcements.markPending();
          throw error;
        })
        .finally(() => {
          this.running = undefined;
        });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => {})
      .then(() => {
        this.queued = undefined;
        return this.refresh();
      });
    return this.queued;
  }

  async search(feeds: readonly string[], filters: AdvisoryFilters, paging: AdvisoryPaging): Promise<AdvisoryIndexPage> {
    const names = [...new Set(feeds)].sort();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      await this.catchUp(names);
      const page = await this.gate.read(() => this.pageOf(names, filters, paging));
      const records = await this.texts.get(page.hits.map((hit) => hit.rowId));
      // A row purged since the catch-up: a newer generation switched in (perhaps not yet announced); read again.
      if (page.hits.some((hit) => !records.has(hit.rowId))) {
        this.announcements.markPending();
        continue;
      }
      // A cursor walk asks for the next page as soon as it has this one.
      if (page.ahead.length > 0) this.texts.readAhead(page.ahead);
      return {
        total: page.total,
        filtered: page.filtered,
        filteredByFeed: new Map(names.map((name, i) => [name, page.filteredPerSegment[i]!])),
        more: page.more,
        records: page.hits.map((hit) => ({
          feed: hit.feed,
          cveId: hit.cveId,
          recordId: hit.recordId,
          json: records.get(hit.rowId)!,
        })),
      };
    }
    throw unavailable('advisory feeds were reloaded repeatedly during the query; try again');
  }

  /**
   * What `/v3/purl` reports of the records affecting the package `key` at `version` (the first
   * `limit`, in served order): each finding from the affected entries the match index holds and
   * the record's CVE ids, read from the record only the first time a lookup meets it.
   */
  async packageFindings(
    feeds: readonly string[],
    key: string,
    version: string,
    limit: number,
  ): Promise<PackageFindingsPage> {
    const names = [...new Set(feeds)].sort();
    const filters: AdvisoryFilters = { packageKey: key, version };
    const keyAt = (at: number) => JSON.stringify([at, names, key, version, limit]);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      await this.catchUp(names);
      // Lookups of one package version repeat (every build of a project asks them again), and feeds change rarely.
      const kept = this.keptFindings.get(keyAt(this.version));
      if (kept) return kept;
      const { filtered, hits, at } = await this.gate.read(async () => {
        const page = await this.pageOf(names, filters, { mode: 'offset', offset: 0, limit });
        const hits = page.hits.map((hit) => ({
          hit,
          fixed: entriesFixedVersion(this.match.packageEntries(hit.slot, key), key, version),
          cves: this.cves.get(hit.slot, hit.rowId, hit.cveId),
        }));
        return { filtered: page.filtered, hits, at: this.version };
      });
      const unread = hits.filter((item) => item.cves === undefined);
      const read = unread.length > 0 ? await this.readCves(unread.map((item) => item.hit)) : new Map();
      // A row purged since the catch-up: a newer generation switched in (perhaps not yet announced); read again.
      if (unread.some((item) => !read.has(item.hit.rowId))) {
        this.announcements.markPending();
        continue;
      }
      const found: PackageFindingsPage = {
        filtered,
        records: hits.map(({ hit, fixed, cves }) => ({
          feed: hit.feed,
          cveId: hit.cveId,
          recordId: hit.recordId,
          finding: {
            cves: cves ?? read.get(hit.rowId)!,
            ...(fixed !== undefined ? { fixedVersion: fixed } : {}),
          },
        })),
      };
      this.keptFindings.set(keyAt(at), found);
      return found;
    }
    throw unavailable('advisory feeds were reloaded repeatedly during the query; try again');
  }

  /** Reads the CVE ids of these rows from their records and keeps them; a purged row is absent. */
  private async readCves(hits: readonly PageHit[]): Promise<Map<number, readonly string[]>> {
    const texts = await this.texts.get(hits.map((hit) => hit.rowId));
    const out = new Map<number, readonly string[]>();
    for (const hit of hits) {
      const text = texts.get(hit.rowId);
      if (text === undefined) continue;
      const ids = recordCveIds(JSON.parse(decoder.decode(text)));
      this.cves.set(hit.slot, hit.rowId, ids, hit.cveId);
      out.set(hit.rowId, ids);
    }
    return out;
  }

  private pageOf(names: readonly string[], filters: AdvisoryFilters, paging: AdvisoryPaging) {
    return findPage(
      names.map((name) => this.states.get(name)!.segment),
      this.table,
      this.terms,
      filters,
      paging,
      (candidates) => this.matching(filters, candidates, paging.mode === 'after'),
      paging.mode === 'after' ? paging.limit : 0,
    );
  }

  status(): AdvisoryIndexStatus {
    return {
      feeds: this.states.size,
      records: this.table.size,
      memoryBytes: this.memoryBytes(),
      ...(this.buildMs !== undefined ? { buildMs: this.buildMs } : {}),
    };
  }

  /** An estimate of the memory the index holds, the record texts and CVE ids it keeps included (the match index not). */
  memoryBytes(): number {
    let segments = 0;
    for (const state of this.states.values()) segments += state.segment.byteLength + 64 * state.recordSlots.size;
    return this.table.byteLength + this.terms.byteLength + segments + this.texts.byteLength + this.cves.byteLength;
  }

  /** Match results are the same for the same filters until a switch: a cursor walk reuses them for each page. */
  private matching(filters: AdvisoryFilters, candidates: Bitmap | undefined, walking: boolean) {
    if (candidates || !walking) return this.match.matching(filters, candidates);
    const key = `${this.version}\u0000${JSON.stringify(filters)}`;
    let result = this.matchCache.get(key);
    if (!result) {
      if (this.matchCache.size >= 16) this.matchCache.delete(this.matchCache.keys().next().value!);
      result = this.match.matching(filters);
      result.catch(() => this.matchCache.delete(key));
      this.matchCache.set(key, result);
    }
    return result;
  }

  private async run(): Promise<void> {
    const names = new Set([...this.states.keys(), ...this.wanted]);
    this.wanted.clear();
    const generations = await this.advisories.generations([...names]);
    for (const name of [...names].sort()) {
      let state = this.states.get(name);
      if (!state) {
        state = new FeedState(name, this.table);
        this.states.set(name, state);
      }
      const target = generations.get(name)!;
      if (target.generation !== state.generation) await this.advance(state, target.generation);
    }
  }

  /** Brings one feed from its held generation to `target` (or a later one, if loads switch meanwhile). */
  private async advance(state: FeedState, target: number): Promise<void> {
    const slicer = new Slicer();
    let change = new FeedChange(state, this.table, this.terms, this.match);
    let from = target < state.generation ? 0 : state.generation;
    if (from === 0) change.replaceAll();
    let to = target;
    try {
      for (let attempt = 0; ; attempt++) {
        if (attempt >= MAX_ATTEMPTS) throw unavailable('an advisory feed was reloaded repeatedly; try again');
        if (to > 0) await this.readRows(state.name, from, to, change);
        const now = (await this.advisories.generations([state.name])).get(state.name)!;
        if (now.generation !== to) {
          // Switched again while we read: read on from there (a reload if it went back).
          from = now.generation < to ? 0 : to;
          if (from === 0) {
            change.abandon();
            change = new FeedChange(state, this.table, this.terms, this.match);
            change.replaceAll();
          }
          to = now.generation;
          continue;
        }
        if (change.count !== now.recordCount) {
          const visible = await this.visible(state.name, to);
          const stable = (await this.advisories.generations([state.name])).get(state.name)!.generation === to;
          if (!stable || !change.keepOnly(visible)) {
            change.abandon();
            change = new FeedChange(state, this.table, this.terms, this.match);
            change.replaceAll();
            from = 0;
            continue;
          }
        }
        break;
      }
      const segment = await change.nextSegment(to, slicer);
      await this.gate.write(() => {
        change.switchTo(segment);
        this.version++;
        this.matchCache.clear();
      });
    } catch (error) {
      change.abandon();
      throw error;
    }
  }

  private async readRows(feed: string, from: number, to: number, change: FeedChange): Promise<void> {
    let after: IndexRowPosition | undefined;
    let limit = ROW_CHUNK;
    for (;;) {
      const started = performance.now();
      const rows = await this.advisories.changedIndexRows(feed, from, to, after, limit);
      for (const row of rows) change.add(row);
      // A chunk is one task (SQLite reads synchronously): smaller ones when a chunk runs long.
      if (performance.now() - started > SLICE_MS * 2) limit = Math.max(ROW_CHUNK_MIN, limit >> 1);
      const last = rows[rows.length - 1];
      if (!last) return;
      after = { generation: last.generation, id: last.id };
      // SQLite answers synchronously: without a turn of the loop per chunk, a long read is one task.
      await yieldToLoop();
    }
  }

  private async visible(feed: string, generation: number): Promise<Map<string, number>> {
    const visible = new Map<string, number>();
    let after = '';
    for (;;) {
      const rows = await this.advisories.visibleRecords(feed, generation, after);
      for (const row of rows) visible.set(row.recordId, row.id);
      if (rows.length === 0) return visible;
      after = rows[rows.length - 1]!.recordId;
      await yieldToLoop();
    }
  }
}
