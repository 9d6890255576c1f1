import type { DatabaseConfig } from '../config.js';
import type { Database } from './database.js';

/**
 * The right to run a deployment's periodic jobs (expiry sweep, backup archiving, re-mapping),
 * held by one server process at a time among every instance on one database.
 */
export interface JobLock {
  /**
   * Takes the lock when it is free, or confirms that this holder still has it. False when another
   * process holds it; throws when the database cannot be asked (the lock then counts as lost).
   */
  claim(): Promise<boolean>;
  /** Gives the lock up (if held) and closes what it holds open. */
  release(): Promise<void>;
}

/** How long an unrenewed SQLite lease lasts; PostgreSQL's lock lasts as long as its connection. */
export const JOB_LEASE_MS = 15_000;

export async function openJobLock(config: DatabaseConfig, db: Database, holder: string): Promise<JobLock> {
  if (config.engine === 'sqlite') {
    const { SqliteJobLease } = await import('./job-lock-lease.js');
    return new SqliteJobLease(db, holder, JOB_LEASE_MS);
  }
  const { PostgresJobLock } = await import('./job-lock-postgres.js');
  return new PostgresJobLock(config.url, config.schema, holder);
}
