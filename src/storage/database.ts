import type { DatabaseConfig } from '../config.js';

export type Engine = 'sqlite' | 'postgres';
export type SqlValue = string | number | bigint | null | Buffer;

/** The statements both engines understand. SQL uses `?` placeholders; the PostgreSQL adapter numbers them. */
export interface Sql {
  readonly engine: Engine;
  all<T>(sql: string, params?: SqlValue[]): Promise<T[]>;
  get<T>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: SqlValue[]): Promise<{ changes: number }>;
}

export interface Database extends Sql {
  /** Runs `fn` in one transaction; concurrent statements from elsewhere wait (SQLite) or use other connections (PostgreSQL). */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** Throws when the storage cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Human-readable location without credentials, for logs and /healthz. */
  readonly description: string;
}

export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.engine === 'sqlite') {
    const { openSqlite } = await import('./sqlite.js');
    return openSqlite(config.file);
  }
  const { openPostgres } = await import('./postgres.js');
  return openPostgres(config.url, config.schema);
}
