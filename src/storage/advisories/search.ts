/**
 * Reading a feed generation in the served order (feed, cve_id, record_id), page by page: backups
 * archive a feed with it. Queries are answered by the in-memory advisory index (src/search/advisories).
 */
import type { Sql } from '../database.js';
import { visibleAt } from './where.js';

/** Where a record sits in the served order; cursors carry it. */
export interface AdvisoryPosition {
  feed: string;
  cveId: string;
  recordId: string;
}

export type AdvisoryPaging =
  | { mode: 'offset'; offset: number; limit: number }
  | { mode: 'after'; after?: AdvisoryPosition; limit: number };

export interface AdvisoryHit extends AdvisoryPosition {
  /** The stored record (served as is). */
  record: unknown;
}

/**
 * A page of the records `generation` of `feed` serves, in the served order (cve_id, record_id),
 * after the position `after` (the last record of the previous page; none: from the start).
 */
export async function generationPage(
  db: Sql,
  feed: string,
  generation: number,
  after: AdvisoryPosition | undefined,
  limit: number,
): Promise<AdvisoryHit[]> {
  const visible = visibleAt(generation, 'a');
  // Row-value comparison: both engines seek the (feed, cve_id, record_id) index with it.
  const keyset = after ? ' AND (a.cve_id, a.record_id) > (?, ?)' : '';
  const rows = await db.all<{ cve_id: string; record_id: string; record: string }>(
    `SELECT a.cve_id, a.record_id, a.record FROM advisories a WHERE a.feed = ? AND ${visible.sql}${keyset}
     ORDER BY a.cve_id, a.record_id LIMIT ?`,
    [feed, ...visible.params, ...(after ? [after.cveId, after.recordId] : []), limit],
  );
  return rows.map((row) => ({
    feed,
    cveId: row.cve_id,
    recordId: row.record_id,
    record: JSON.parse(row.record) as unknown,
  }));
}
