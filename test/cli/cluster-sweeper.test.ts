import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, spawnCli } from '../support/cli.js';

/** The job lease's holder (`host:pid`) as the SQLite settings table holds it. */
function leaseHolderPid(file: string): number | undefined {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare(`SELECT value FROM settings WHERE key = 'job_lease'`).get() as { value: string } | undefined;
    if (!row) return undefined;
    const { holder, until } = JSON.parse(row.value) as { holder: string; until: number };
    return until > Date.now() ? Number(holder.split(':').pop()) : undefined;
  } finally {
    db.close();
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(what: string, read: () => T | undefined, withinMs: number): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('serve --workers 2: the worker running the background work is replaced with its role', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-cluster-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a replacement of the job-holding worker takes the job lease again', async () => {
    const file = path.join(dir, 'cluster.db');
    const port = await freePort();
    const server = spawnCli(['serve', '--workers', '2'], {
      VULNSCOPE_DATABASE_URL: file,
      VULNSCOPE_PORT: String(port),
      VULNSCOPE_RETENTION_DAYS: '0',
      VULNSCOPE_BACKUP_INTERVAL: '0',
      VULNSCOPE_LOG_LEVEL: 'error',
    });
    // A pipe nobody reads fills up and blocks the server's writes.
    server.stdout!.resume();
    server.stderr!.resume();
    try {
      await until('the cluster answers', () => (fs.existsSync(file) ? leaseHolderPid(file) : undefined), 60_000);
      const first = leaseHolderPid(file)!;
      expect(alive(first)).toBe(true);
      process.kill(first, 'SIGKILL');
      // The lease (15 s) runs out; only a worker given the role contends for it.
      const next = await until(
        'another worker holds the lease',
        () => {
          const pid = leaseHolderPid(file);
          return pid !== undefined && pid !== first && alive(pid) ? pid : undefined;
        },
        60_000,
      );
      expect(next).not.toBe(first);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  }, 150_000);
});
