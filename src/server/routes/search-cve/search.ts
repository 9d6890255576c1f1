/**
 * The lookup behind `/v3/search/cve`: the advisories of the given feeds filed under the CVE (the
 * advisory index's CVE-id lookup, as `/v4/advisory?cve_id=` answers), then the target-intel
 * records whose CVE list holds it (the host index's posting list for the CVE), as one sequence.
 */
import type { PageRecord } from '../../../core/host-record.js';
import type { AdvisoryIndex } from '../../../search/advisories/advisory-index.js';
import type { Bitmap } from '../../../search/bitmap.js';
import type { AdvisoryPaging, AdvisoryPosition } from '../../../storage/index.js';

export const TARGET_INTEL = 'target-intel';

/** Where a cursor walk stands: in the feeds after an advisory (or at their start), or in target-intel after a record id. */
export type CvePosition = { in: 'feeds'; after?: AdvisoryPosition } | { in: 'target-intel'; afterId: number };

/** The target-intel side: the ids of the records naming a CVE, and the records themselves. */
export interface CveHostSource {
  /** Ids of the records naming `cve`, ascending; read only and valid until the index next changes, so used at once. */
  idsNaming(cve: string): Bitmap;
  records(ids: number[]): Promise<PageRecord[]>;
}

export type CveHit =
  | { index: string; id: string; advisory: Uint8Array }
  | { index: typeof TARGET_INTEL; id: string; record: PageRecord };

export interface CveSearchFound {
  hits: CveHit[];
  /** Hits per index searched: each feed, then target-intel. */
  counts: Array<{ index: string; count: number }>;
  total: number;
  /** In a cursor walk: where the next page starts, when hits remain. */
  next?: CvePosition;
}

export type CveSearchWindow = { offset: number; limit: number } | { position: CvePosition; limit: number };

export async function searchCve(
  advisories: AdvisoryIndex,
  hosts: CveHostSource,
  feeds: readonly string[],
  cve: string,
  window: CveSearchWindow,
): Promise<CveSearchFound> {
  const walking = 'position' in window;
  const found = await advisories.search(feeds, { cveId: cve }, advisoryPaging(window));
  const hits: CveHit[] = found.records.map((record) => ({
    index: record.feed,
    id: record.recordId,
    advisory: record.json,
  }));
  const last = found.records[found.records.length - 1];
  let next: CvePosition | undefined =
    walking && found.more && last
      ? { in: 'feeds', after: { feed: last.feed, cveId: last.cveId, recordId: last.recordId } }
      : undefined;

  // Synchronously, from the posting list to a copy of the page's ids: the index may change at the next await.
  const naming = hosts.idsNaming(cve);
  const hostTotal = naming.size;
  let hostIds: number[] = [];
  if (!next) {
    const room = window.limit - hits.length;
    const afterId = walking && window.position.in === TARGET_INTEL ? window.position.afterId : -1;
    const from = walking ? (afterId < 0 ? 0 : naming.rank(afterId)) : Math.max(0, window.offset - found.filtered);
    // A walk reads one id beyond the page: whether to go on.
    const wanted = walking ? room + 1 : room;
    const ids = wanted > 0 ? Array.from(naming.rangeUint32Array(new Uint32Array(wanted), from, wanted)) : [];
    hostIds = ids.slice(0, room);
    if (walking && ids.length > room) next = { in: TARGET_INTEL, afterId: hostIds.at(-1) ?? afterId };
  }
  if (hostIds.length > 0) {
    const byId = new Map((await hosts.records(hostIds)).map((record) => [record.id, record]));
    // A record expired since the ids were read is left out.
    for (const id of hostIds) {
      const record = byId.get(id);
      if (record) hits.push({ index: TARGET_INTEL, id: String(id), record });
    }
  }
  const counts = [...new Set(feeds)]
    .sort()
    .map((feed) => ({ index: feed, count: found.filteredByFeed.get(feed) ?? 0 }))
    .concat({ index: TARGET_INTEL, count: hostTotal });
  return { hits, counts, total: found.filtered + hostTotal, ...(next ? { next } : {}) };
}

/** The advisory index's page: from the offset, after the walk's position, or (past the feeds) none but their counts. */
function advisoryPaging(window: CveSearchWindow): AdvisoryPaging {
  if (!('position' in window)) return { mode: 'offset', offset: window.offset, limit: window.limit };
  const { position } = window;
  if (position.in === TARGET_INTEL) return { mode: 'offset', offset: 0, limit: 0 };
  return { mode: 'after', limit: window.limit, ...(position.after ? { after: position.after } : {}) };
}
