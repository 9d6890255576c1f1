import type { AdvisoryFilters } from '../src/core/advisory/filters.js';
import { AdvisoryIndex } from '../src/search/advisories/advisory-index.js';
import type { AdvisoryPaging, Storage } from '../src/storage/index.js';
import { HostIndex } from '../src/search/host-index.js';
import { searchCve } from '../src/server/routes/search-cve/search.js';
import { lookupPurl, RecordBudget } from '../src/server/routes/purl/lookup.js';
import { parsePurlQuestion } from '../src/server/routes/purl/parse.js';

/**
 * The bare engine of `/v4/advisory`: what the route calls for a page, in-process and without HTTP,
 * built the way the server builds it at start (`createContext`).
 */
export interface AdvisoryEngine {
  description: string;
  search(feeds: string[], filters: AdvisoryFilters, paging: AdvisoryPaging): Promise<{ filtered: number }>;
  /** What `/v3/search/cve` runs for its first page (target-intel is empty in this benchmark). */
  searchCve(feeds: string[], cve: string, limit: number): Promise<{ total: number }>;
  /** What `GET /v3/purl` computes for one purl over `feeds`: the records read and their findings. */
  purl(feeds: string[], purl: string): Promise<{ total: number }>;
  /** The index's own estimate of its memory. */
  memoryBytes(): number;
}

export async function openAdvisoryEngine(storage: Storage): Promise<AdvisoryEngine> {
  const index = new AdvisoryIndex(storage.advisories);
  await index.build();
  return {
    description: '`AdvisoryIndex.search` (the in-memory index the route answers from)',
    search: (feeds, filters, paging) => index.search(feeds, filters, paging),
    searchCve: (feeds, cve, limit) => searchCve(index, noHosts, feeds, cve, { offset: 0, limit }),
    purl: (feeds, purl) => lookupPurl(index, feeds, parsePurlQuestion(purl, 'purl'), new RecordBudget()),
    memoryBytes: () => index.memoryBytes(),
  };
}

const emptyHostIndex = new HostIndex();
const noHosts = {
  idsNaming: (cve: string) => emptyHostIndex.evaluate({ cve, dateAdded: [], observed: [] }),
  records: async () => [],
};
