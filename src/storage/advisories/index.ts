import type { Database, Listening, ListenHandlers } from '../database.js';
import {
  ADVISORY_FEEDS_CHANNEL,
  feedGenerations,
  getFeed,
  listFeeds,
  setSyncValidators,
  type StoredFeed,
} from './feeds.js';
import {
  changedIndexRows,
  recordTextsByRowIds,
  visibleRecords,
  type AdvisoryIndexRow,
  type IndexRowPosition,
  type VisibleRecord,
} from './index-rows.js';
import { AdvisoryLoad, type LoadOptions } from './load.js';
import { RECORDS_REWRITTEN_AT } from './provenance-fill.js';
import { getSetting } from '../settings.js';
import { generationPage, type AdvisoryHit, type AdvisoryPosition } from './search.js';

export type { StoredFeed } from './feeds.js';
export type { AdvisoryIndexRow, IndexRowPosition, VisibleRecord } from './index-rows.js';
export type { AdvisoryWrite, LoadCounts, LoadInput, LoadOptions } from './load.js';
export { AdvisoryLoad } from './load.js';
export type { AdvisoryHit, AdvisoryPaging, AdvisoryPosition } from './search.js';

/** Advisory feeds and their records: loading generations, and the `/v4/advisory` query. */
export class AdvisoryRepository {
  constructor(private readonly db: Database) {}

  feeds(): Promise<StoredFeed[]> {
    return listFeeds(this.db);
  }

  feed(name: string): Promise<StoredFeed | undefined> {
    return getFeed(this.db, name);
  }

  /** Starts loading a new generation of a feed (see AdvisoryLoad). */
  startLoad(options: LoadOptions): Promise<AdvisoryLoad> {
    return AdvisoryLoad.begin(this.db, options);
  }

  /**
   * A page of the records `generation` of `feed` serves, in the served order, after `after` (the
   * last record of the previous page): the whole feed, page by page (backups).
   */
  generationPage(
    feed: string,
    generation: number,
    after: AdvisoryPosition | undefined,
    limit: number,
  ): Promise<AdvisoryHit[]> {
    return generationPage(this.db, feed, generation, after, limit);
  }

  /** Generation and record count per feed (missing feeds: generation 0, empty). */
  generations(feeds: readonly string[]): Promise<Map<string, { generation: number; recordCount: number }>> {
    return feedGenerations(this.db, feeds);
  }

  /**
   * For the in-memory index: the rows of `feed` that generations (`fromGeneration`,
   * `toGeneration`] wrote and `toGeneration` sees, with terms and match data, in (generation, row
   * id) order after `after` (the last row read); empty when there are no more.
   */
  changedIndexRows(
    feed: string,
    fromGeneration: number,
    toGeneration: number,
    after: IndexRowPosition | undefined,
    limit?: number,
  ): Promise<AdvisoryIndexRow[]> {
    return changedIndexRows(this.db, feed, fromGeneration, toGeneration, after, limit);
  }

  /** The (record id, row id) pairs `generation` of `feed` sees, by record id after `afterRecordId`. */
  visibleRecords(feed: string, generation: number, afterRecordId: string, limit?: number): Promise<VisibleRecord[]> {
    return visibleRecords(this.db, feed, generation, afterRecordId, limit);
  }

  /**
   * Where storage announces feed switches (PostgreSQL): calls `handlers.notified` after each one
   * commits; undefined where it cannot (SQLite), so every query reads the pointers.
   */
  async watchGenerations(handlers: ListenHandlers): Promise<Listening | undefined> {
    return this.db.listen?.(ADVISORY_FEEDS_CHANNEL, handlers);
  }

  /** The stored records of these row ids; rows purged since are absent. */
  recordTextsByRowIds(ids: readonly number[]): Promise<Map<number, string>> {
    return recordTextsByRowIds(this.db, ids);
  }

  /**
   * When an upgrade last rewrote stored records in place (epoch ms; undefined: never), which
   * leaves feed generations as they were: what was written from the records before is stale.
   */
  async rewrittenAt(): Promise<number | undefined> {
    const value = await getSetting(this.db, RECORDS_REWRITTEN_AT);
    return value === undefined ? undefined : Number(value);
  }

  /** Remembers the HTTP validators of the last download, for conditional requests. */
  setSyncValidators(feed: string, etag: string | undefined, lastModified: string | undefined): Promise<void> {
    return setSyncValidators(this.db, feed, etag, lastModified);
  }
}
