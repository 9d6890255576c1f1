/**
 * The periodic jobs among two `serve` processes on one database: exactly one holds the job lock,
 * and when it is killed (SIGKILL: no cleanup) the other takes the jobs within 30 s, the bound the
 * deployment promises. The database itself says who holds the lock: PostgreSQL's lock table, or
 * SQLite's lease row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../../src/config.js';
import { createStorage, getSetting, type Storage } from '../../src/storage/index.js';
import { engineCases, POSTGRES_URL } from '../support/engines.js';
import { startServe, type ServeInstance, until } from '../support/instances.js';

const HOLDS = 'this instance holds the job lock';
const TAKEOVER_BOUND_MS = 30_000;

function databaseUrl(config: DatabaseConfig): string {
  if (config.engine === 'sqlite') return config.file;
  const url = new URL(config.url);
  if (config.schema) url.searchParams.set('schema', config.schema);
  return url.toString();
}

describe.each(engineCases())('the periodic jobs when their instance dies ($name)', (engine) => {
  let dir: string;
  let drop: () => Promise<void>;
  let config: DatabaseConfig;
  let storage: Storage;
  let admin: pg.Client | undefined;
  const instances: ServeInstance[] = [];

  /** The pid of the serve process the database names as the holder of the job lock. */
  const holderInDatabase = async (): Promise<number | undefined> => {
    if (config.engine === 'sqlite') {
      const lease = await getSetting(storage.db, 'job_lease');
      if (!lease) return undefined;
      const { holder, until: expires } = JSON.parse(lease) as { holder: string; until: number };
      return expires > Date.now() ? Number(holder.split(':').at(-1)) : undefined;
    }
    const rows = await admin!.query<{ application_name: string }>(
      `SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE 'vulnscope-jobs %'
         AND l.classid = hashtext('vulnscope:jobs')::oid AND l.objid = hashtext($1)::oid`,
      [(config as { schema: string }).schema],
    );
    expect(rows.rows.length).toBeLessThanOrEqual(1);
    return rows.rows[0] ? Number(rows.rows[0].application_name.split(':').at(-1)) : undefined;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-takeover-'));
    const database = await engine.fresh();
    drop = database.drop;
    config = database.config;
    storage = await createStorage(config);
    if (config.engine === 'postgres') {
      admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
    }
    const env = {
      VULNSCOPE_DATABASE_URL: databaseUrl(config),
      VULNSCOPE_RETENTION_DAYS: '0',
      VULNSCOPE_BACKUP_DIR: path.join(dir, 'backups'),
    };
    instances.push(await startServe(env));
    instances.push(await startServe(env));
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await admin?.end();
    await storage?.close();
    await drop?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('one instance runs them; kill -9 it and the other takes them within 30 s', async () => {
    const holder = await until(
      async () => instances.find((instance) => instance.output().includes(HOLDS)),
      15_000,
      'an instance takes the job lock',
    );
    const other = instances.find((instance) => instance !== holder)!;
    expect(await holderInDatabase()).toBe(holder.pid);
    // The other keeps trying (every 5 s) and keeps being refused.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(other.output()).not.toContain(HOLDS);
    expect(await holderInDatabase()).toBe(holder.pid);

    const killedAt = Date.now();
    await holder.kill();
    await until(async () => other.output().includes(HOLDS), TAKEOVER_BOUND_MS + 10_000, 'the other takes over');
    const takeoverMs = Date.now() - killedAt;
    console.info(`${engine.name}: the jobs moved to the surviving instance ${takeoverMs} ms after kill -9`);
    expect(takeoverMs).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
    expect(await holderInDatabase()).toBe(other.pid);
    // The survivor serves throughout.
    expect((await fetch(`${other.url}/healthz`)).status).toBe(200);
  });
});
