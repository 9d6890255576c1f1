/**
 * The advisory feeds table: per feed the generation queries see, its record count, and the load
 * in progress (the generation being written and a heartbeat; one load per feed at a time).
 */
import type { Sql } from '../database.js';

/** The channel a feed switch is announced on when it commits (PostgreSQL; see database.ts `announce`). */
export const ADVISORY_FEEDS_CHANNEL = 'vulnscope_advisory_feeds';

export interface StoredFeed {
  name: string;
  description: string;
  adapter: string;
  /** The generation queries see; 0 before the first load. */
  generation: number;
  recordCount: number;
  loadedAt?: number;
  source?: string;
  etag?: string;
  lastModified?: string;
  /** Set while a load runs. */
  loadingGeneration?: number;
  loadingHeartbeat?: number;
}

interface FeedRow {
  name: string;
  description: string;
  adapter: string;
  generation: number;
  record_count: number;
  loaded_at: number | null;
  source: string | null;
  etag: string | null;
  last_modified: string | null;
  loading_generation: number | null;
  loading_heartbeat: number | null;
}

const FEED_COLUMNS =
  'name, description, adapter, generation, record_count, loaded_at, source, etag, last_modified, loading_generation, loading_heartbeat';

const toFeed = (row: FeedRow): StoredFeed => ({
  name: row.name,
  description: row.description,
  adapter: row.adapter,
  generation: row.generation,
  recordCount: row.record_count,
  ...(row.loaded_at !== null ? { loadedAt: row.loaded_at } : {}),
  ...(row.source !== null ? { source: row.source } : {}),
  ...(row.etag !== null ? { etag: row.etag } : {}),
  ...(row.last_modified !== null ? { lastModified: row.last_modified } : {}),
  ...(row.loading_generation !== null ? { loadingGeneration: row.loading_generation } : {}),
  ...(row.loading_heartbeat !== null ? { loadingHeartbeat: row.loading_heartbeat } : {}),
});

export async function listFeeds(db: Sql): Promise<StoredFeed[]> {
  return (await db.all<FeedRow>(`SELECT ${FEED_COLUMNS} FROM advisory_feeds ORDER BY name`)).map(toFeed);
}

export async function getFeed(db: Sql, name: string): Promise<StoredFeed | undefined> {
  const row = await db.get<FeedRow>(`SELECT ${FEED_COLUMNS} FROM advisory_feeds WHERE name = ?`, [name]);
  return row ? toFeed(row) : undefined;
}

/** Generation and record count per feed, for a consistent query (missing feeds are empty). */
export async function feedGenerations(
  db: Sql,
  names: readonly string[],
): Promise<Map<string, { generation: number; recordCount: number }>> {
  const result = new Map(names.map((name) => [name, { generation: 0, recordCount: 0 }]));
  if (names.length === 0) return result;
  const rows = await db.all<{ name: string; generation: number; record_count: number }>(
    `SELECT name, generation, record_count FROM advisory_feeds WHERE name IN (${names.map(() => '?').join(', ')})`,
    [...names],
  );
  for (const row of rows) result.set(row.name, { generation: row.generation, recordCount: row.record_count });
  return result;
}

export async function ensureFeed(db: Sql, name: string, description: string, adapter: string): Promise<void> {
  await db.run(
    `INSERT INTO advisory_feeds (name, description, adapter, generation, record_count) VALUES (?, ?, ?, 0, 0)
     ON CONFLICT (name) DO NOTHING`,
    [name, description, adapter],
  );
}

/** Keeps the lock of the load writing `generation` alive; false when another load took it over. */
export async function heartbeat(db: Sql, name: string, generation: number, now = Date.now()): Promise<boolean> {
  const { changes } = await db.run(
    `UPDATE advisory_feeds SET loading_heartbeat = ? WHERE name = ? AND loading_generation = ?`,
    [now, name, generation],
  );
  return changes === 1;
}

export async function setSyncValidators(
  db: Sql,
  name: string,
  etag: string | undefined,
  lastModified: string | undefined,
): Promise<void> {
  await db.run(`UPDATE advisory_feeds SET etag = ?, last_modified = ? WHERE name = ?`, [
    etag ?? null,
    lastModified ?? null,
    name,
  ]);
}
