import { parseCpe, type Wfn } from '../../../core/cpe.js';
import type { CpeNameIndex } from '../../../search/cpe-names/index.js';
import type { CveList } from '../../../search/cpe-cves/cve-list.js';
import { cveListsOfNames } from '../../../services/matching/name-cves.js';
import type { CpeNameSearch, Storage } from '../../../storage/index.js';
import type { CpeSearch } from './query.js';

export interface CpeSearchResult {
  total: number;
  names: Array<{ cpe: string; wfn: Wfn; cves: CveList }>;
}

/** The name search (one page, exact total) a CPE search query asks the name index for. */
export const nameSearchOf = (query: CpeSearch): CpeNameSearch => ({
  ...(query.part ? { part: query.part } : {}),
  ...(query.vendor ? { vendor: query.vendor } : {}),
  ...(query.product ? { product: query.product } : {}),
  ...(query.version !== undefined ? { version: query.version, versionPrefix: query.versionPrefix } : {}),
  order: query.order,
  offset: (query.page - 1) * query.limit,
  limit: query.limit,
});

/** One page of CPE search: the matching names (exact total, from the name index) and the CVEs covering each. */
export async function searchCpe(storage: Storage, names: CpeNameIndex, query: CpeSearch): Promise<CpeSearchResult> {
  const found = await names.search(nameSearchOf(query));
  const cves = await cveListsOfNames(
    storage,
    found.names.map((name) => name.cpe),
    query.isVulnerable,
  );
  return {
    total: found.total,
    names: found.names.map((name, i) => ({ cpe: name.cpe, wfn: parseCpe(name.cpe), cves: cves[i]! })),
  };
}
