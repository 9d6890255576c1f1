import { parseCpeSearch } from '../src/server/routes/cpe-search/query.js';
import { searchCpe } from '../src/server/routes/cpe-search/search.js';
import type { Storage } from '../src/storage/index.js';

/**
 * The bare engine of `/v3/search/cpe`: what the route computes for a page (names, exact total,
 * the CVEs of each name), in-process and without HTTP, built the way the server builds it.
 */
export interface CpeEngine {
  description: string;
  search(params: Record<string, string>): Promise<{ total: number; names: number; links: number }>;
  /** The indexes' own memory (0 when the route computes in SQL). */
  memoryBytes(): number;
}

export async function openCpeEngine(storage: Storage): Promise<CpeEngine> {
  return {
    description: '`searchCpe` (name search in SQL, then the criteria of each product)',
    async search(params) {
      const found = await searchCpe(storage, parseCpeSearch(params));
      return {
        total: found.total,
        names: found.names.length,
        links: found.names.reduce((sum, name) => sum + name.cves.length, 0),
      };
    },
    memoryBytes: () => 0,
  };
}
