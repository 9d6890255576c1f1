import { randomBytes } from 'node:crypto';
import type { Sql } from './database.js';

export async function getSetting(db: Sql, key: string): Promise<string | undefined> {
  return (await db.get<{ value: string }>(`SELECT value FROM settings WHERE key = ?`, [key]))?.value;
}

/**
 * The server secret (signs cursors and download URLs): created once, kept in the database, so
 * every instance on the same database shares it. The first writer wins a race.
 */
export async function serverSecret(db: Sql): Promise<string> {
  const existing = await getSetting(db, 'server_secret');
  if (existing) return existing;
  await db.run(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, [
    'server_secret',
    randomBytes(32).toString('base64url'),
  ]);
  return (await getSetting(db, 'server_secret'))!;
}

/** Sets (inserts or replaces) a setting. */
export async function putSetting(db: Sql, key: string, value: string): Promise<void> {
  await db.run(
    `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [key, value],
  );
}

export async function deleteSetting(db: Sql, key: string): Promise<void> {
  await db.run(`DELETE FROM settings WHERE key = ?`, [key]);
}
