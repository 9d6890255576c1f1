import type { DatabaseConfig } from '../config.js';
import type { BreakerStatus } from './pg-breaker.js';

export type Engine = 'sqlite' | 'postgres';
export type SqlValue = string | number | bigint | null | Buffer;

/** The statements both engines understand. SQL uses `?` placeholders; the PostgreSQL adapter numbers them. */
export interface Sql {
  readonly engine: Engine;
  all<T>(sql: string, params?: SqlValue[]): Promise<T[]>;
  /** The rows as arrays in column order: for reads of many rows, where an object per row costs twice the time. */
  arrays<T extends unknown[]>(sql: string, params?: SqlValue[]): Promise<T[]>;
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
  /**
   * PostgreSQL only: over a connection of its own, calls `handlers.notified` for each notification
   * on `channel` whose payload is this database's schema (see `announce`), and `handlers.lost`
   * once if that connection fails (nothing is delivered after it: listen again).
   */
  listen?(channel: string, handlers: ListenHandlers): Promise<Listening>;
  /** PostgreSQL only: whether its breaker is open (the database stopped answering) and since when. */
  breakerStatus?(): BreakerStatus;
  /** PostgreSQL only: calls `listener` whenever the breaker opens or closes. */
  onBreakerChange?(listener: (status: BreakerStatus) => void): void;
}

export interface ListenHandlers {
  notified(): void;
  lost(error: Error): void;
}

export interface Listening {
  close(): Promise<void>;
}

/**
 * Within a transaction on PostgreSQL: notifies the listeners of `channel` in this schema when the
 * transaction commits (never if it rolls back). Nothing on SQLite.
 */
export async function announce(tx: Sql, channel: string): Promise<void> {
  if (tx.engine === 'postgres') await tx.run(`SELECT pg_notify(?, current_schema())`, [channel]);
}

export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.engine === 'sqlite') {
    const { openSqlite } = await import('./sqlite.js');
    return openSqlite(config.file);
  }
  const { openPostgres } = await import('./postgres.js');
  return openPostgres(config.url, { schema: config.schema, timeouts: config.timeouts });
}
