import type { AdvisoryFilters } from '../src/core/advisory/filters.js';
import type { AdvisoryPaging, Storage } from '../src/storage/index.js';

/**
 * The bare engine of `/v4/advisory`: what the route calls for a page, in-process and without HTTP,
 * built the way the server builds it at start.
 */
export interface AdvisoryEngine {
  description: string;
  search(feeds: string[], filters: AdvisoryFilters, paging: AdvisoryPaging): Promise<{ filtered: number }>;
  /** The index's own memory (0 when the route computes in SQL). */
  memoryBytes(): number;
}

export async function openAdvisoryEngine(storage: Storage): Promise<AdvisoryEngine> {
  return {
    description: 'storage.advisories.search (SQL)',
    search: (feeds, filters, paging) => storage.advisories.search(feeds, filters, paging),
    memoryBytes: () => 0,
  };
}
