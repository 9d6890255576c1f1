import { CpeNameIndex } from '../src/search/cpe-names/index.js';
import { lookupCpe } from '../src/server/routes/cpe-lookup/lookup.js';
import { parseCpeLookup } from '../src/server/routes/cpe-lookup/query.js';
import { parseCpeSearch } from '../src/server/routes/cpe-search/query.js';
import { CpeSearchQuery, typedQuery } from '../src/core/api/index.js';
import { searchCpe } from '../src/server/routes/cpe-search/search.js';
import type { Storage } from '../src/storage/index.js';

/**
 * The bare engine of `/v3/search/cpe`: what the route computes for a page (names and exact total
 * from the name index, the CVEs of each name from the per-product structures), in-process and
 * without HTTP, built the way the server builds it (`createContext`).
 */
export interface CpeEngine {
  description: string;
  search(params: Record<string, string>): Promise<{ total: number; names: number; links: number }>;
  /** What `/v3/cpe` computes: the CVEs of the CPE and of the names it matches. */
  lookup(params: { cpe: string; isVulnerable?: string }): Promise<{ total: number }>;
  /** The name index's own estimate of its memory (the per-product CVE structures report none). */
  memoryBytes(): number;
}

export async function openCpeEngine(storage: Storage): Promise<CpeEngine> {
  const names = new CpeNameIndex(storage.knowledge);
  await names.build();
  return {
    description: '`searchCpe` over `CpeNameIndex` and the per-product CVE structures (what the route calls)',
    async search(params) {
      const found = await searchCpe(storage, names, parseCpeSearch(typedQuery(CpeSearchQuery, params)));
      return {
        total: found.total,
        names: found.names.length,
        links: found.names.reduce((sum, name) => sum + name.cves.length, 0),
      };
    },
    async lookup(params) {
      const query = parseCpeLookup({ cpe: params.cpe, isVulnerable: params.isVulnerable === 'true' });
      return { total: (await lookupCpe(storage, names, query)).length };
    },
    memoryBytes: () => names.memoryBytes(),
  };
}
