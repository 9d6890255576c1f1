/**
 * The advisory query behind `/v4/advisory`: filters, exact counts and one page, over one or more
 * feeds, in the immutable order (feed, cve_id, record_id). Each feed is read at the generation its
 * pointer names; if a pointer moved while the query ran (a reload switched in), the query runs
 * again, so an answer never mixes two generations of a feed.
 */
import { needsMatchData, type AdvisoryFilters } from '../../core/advisory/filters.js';
import type { MatchData } from '../../core/advisory/facts.js';
import { recordMatches } from '../../core/advisory/match.js';
import { unavailable } from '../../core/errors.js';
import type { Sql, SqlValue } from '../database.js';
import { feedGenerations } from './feeds.js';
import { chunks, placeholders } from './sql-lists.js';
import { hasNoFilters, whereClause, type Condition } from './where.js';

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

export interface AdvisorySearchResult {
  /** Records in the feeds searched. */
  total: number;
  /** Records matching the filters. */
  filtered: number;
  records: AdvisoryHit[];
  /** In `after` mode: more records follow the last one returned. */
  more: boolean;
}

interface Snapshot {
  feed: string;
  generation: number;
  recordCount: number;
}

interface KeyRow {
  id: number;
  cve_id: string;
  record_id: string;
}

const SCAN_CHUNK = 2000;
const MAX_ATTEMPTS = 5;

export const comparePositions = (a: AdvisoryPosition, b: AdvisoryPosition): number =>
  a.feed !== b.feed
    ? a.feed < b.feed
      ? -1
      : 1
    : a.cveId !== b.cveId
      ? a.cveId < b.cveId
        ? -1
        : 1
      : a.recordId < b.recordId
        ? -1
        : a.recordId > b.recordId
          ? 1
          : 0;

/** Row-value comparison: both engines can seek the (feed, cve_id, record_id) index with it. */
const keysetAfter = (cveId: string, recordId: string): Condition => ({
  sql: `(a.cve_id, a.record_id) > (?, ?)`,
  params: [cveId, recordId],
});

function and(...conditions: Array<Condition | undefined>): Condition {
  const present = conditions.filter((c): c is Condition => c !== undefined);
  return { sql: present.map((c) => c.sql).join(' AND '), params: present.flatMap((c) => c.params) };
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
  const where = and(whereClause(feed, generation, {}), after ? keysetAfter(after.cveId, after.recordId) : undefined);
  const rows = await db.all<{ cve_id: string; record_id: string; record: string }>(
    `SELECT a.cve_id, a.record_id, a.record FROM advisories a WHERE ${where.sql} ORDER BY a.cve_id, a.record_id LIMIT ?`,
    [...where.params, limit],
  );
  return rows.map((row) => ({
    feed,
    cveId: row.cve_id,
    recordId: row.record_id,
    record: JSON.parse(row.record) as unknown,
  }));
}

async function fetchRecords(db: Sql, keys: Array<AdvisoryPosition & { id: number }>): Promise<AdvisoryHit[]> {
  const byId = new Map<number, string>();
  for (const ids of chunks(keys.map((key) => key.id))) {
    const rows = await db.all<{ id: number; record: string }>(
      `SELECT id, record FROM advisories WHERE id IN (${placeholders(ids.length)})`,
      ids,
    );
    for (const row of rows) byId.set(row.id, row.record);
  }
  return keys.flatMap(({ id, ...position }) => {
    const json = byId.get(id);
    return json === undefined ? [] : [{ ...position, record: JSON.parse(json) as unknown }];
  });
}

