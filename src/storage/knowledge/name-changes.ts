/**
 * `cpe_name_changes`: the ids of the CPE names each knowledge write inserted, updated or removed,
 * in commit order (every writer holds the knowledge lock). A reader re-reads those names to learn
 * their state; the log keeps the newest NAME_LOG_KEEP entries, and a reader further behind rebuilds.
 */
import { announce, type Sql } from '../database.js';
import { chunks, placeholders } from '../advisories/sql-lists.js';
import { KNOWLEDGE_CHANGES_CHANNEL } from './channel.js';
import type { CpeNameChange, CpeNameRow } from './types.js';

/** Entries kept: a reader behind by more rebuilds from cpe_names instead. */
export const NAME_LOG_KEEP = 200_000;
/** Rows per statement when reading names (a synchronous SQLite statement holds the event loop). */
const READ_CHUNK = 1000;

/** Appends the names to the log, in the caller's transaction, and prunes what is past keeping. */
export async function logNameChanges(tx: Sql, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  for (const chunk of chunks(ids)) {
    await tx.run(`INSERT INTO cpe_name_changes (name_id) VALUES ${chunk.map(() => '(?)').join(', ')}`, chunk);
  }
  const newest = await latestNameChange(tx);
  if (newest > NAME_LOG_KEEP) await tx.run(`DELETE FROM cpe_name_changes WHERE seq <= ?`, [newest - NAME_LOG_KEEP]);
  await announce(tx, KNOWLEDGE_CHANGES_CHANNEL);
}

/** The newest log sequence number (0: none). */
export async function latestNameChange(db: Sql): Promise<number> {
  const row = await db.get<{ seq: number | string | null }>(`SELECT MAX(seq) AS seq FROM cpe_name_changes`);
  return Number(row?.seq ?? 0);
}

/** The oldest log sequence number still kept (undefined: the log is empty). */
export async function oldestNameChange(db: Sql): Promise<number | undefined> {
  const row = await db.get<{ seq: number | string | null }>(`SELECT MIN(seq) AS seq FROM cpe_name_changes`);
  return row?.seq === null || row?.seq === undefined ? undefined : Number(row.seq);
}

/** Log entries after `after`, oldest first. */
export async function nameChangesSince(db: Sql, after: number, limit: number): Promise<CpeNameChange[]> {
  const rows = await db.all<{ seq: number | string; name_id: string }>(
    `SELECT seq, name_id FROM cpe_name_changes WHERE seq > ? ORDER BY seq LIMIT ?`,
    [after, limit],
  );
  return rows.map((row) => ({ seq: Number(row.seq), nameId: row.name_id }));
}

const NAME_COLUMNS = 'id, cpe, part, vendor, product, version';

/** The names among `ids` that exist now (any order). */
export async function namesByIds(db: Sql, ids: readonly string[]): Promise<CpeNameRow[]> {
  const rows: CpeNameRow[] = [];
  for (const chunk of chunks([...new Set(ids)], READ_CHUNK)) {
    rows.push(
      ...(await db.all<CpeNameRow>(
        `SELECT ${NAME_COLUMNS} FROM cpe_names WHERE id IN (${placeholders(chunk.length)})`,
        chunk,
      )),
    );
  }
  return rows;
}

/** Names after `after` in id (bytewise) order: a page of a full read. */
export function nameRowPage(db: Sql, after: string | undefined, limit: number): Promise<CpeNameRow[]> {
  return after === undefined
    ? db.all<CpeNameRow>(`SELECT ${NAME_COLUMNS} FROM cpe_names ORDER BY id LIMIT ?`, [limit])
    : db.all<CpeNameRow>(`SELECT ${NAME_COLUMNS} FROM cpe_names WHERE id > ? ORDER BY id LIMIT ?`, [after, limit]);
}
