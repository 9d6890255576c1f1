import type { AdvisoryFilters } from '../../core/advisory/filters.js';
import type { Database } from '../database.js';
import { getFeed, listFeeds, setSyncValidators, type StoredFeed } from './feeds.js';
import { AdvisoryLoad, type LoadOptions } from './load.js';
import {
  generationPage,
  searchAdvisories,
  type AdvisoryHit,
  type AdvisoryPaging,
  type AdvisoryPosition,
  type AdvisorySearchResult,
} from './search.js';

export type { StoredFeed } from './feeds.js';
export type { AdvisoryWrite, LoadCounts, LoadInput, LoadOptions } from './load.js';
export { AdvisoryLoad } from './load.js';
export type { AdvisoryHit, AdvisoryPaging, AdvisoryPosition, AdvisorySearchResult } from './search.js';

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

  search(feeds: readonly string[], filters: AdvisoryFilters, paging: AdvisoryPaging): Promise<AdvisorySearchResult> {
    return searchAdvisories(this.db, feeds, filters, paging);
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

  /** Remembers the HTTP validators of the last download, for conditional requests. */
  setSyncValidators(feed: string, etag: string | undefined, lastModified: string | undefined): Promise<void> {
    return setSyncValidators(this.db, feed, etag, lastModified);
  }
}
