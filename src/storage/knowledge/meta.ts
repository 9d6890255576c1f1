/**
 * Knowledge bookkeeping in `knowledge_meta`: the generation counter (moves on every change, so
 * matchers can drop their caches) and, per advisory feed, the feed generation knowledge was last
 * refreshed from. Every knowledge writer locks the generation row first, so writers (several
 * processes on one PostgreSQL) run one after another and each reads the records committed before it.
 */
import type { Sql } from '../database.js';

const GENERATION = 'generation';
const synced = (feed: string) => `synced:${feed}`;

/** Serialises knowledge writers (SQLite transactions already are: BEGIN IMMEDIATE). */
export async function lockKnowledge(tx: Sql): Promise<void> {
  if (tx.engine === 'postgres')
    await tx.get(`SELECT value FROM knowledge_meta WHERE name = ? FOR UPDATE`, [GENERATION]);
}

export async function bumpGeneration(tx: Sql): Promise<void> {
  await tx.run(`UPDATE knowledge_meta SET value = value + 1 WHERE name = ?`, [GENERATION]);
}

export async function knowledgeGeneration(db: Sql): Promise<number> {
  const row = await db.get<{ value: number }>(`SELECT value FROM knowledge_meta WHERE name = ?`, [GENERATION]);
  return Number(row?.value ?? 0);
}

/** The feed generation knowledge was last refreshed from (0: never). */
export async function syncedGeneration(db: Sql, feed: string): Promise<number> {
  const row = await db.get<{ value: number }>(`SELECT value FROM knowledge_meta WHERE name = ?`, [synced(feed)]);
  return Number(row?.value ?? 0);
}

/** Records that knowledge reflects `generation` of `feed` (never moves backwards). */
export async function setSyncedGeneration(db: Sql, feed: string, generation: number): Promise<void> {
  await db.run(
    `INSERT INTO knowledge_meta (name, value) VALUES (?, ?)
     ON CONFLICT (name) DO UPDATE SET value = CASE WHEN excluded.value > knowledge_meta.value THEN excluded.value ELSE knowledge_meta.value END`,
    [synced(feed), generation],
  );
}
