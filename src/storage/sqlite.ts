import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database, Sql, SqlValue } from './database.js';

/**
 * SQLite through better-sqlite3 (synchronous). A transaction holds a lock so that statements
 * issued by other async callers meanwhile do not slip into it.
 */
export function openSqlite(file: string): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Checkpoints every 40 MiB of WAL instead of 4 MiB: index pages written again between two checkpoints are copied once.
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  // Raw (array-row) statements are cached apart: the mode is a property of the prepared statement.
  const statements = new Map<string, BetterSqlite3.Statement>();
  const rawStatements = new Map<string, BetterSqlite3.Statement>();
  const prepare = (sql: string, raw = false) => {
    const cache = raw ? rawStatements : statements;
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (raw) statement.raw(true);
      cache.set(sql, statement);
    }
    return statement;
  };
  const direct: Sql = {
    engine: 'sqlite',
    async all<T>(sql: string, params: SqlValue[] = []) {
      return prepare(sql).all(...params) as T[];
    },
    async arrays<T extends unknown[]>(sql: string, params: SqlValue[] = []) {
      return prepare(sql, true).all(...params) as T[];
    },
    async get<T>(sql: string, params: SqlValue[] = []) {
      return prepare(sql).get(...params) as T | undefined;
    },
    async run(sql: string, params: SqlValue[] = []) {
      const statement = prepare(sql);
      if (!statement.reader) return { changes: statement.run(...params).changes };
      statement.all(...params);
      return { changes: 0 };
    },
  };
  let lock: Promise<void> = Promise.resolve();
  let locked = false;
  const waitForLock = async () => {
    while (locked) await lock;
  };
  return {
    engine: 'sqlite',
    description: `sqlite:${file}`,
    async all(sql, params) {
      await waitForLock();
      return direct.all(sql, params);
    },
    async arrays(sql, params) {
      await waitForLock();
      return direct.arrays(sql, params);
    },
    async get(sql, params) {
      await waitForLock();
      return direct.get(sql, params);
    },
    async run(sql, params) {
      await waitForLock();
      return direct.run(sql, params);
    },
    async transaction(fn) {
      await waitForLock();
      locked = true;
      let release!: () => void;
      lock = new Promise((resolve) => (release = resolve));
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(direct);
        db.exec('COMMIT');
        return result;
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      } finally {
        locked = false;
        release();
      }
    },
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      statements.clear();
      if (db.open) db.close();
    },
  };
}
