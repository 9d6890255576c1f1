import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassificationResolver } from '../../src/ingest/classifications/resolver.js';
import { prepare } from '../../src/ingest/pipeline.js';
import { IndexSync } from '../../src/search/index-sync.js';
import { applyBatch } from '../../src/storage/host-upsert.js';
import type { HostWrite } from '../../src/core/host-record.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { observation } from '../support/app.js';
import { postgresCase, POSTGRES_URL, sqliteCase } from '../support/engines.js';

const classifier = new ClassificationResolver([]);
const record = (n: number): HostWrite =>
  prepare(observation({ ip: `198.51.100.${n}`, port: 443, timestamp: Date.now() }), { classifier });

/** A writer that skips the convention every real writer follows: it logs the change but never announces the commit. */
const writeSilently = (storage: Storage, write: HostWrite) =>
  storage.db.transaction((tx) => applyBatch(tx, [write], Date.now()));

async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.skipIf(!POSTGRES_URL)('change-log commits announced to a listening index on postgres', () => {
  let drop: () => Promise<void>;
  let server: Storage;
  let writer: Storage;
  let sync: IndexSync;
  const errors: unknown[] = [];

  beforeAll(async () => {
    const database = await postgresCase.fresh();
    drop = database.drop;
    server = await createStorage(database.config);
    // Another connection pool on the same schema: what another process (an ingest) writes through.
    writer = await createStorage(database.config);
    sync = new IndexSync(server.hosts);
    await sync.build();
    await sync.listen((error) => errors.push(error), 50);
  });

  afterAll(async () => {
    await sync?.stop();
    await writer?.close();
    await server?.close();
    await drop?.();
  });

  it('reads the log before a query only after a commit was announced', async () => {
    expect(sync.status().listening).toBe(true);
    await sync.catchUp();
    await writeSilently(writer, record(1));
    // Nothing was announced: the query is answered without asking the log.
    await sync.catchUp();
    expect(sync.index.size).toBe(0);
    await writer.hosts.upsertBatch([record(2)]);
    // The announcement arrives on its own connection, shortly after the commit.
    await until(async () => {
      await sync.catchUp();
      return sync.index.size === 2;
    }, 'the announced commit');
    expect(errors).toEqual([]);
  });

  it('reads the log before every query while the listening connection is lost, and listens again', async () => {
    // Its own index, retrying after 1.5 s: long enough to query it while it is not listening.
    const lossy = new IndexSync(server.hosts);
    const lost: unknown[] = [];
    await lossy.build();
    await lossy.listen((error) => lost.push(error), 1500);
    try {
      await lossy.catchUp();
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        // Every listener on the channel (the other index, or another suite's, listens again the same way).
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN "vulnscope_host_changes"'`,
        );
      } finally {
        await admin.end();
      }
      await until(() => lost.length > 0, 'the lost connection to be noticed');
      expect(lossy.status().listening).toBe(false);
      const before = lossy.index.size;
      await writeSilently(writer, record(3));
      await lossy.catchUp();
      expect(lossy.index.size).toBe(before + 1);

      await until(() => lossy.status().listening, 'listening again');
      // What was committed before listening resumed is read by the next query.
      await writeSilently(writer, record(4));
      await lossy.catchUp();
      expect(lossy.index.size).toBe(before + 2);
      await writer.hosts.upsertBatch([record(5)]);
      await until(async () => {
        await lossy.catchUp();
        return lossy.index.size === before + 3;
      }, 'the commit announced after listening resumed');
    } finally {
      await lossy.stop();
    }
  });
});

describe('no announcements on sqlite', () => {
  it('reads the log before every query', async () => {
    const database = await sqliteCase.fresh();
    const storage = await createStorage(database.config);
    const sync = new IndexSync(storage.hosts);
    try {
      await sync.build();
      await sync.listen((error) => {
        throw error;
      });
      expect(sync.status().listening).toBe(false);
      await writeSilently(storage, record(1));
      await sync.catchUp();
      expect(sync.index.size).toBe(1);
    } finally {
      await sync.stop();
      await storage.close();
      await database.drop();
    }
  });
});
