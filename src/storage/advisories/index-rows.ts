/**
 * What the in-memory advisory index reads: the rows a feed generation added (with their terms and
 * match data), the record ids a generation sees, and the records of one page by row id. Every
 * statement reads a bounded chunk: better-sqlite3 runs statements on the event loop.
 */
import type { MatchData } from '../../core/advisory/facts.js';
import type { TermKind } from '../../core/advisory/terms.js';
import type { Sql } from '../database.js';
import { chunks, placeholders } from './sql-lists.js';
import { visibleAt } from './where.js';

/** One stored version of a record, as the index holds it. */
export interface AdvisoryIndexRow {
  /** The row id (a record's row changes when its content does). */
  id: number;
  /** The generation that wrote the row. */
  generation: number;
  recordId: string;
  cveId: string;
  /** The update time the filters use (epoch ms), when the record has one. */
  updatedAt?: number;
  terms: Array<[TermKind, string]>;
  matchData: MatchData;
}

/** The row id a generation sees for a record id. */
export interface VisibleRecord {
  id: number;
  recordId: string;
}

/** Rows per statement reading rows; their terms are read for as many rows at once. */
export const INDEX_ROW_CHUNK = 200;
/** Record ids per statement listing a generation's records. */
export const VISIBLE_CHUNK = 2000;

interface RowRecord {
  id: number | string;
  gen_from: number | string;
  record_id: string;
  cve_id: string;
  date_updated: number | string | null;
  match_data: string;
}

/** Where a read of changed rows stopped: the last row's generation and id. */
export interface IndexRowPosition {
  generation: number;
  id: number;
}

/**
 * The rows of `feed` written by generations in (`fromGeneration`, `toGeneration`] that
 * `toGeneration` sees, after `after` in (gen_from, id) order (`fromGeneration` 0: every record
 * the generation sees); empty when there are no more. Each chunk reads one generation's rows by
 * id (an equality on the advisories_generation index, then a seek), so no chunk rescans the ones
 * before it.
 */
export async function changedIndexRows(
  db: Sql,
  feed: string,
  fromGeneration: number,
  toGeneration: number,
  after: IndexRowPosition | undefined,
  limit = INDEX_ROW_CHUNK,
): Promise<AdvisoryIndexRow[]> {
  const visible = visibleAt(toGeneration);
  let generation = after?.generation ?? (await nextGeneration(db, feed, fromGeneration, toGeneration));
  let afterId = after?.id ?? 0;
  let rows: RowRecord[] = [];
  while (generation !== undefined) {
    rows = await db.all<RowRecord>(
      `SELECT id, gen_from, record_id, cve_id, date_updated, match_data FROM advisories
       WHERE feed = ? AND gen_from = ? AND id > ? AND ${visible.sql} ORDER BY id LIMIT ?`,
      [feed, generation, afterId, ...visible.params, limit],
    );
    if (rows.length > 0) break;
    generation = await nextGeneration(db, feed, generation, toGeneration);
    afterId = 0;
  }
  const termsById = new Map<number, Array<[TermKind, string]>>();
  for (const ids of chunks(rows.map((row) => Number(row.id)))) {
    const terms = await db.all<{ advisory_id: number | string; kind: number; value: string }>(
      `SELECT advisory_id, kind, value FROM advisory_terms WHERE advisory_id IN (${placeholders(ids.length)})`,
      ids,
    );
    for (const term of terms) {
      const id = Number(term.advisory_id);
      const list = termsById.get(id) ?? [];
      if (list.length === 0) termsById.set(id, list);
      list.push([Number(term.kind) as TermKind, term.value]);
    }
  }
  return rows.map((row) => {
    const id = Number(row.id);
    return {
      id,
      generation: Number(row.gen_from),
      recordId: row.record_id,
      cveId: row.cve_id,
      ...(row.date_updated !== null ? { updatedAt: Number(row.date_updated) } : {}),
      terms: termsById.get(id) ?? [],
      matchData: JSON.parse(row.match_data) as MatchData,
    };
  });
}

/** The first generation after `after`, up to `through`, that wrote rows of the feed. */
async function nextGeneration(db: Sql, feed: string, after: number, through: number): Promise<number | undefined> {
  const row = await db.get<{ g: number | string | null }>(
    `SELECT MIN(gen_from) AS g FROM advisories WHERE feed = ? AND gen_from > ? AND gen_from <= ?`,
    [feed, after, through],
  );
  return row?.g === null || row?.g === undefined ? undefined : Number(row.g);
}

/** The records `generation` of `feed` sees, by record id after `afterRecordId`. */
export async function visibleRecords(
  db: Sql,
  feed: string,
  generation: number,
  afterRecordId: string,
  limit = VISIBLE_CHUNK,
): Promise<VisibleRecord[]> {
  const visible = visibleAt(generation);
  const rows = await db.all<{ id: number | string; record_id: string }>(
    `SELECT id, record_id FROM advisories WHERE feed = ? AND ${visible.sql} AND record_id > ?
     ORDER BY record_id LIMIT ?`,
    [feed, ...visible.params, afterRecordId, limit],
  );
  return rows.map((row) => ({ id: Number(row.id), recordId: row.record_id }));
}

/**
 * The stored records of these row ids as their JSON text, served as stored without a parse and a
 * second serialisation (one page: one statement); rows purged since are absent.
 */
export async function recordTextsByRowIds(db: Sql, ids: readonly number[]): Promise<Map<number, string>> {
  const byId = new Map<number, string>();
  for (const chunk of chunks(ids)) {
    const rows = await db.all<{ id: number | string; record: string }>(
      `SELECT id, record FROM advisories WHERE id IN (${placeholders(chunk.length)})`,
      chunk,
    );
    for (const row of rows) byId.set(Number(row.id), row.record);
  }
  return byId;
}
