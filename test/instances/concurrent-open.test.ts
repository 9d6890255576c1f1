import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createStorage } from '../../src/storage/index.js';
import { POSTGRES_URL } from '../support/engines.js';

/** Instances started together on a new database schema: each opens it, none fails on the race. */
describe.runIf(POSTGRES_URL)('opening one new PostgreSQL schema from several processes at once', () => {
  it('creates and migrates it once; every opener gets a working storage', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const config = { engine: 'postgres' as const, url: POSTGRES_URL!, schema };
    try {
      const opened = await Promise.allSettled(Array.from({ length: 6 }, () => createStorage(config)));
      const failures = opened.filter((result) => result.status === 'rejected').map((result) => String(result.reason));
      expect(failures).toEqual([]);
      for (const result of opened) {
        if (result.status !== 'fulfilled') continue;
        expect(await result.value.hosts.count()).toBe(0);
        await result.value.close();
      }
    } finally {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  });
});
