/**
 * The job lock among instances on one database: one holder at a time, renewed by its holder,
 * taken over when the holder's connection dies (PostgreSQL) or its lease runs out (SQLite); and
 * the leadership that starts the periodic jobs on the holder and stops them when it loses the lock.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { JobLeadership } from '../../src/server/job-leadership.js';
import { createStorage, type JobLock, type Storage } from '../../src/storage/index.js';
import { SqliteJobLease } from '../../src/storage/job-lock-lease.js';
import { engineCases, POSTGRES_URL, sqliteCase } from '../support/engines.js';

async function until(condition: () => boolean, withinMs: number): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > withinMs) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(engineCases())('the job lock ($name)', (engine) => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
    cleanup.length = 0;
  });

  /** Two storages on one database, as two instances would open it. */
  async function twoInstances(): Promise<[Storage, Storage]> {
    const database = await engine.fresh();
    cleanup.push(database.drop);
    const first = await createStorage(database.config);
    cleanup.push(() => first.close());
    const second = await createStorage(database.config);
    cleanup.push(() => second.close());
    return [first, second];
  }

  async function lockOf(storage: Storage, holder: string): Promise<JobLock> {
    const lock = await storage.openJobLock(holder);
    cleanup.push(() => lock.release());
    return lock;
  }

  it('one holder at a time; the holder renews it; a release lets the other take it', async () => {
    const [first, second] = await twoInstances();
    const a = await lockOf(first, 'a');
    const b = await lockOf(second, 'b');
    expect(await a.claim()).toBe(true);
    expect(await b.claim()).toBe(false);
    expect(await a.claim()).toBe(true);
    expect(await b.claim()).toBe(false);
    await a.release();
    expect(await b.claim()).toBe(true);
    expect(await a.claim()).toBe(false);
  });

  it('leadership runs the jobs on exactly one instance and hands them over when its holder stops', async () => {
    const [first, second] = await twoInstances();
    const running = new Set<string>();
    const starts: string[] = [];
    const leadershipOf = async (storage: Storage, name: string) => {
      const leadership = new JobLeadership(await lockOf(storage, name), {}, 50);
      leadership.add({
        name: 'a job',
        start: () => {
          // Two instances running the jobs at once would show here.
          expect([...running]).toEqual([]);
          running.add(name);
          starts.push(name);
        },
        stop: async () => {
          running.delete(name);
        },
      });
      cleanup.push(() => leadership.stop());
      return leadership;
    };
    const a = await leadershipOf(first, 'a');
    const b = await leadershipOf(second, 'b');
    await a.start();
    await b.start();
    expect([a.isLeading(), b.isLeading()]).toEqual([true, false]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(starts).toEqual(['a']);
    await a.stop();
    // Stopped before the lock was released: a's jobs are gone, whoever runs now.
    expect(running.has('a')).toBe(false);
    await until(() => b.isLeading(), 5000);
    expect(starts).toEqual(['a', 'b']);
    expect([...running]).toEqual(['b']);
  });
});

describe('the SQLite lease', () => {
  it('runs out when its holder stops renewing it (a holder killed), and only then', async () => {
    const database = await sqliteCase.fresh();
    const storage = await createStorage(database.config);
    try {
      const a = new SqliteJobLease(storage.db, 'a', 300);
      const b = new SqliteJobLease(storage.db, 'b', 300);
      expect(await a.claim()).toBe(true);
      expect(await b.claim()).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await b.claim()).toBe(true);
      expect(await a.claim()).toBe(false);
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});

describe.runIf(POSTGRES_URL)('the PostgreSQL advisory lock', () => {
  it('goes with its connection: when the holder’s session dies, the other instance takes it', async () => {
    const database = await engineCases()[1]!.fresh();
    const first = await createStorage(database.config);
    const second = await createStorage(database.config);
    const a = await first.openJobLock('holder-a');
    const b = await second.openJobLock('holder-b');
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      expect(await a.claim()).toBe(true);
      expect(await b.claim()).toBe(false);
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = 'vulnscope-jobs holder-a'`,
      );
      expect(killed.rows).toEqual([{ done: true }]);
      // The server releases a terminated session's locks as the session ends.
      let taken = false;
      for (let i = 0; i < 50 && !taken; i++) {
        taken = await b.claim();
        if (!taken) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(taken).toBe(true);
      // The old holder finds its connection gone: the claim fails or is refused, never "still held".
      const again = await a.claim().catch(() => false);
      expect(again).toBe(false);
    } finally {
      await a.release();
      await b.release();
      await admin.end();
      await first.close();
      await second.close();
      await database.drop();
    }
  });
});
