/**
 * Two `serve` processes (the built CLI) on one PostgreSQL schema and one Redis, while `ingest`
 * runs beside them: whenever both have applied the database's whole change log, their pages,
 * totals and cursor walks are identical, and a cursor from one continues on the other.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { advisory, loadRecords } from '../advisories/support.js';
import { runCli } from '../support/cli.js';
import { POSTGRES_URL, postgresCase } from '../support/engines.js';
import { startServe, type ServeInstance, until } from '../support/instances.js';

const REDIS_URL = process.env.VULNSCOPE_TEST_REDIS_URL;
const STATUS_TOKEN = 'status-token-of-this-test';
const FILES = 5;
const PER_FILE = 300;

const TARGET_INTEL_PAGES = [
  '/v3/index/target-intel?limit=50',
  '/v3/index/target-intel?port=443&limit=20&page=2',
  '/v3/index/target-intel?cve=CVE-2024-0003&limit=100',
  '/v3/index/target-intel?contains_cve=false&sort=ip&order=asc&limit=100',
  '/v3/index/target-intel?cidr=198.18.1.0/24&sort=port&limit=30&page=3',
];
const ADVISORY_PAGES = ['/v4/advisory?name=alpha&limit=40', '/v4/advisory?name=alpha&limit=40&page=3'];

/** NDJSON observations: several ports, CVEs and networks, some records without a CVE. */
function scanFile(dir: string, n: number): string {
  const lines: string[] = [];
  const now = Date.now();
  for (let i = 0; i < PER_FILE; i++) {
    const k = n * PER_FILE + i;
    lines.push(
      JSON.stringify({
        ip: `198.18.${k % 7}.${(k * 13) % 250}`,
        port: [22, 80, 443, 8080][k % 4],
        protocol: 'tcp',
        timestamp: new Date(now - ((k * 7919) % 86_400_000)).toISOString(),
        fingerprints: [{ cpe: `cpe:2.3:a:example:server${k % 5}:1.${k % 9}:*:*:*:*:*:*:*` }],
        cves: k % 3 === 0 ? [] : [`CVE-2024-000${k % 8}`],
      }),
    );
  }
  const file = path.join(dir, `scan-${n}.ndjson`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** A response without what depends on the moment it was made. */
function stable(body: { _benchmark?: unknown; _meta?: Record<string, unknown> }) {
  const { _benchmark, _meta, ...rest } = body;
  const { timestamp, ...meta } = _meta ?? {};
  return { ...rest, _meta: meta };
}

describe.runIf(POSTGRES_URL)('two serve instances on one PostgreSQL', () => {
  let dir: string;
  let drop: () => Promise<void>;
  let storage: Storage;
  let admin: pg.Client;
  let schema: string;
  let env: Record<string, string>;
  let token: string;
  const instances: ServeInstance[] = [];

  const get = async (instance: ServeInstance, url: string) => {
    const response = await fetch(`${instance.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.json();
    expect(response.status, `${url}: ${JSON.stringify(body)}`).toBe(200);
    return body;
  };

  /** The change-log position an instance's index has applied (the operator route reports it). */
  const positionOf = async (instance: ServeInstance): Promise<number> => {
    const response = await fetch(`${instance.url}/process/status`, {
      headers: { authorization: `Bearer ${STATUS_TOKEN}` },
    });
    const status = await response.json();
    expect(response.status, JSON.stringify(status)).toBe(200);
    return status.index.change_seq;
  };

  const databasePosition = async (): Promise<number> =>
    Number((await admin.query(`SELECT COALESCE(MAX(seq), 0) AS seq FROM ${schema}.host_changes`)).rows[0].seq);

  /** Whether both instances have applied the database's whole change log (and at which position). */
  const caughtUp = async (): Promise<number | undefined> => {
    const [inDatabase, a, b] = await Promise.all([
      databasePosition(),
      positionOf(instances[0]!),
      positionOf(instances[1]!),
    ]);
    return a === inDatabase && b === inDatabase ? inDatabase : undefined;
  };

  /**
   * The pages of both instances at one change-log position: read only when both have caught up,
   * and kept only when nothing was committed while they were read. Undefined when ingest moved on.
   */
  const pagesAtOnePosition = async (urls: string[]) => {
    const before = await caughtUp();
    if (before === undefined) return undefined;
    const [a, b] = await Promise.all(instances.map((instance) => Promise.all(urls.map((url) => get(instance, url)))));
    if ((await caughtUp()) !== before) return undefined;
    return { position: before, a: a!.map(stable), b: b!.map(stable) };
  };

  /** A cursor walk whose pages come from the given instances in turn. */
  const walk = async (start: string, turns: ServeInstance[]) => {
    const records: unknown[] = [];
    let body = await get(turns[0]!, start);
    records.push(...body.data);
    for (let page = 1; body._meta.next_cursor; page++) {
      body = await get(
        turns[page % turns.length]!,
        `${start.split('?')[0]}?cursor=${encodeURIComponent(body._meta.next_cursor)}`,
      );
      records.push(...body.data);
    }
    return records;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-instances-'));
    const database = await postgresCase.fresh();
    drop = database.drop;
    schema = (database.config as { schema: string }).schema;
    storage = await createStorage(database.config);
    token = (await storage.tokens.create('instances')).token;
    await loadRecords(
      storage,
      'alpha',
      Array.from({ length: 150 }, (_, i) => advisory(`CVE-2023-${String(10_000 + i)}`)),
    );
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    const url = new URL(POSTGRES_URL!);
    url.searchParams.set('schema', schema);
    env = {
      VULNSCOPE_DATABASE_URL: url.toString(),
      VULNSCOPE_STATUS_TOKEN: STATUS_TOKEN,
      VULNSCOPE_RETENTION_DAYS: '0',
      VULNSCOPE_BACKUP_DIR: path.join(dir, 'backups'),
      VULNSCOPE_RATE_LIMIT: '100000/1h',
      ...(REDIS_URL ? { VULNSCOPE_REDIS_URL: REDIS_URL } : {}),
    };
    // One after the other: the first start creates the schema's tables.
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

  it('answer identically at each common change-log position while ingest runs', async () => {
    const files = Array.from({ length: FILES }, (_, n) => scanFile(dir, n));
    let ingesting = true;
    const ingest = (async () => {
      try {
        for (const file of files) {
          const result = await runCli(['ingest', 'scans', file], env);
          expect(result.code, result.stderr).toBe(0);
        }
      } finally {
        ingesting = false;
      }
    })();
    const positions = new Set<number>();
    let attempts = 0;
    while (ingesting) {
      attempts++;
      const pages = await pagesAtOnePosition(TARGET_INTEL_PAGES);
      if (pages) {
        expect(pages.b).toEqual(pages.a);
        positions.add(pages.position);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await ingest;
    const final = await until(caughtUp, 30_000, 'both instances caught up');
    const pages = await pagesAtOnePosition([...TARGET_INTEL_PAGES, ...ADVISORY_PAGES]);
    expect(pages).toBeDefined();
    expect(pages!.b).toEqual(pages!.a);
    positions.add(final);
    console.info(
      `two instances: ${attempts} comparison attempts during ingest, identical at ${positions.size} change-log positions`,
    );
    // The ingest is several commits apart: at least one comparison fell between two of them.
    expect(positions.size).toBeGreaterThanOrEqual(2);
    const all = pages!.a[0] as { _meta: { total_documents: number } };
    expect(all._meta.total_documents).toBeGreaterThan(PER_FILE);
  });

  it('walk the same records with cursors, and a cursor from one continues on the other', async () => {
    await until(caughtUp, 30_000, 'both instances caught up');
    const [a, b] = instances as [ServeInstance, ServeInstance];
    for (const start of [
      '/v3/index/target-intel?start_cursor=true&limit=97',
      '/v3/index/target-intel?start_cursor=true&port=80&sort=ip&order=asc&limit=31',
      '/v4/advisory?name=alpha&start_cursor=true&limit=23',
    ]) {
      const onA = await walk(start, [a]);
      const onB = await walk(start, [b]);
      const alternating = await walk(start, [a, b]);
      const startedOnB = await walk(start, [b, a]);
      expect(onA.length).toBeGreaterThan(0);
      expect(onB).toEqual(onA);
      expect(alternating).toEqual(onA);
      expect(startedOnB).toEqual(onA);
      expect(new Set(onA.map((record) => JSON.stringify(record))).size).toBe(onA.length);
      const meta = (await get(a, start.replace('start_cursor=true&', '')))._meta;
      // target-intel counts `total_documents`, /v4/advisory `filtered`.
      expect(onA.length).toBe(meta.total_documents ?? meta.filtered);
    }
  });
});
