import type { Sql } from './database.js';
import type { JobLock } from './job-lock.js';

const KEY = 'job_lease';

/**
 * SQLite (one file, on one machine): the lock is a lease in the settings table that its holder
 * renews on every claim and that anyone may take once it has run out, so a holder that died
 * (kill -9 included) gives it up after at most `leaseMs`. One statement takes or renews it, so
 * two processes never both succeed.
 */
export class SqliteJobLease implements JobLock {
  constructor(
    private readonly db: Sql,
    private readonly holder: string,
    private readonly leaseMs: number,
  ) {}

  async claim(): Promise<boolean> {
    const now = Date.now();
    const { changes } = await this.db.run(
      `INSERT INTO settings (key, value) VALUES (?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value
       WHERE json_extract(settings.value, '$.until') < ? OR json_extract(settings.value, '$.holder') = ?`,
      [KEY, JSON.stringify({ holder: this.holder, until: now + this.leaseMs }), now, this.holder],
    );
    return changes === 1;
  }

  async release(): Promise<void> {
    await this.db.run(`DELETE FROM settings WHERE key = ? AND json_extract(value, '$.holder') = ?`, [KEY, this.holder]);
  }
}