/** Every filter decided in SQL: exact counts per feed, then the page's rows. */
async function sqlOnly(db: Sql, feeds: Snapshot[], filters: AdvisoryFilters, paging: AdvisoryPaging) {
  const counts = new Map<string, number>();
  for (const snap of feeds) {
    if (hasNoFilters(filters)) counts.set(snap.feed, snap.recordCount);
    else {
      const where = whereClause(snap.feed, snap.generation, filters);
      const row = await db.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM advisories a WHERE ${where.sql}`,
        where.params,
      );
      counts.set(snap.feed, Number(row?.n ?? 0));
    }
  }
  const filtered = [...counts.values()].reduce((a, b) => a + b, 0);
  const wanted = paging.mode === 'after' ? paging.limit + 1 : paging.limit;
  let skip = paging.mode === 'offset' ? paging.offset : 0;
  const keys: Array<AdvisoryPosition & { id: number }> = [];
  for (const snap of feeds) {
    if (keys.length >= wanted) break;
    const count = counts.get(snap.feed)!;
    let extra: Condition | undefined;
    if (paging.mode === 'after' && paging.after) {
      if (snap.feed < paging.after.feed) continue;
      if (snap.feed === paging.after.feed) extra = keysetAfter(paging.after.cveId, paging.after.recordId);
    } else if (skip >= count) {
      skip -= count;
      continue;
    }
    if (count === 0) continue;
    const where = and(whereClause(snap.feed, snap.generation, filters), extra);
    const params: SqlValue[] = [...where.params, wanted - keys.length, skip];
    const rows = await db.all<KeyRow>(
      `SELECT a.id, a.cve_id, a.record_id FROM advisories a WHERE ${where.sql} ORDER BY a.cve_id, a.record_id LIMIT ? OFFSET ?`,
      params,
    );
    skip = 0;
    for (const row of rows) keys.push({ id: row.id, feed: snap.feed, cveId: row.cve_id, recordId: row.record_id });
  }
  return { filtered, keys };
}

/** Some filters need the match data: every candidate is evaluated (for the exact count), in order. */
async function withMatchData(db: Sql, feeds: Snapshot[], filters: AdvisoryFilters, paging: AdvisoryPaging) {
  const matched: Array<AdvisoryPosition & { id: number }> = [];
  for (const snap of feeds) {
    if (snap.recordCount === 0) continue;
    const base = whereClause(snap.feed, snap.generation, filters);
    let last: KeyRow | undefined;
    for (;;) {
      const where = and(base, last ? keysetAfter(last.cve_id, last.record_id) : undefined);
      const rows = await db.all<KeyRow & { match_data: string }>(
        `SELECT a.id, a.cve_id, a.record_id, a.match_data FROM advisories a WHERE ${where.sql}
         ORDER BY a.cve_id, a.record_id LIMIT ${SCAN_CHUNK}`,
        where.params,
      );
      for (const row of rows) {
        if (recordMatches(JSON.parse(row.match_data) as MatchData, filters)) {
          matched.push({ id: row.id, feed: snap.feed, cveId: row.cve_id, recordId: row.record_id });
        }
      }
      if (rows.length < SCAN_CHUNK) break;
      last = rows[rows.length - 1];
    }
  }
  let start: number;
  let end: number;
  if (paging.mode === 'offset') {
    start = paging.offset;
    end = start + paging.limit;
  } else {
    const after = paging.after;
    start = after ? matched.findIndex((key) => comparePositions(key, after) > 0) : 0;
    if (start < 0) start = matched.length;
    end = start + paging.limit + 1;
  }
  return { filtered: matched.length, keys: matched.slice(start, end) };
}

async function snapshot(db: Sql, feeds: readonly string[]): Promise<Snapshot[]> {
  const generations = await feedGenerations(db, feeds);
  return [...feeds].sort().map((feed) => ({ feed, ...generations.get(feed)! }));
}

const sameGenerations = (a: Snapshot[], b: Snapshot[]) => a.every((snap, i) => snap.generation === b[i]!.generation);

export async function searchAdvisories(
  db: Sql,
  feeds: readonly string[],
  filters: AdvisoryFilters,
  paging: AdvisoryPaging,
): Promise<AdvisorySearchResult> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const before = await snapshot(db, feeds);
    const found = needsMatchData(filters)
      ? await withMatchData(db, before, filters, paging)
      : await sqlOnly(db, before, filters, paging);
    const more = paging.mode === 'after' && found.keys.length > paging.limit;
    const records = await fetchRecords(db, found.keys.slice(0, paging.limit));
    const after = await snapshot(db, feeds);
    if (sameGenerations(before, after)) {
      return {
        total: before.reduce((sum, snap) => sum + snap.recordCount, 0),
        filtered: found.filtered,
        records,
        more,
      };
    }
  }
  throw unavailable('advisory feeds were reloaded repeatedly during the query; try again');
}
