import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config.js';

/**
 * The engines every storage and API test runs on. PostgreSQL runs when
 * VULNSCOPE_TEST_DATABASE_URL is set; otherwise those tests are skipped with a notice.
 */
export const POSTGRES_URL = process.env.VULNSCOPE_TEST_DATABASE_URL;

export interface EngineCase {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty database of this engine (a temp file, or a new schema). */
  fresh(): Promise<{ config: DatabaseConfig; drop(): Promise<void> }>;
}

let noticeShown = false;
function skipNotice() {
  if (!POSTGRES_URL && !noticeShown) {
    noticeShown = true;
    console.warn('NOTICE: VULNSCOPE_TEST_DATABASE_URL is not set: PostgreSQL tests are skipped.');
  }
}

export const sqliteCase: EngineCase = {
  name: 'sqlite',
  async fresh() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-test-'));
    return {
      config: { engine: 'sqlite', file: path.join(dir, 'test.db') },
      async drop() {
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const postgresCase: EngineCase = {
  name: 'postgres',
  async fresh() {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    return {
      config: { engine: 'postgres', url: POSTGRES_URL!, schema },
      async drop() {
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        } finally {
          await client.end();
        }
      },
    };
  },
};

/** Cases to run: SQLite always, PostgreSQL when configured. Use with describe.each. */
export function engineCases(): EngineCase[] {
  skipNotice();
  return POSTGRES_URL ? [sqliteCase, postgresCase] : [sqliteCase];
}
