import fs from 'node:fs';
import { confirmingMatcher } from '../../src/services/matching/source.js';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation, ReadItem } from '../../src/core/observation.js';
import { ClassificationResolver } from '../../src/ingest/classifications/resolver.js';
import { runIngest, type IngestSummary } from '../../src/ingest/pipeline.js';
import type { HostBatchWriter } from '../../src/storage/host-writer.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { POSTGRES_URL, postgresCase } from '../support/engines.js';

// The thread writer runs only from the built code (its worker module is a .js file), so these
// tests drive dist/ — built by the global setup — and compare it with the in-process writer of src/.
const DIST = new URL('../../dist/', import.meta.url);
type Built = {
  createStorage: typeof createStorage;
  runIngest: typeof runIngest;
  ClassificationResolver: typeof ClassificationResolver;
};
let built: Built;
let dir: string;

beforeAll(async () => {
  built = {
    ...(await import(new URL('storage/index.js', DIST).href)),
    ...(await import(new URL('ingest/pipeline.js', DIST).href)),
    ...(await import(new URL('ingest/classifications/resolver.js', DIST).href)),
  } as Built;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-writer-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Few ports, few fingerprints, shuffled times: the same keys recur across batch boundaries, newer and older, and fingerprints supersede each other. */
function observations(count: number, seed: number): Observation[] {
  let state = seed;
  const random = (n: number) => {
    // mulberry32
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
  const products = [undefined, 'nginx:1.18.0', 'nginx:1.20.1', 'openssh:8.2p1', 'tomcat:9.0.1'];
  const start = Date.UTC(2026, 10, 1);
  return Array.from({ length: count }, () => {
    const product = products[random(products.length)];
    const [name, version] = product?.split(':') ?? [];
    return {
      ip: `198.51.100.${random(200)}`,
      port: [22, 80, 443][random(3)]!,
      protocol: 'tcp',
      hostnames: random(2) ? [`h${random(5)}.example`] : [],
      timestamp: start + random(10_000) * 60_000,
      fingerprints: name
        ? [{ vendor: 'v', product: name, version, cpe: `cpe:2.3:a:v:${name}:${version}:*:*:*:*:*:*:*` }]
        : [],
      osCpes: [],
      cves: random(4) === 0 ? [`CVE-2024-${1000 + random(20)}`] : [],
      classifications: [],
    } satisfies Observation;
  });
}

async function* itemsOf(list: Observation[]): AsyncGenerator<ReadItem> {
  for (const [i, observation] of list.entries())
    yield { kind: 'observation', observation, at: { file: 'gen', line: i + 1 } };
}

const RECORD_COLUMNS = `ip, ip_key, port, protocol, fp_key, date_added, hostname, observed_at, fingerprints, scanner_cves, cves, classifications`;
function recordsOf(file: string): unknown[] {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return db.prepare(`SELECT ${RECORD_COLUMNS} FROM hosts ORDER BY ip_key, port, protocol, fp_key`).all();
  } finally {
    db.close();
  }
}

async function ingestWith(
  create: typeof createStorage,
  ingest: typeof runIngest,
  resolver: typeof ClassificationResolver,
  file: string,
  list: Observation[],
) {
  const storage: Storage = await create({ engine: 'sqlite', file });
  let writer: HostBatchWriter | undefined;
  const open = storage.openHostWriter.bind(storage);
  storage.openHostWriter = () => (writer = open());
  try {
    const summary = await ingest(
      storage,
      itemsOf(list),
      { classifier: new resolver([]), matcher: confirmingMatcher(storage) },
      { retentionDays: 0, batchSize: 50 },
    );
    return { summary, batchesInThread: writer!.batchesInThread };
  } finally {
    await storage.close();
  }
}

const counts = ({ read, inserted, updated, unchanged, superseded }: IngestSummary) => ({
  read,
  inserted,
  updated,
  unchanged,
  superseded,
});

describe('SQLite ingest through the writer thread', () => {
  it.each([1, 2, 3])(
    'stores exactly what the in-process writer stores, rule outcomes across batch boundaries included (seed %i)',
    async (seed) => {
      const list = observations(3000, seed);
      const threaded = await ingestWith(
        built.createStorage,
        built.runIngest,
        built.ClassificationResolver,
        path.join(dir, `thread-${seed}.db`),
        list,
      );
      const inProcess = await ingestWith(
        createStorage,
        runIngest,
        ClassificationResolver,
        path.join(dir, `process-${seed}.db`),
        list,
      );
      expect(threaded.batchesInThread).toBe(59);
      expect(inProcess.batchesInThread).toBe(0);
      expect(counts(threaded.summary)).toEqual(counts(inProcess.summary));
      expect(threaded.summary.superseded).toBeGreaterThan(0);
      expect(threaded.summary.unchanged).toBeGreaterThan(0);
      const records = recordsOf(path.join(dir, `thread-${seed}.db`));
      expect(records.length).toBeGreaterThan(200);
      expect(records).toEqual(recordsOf(path.join(dir, `process-${seed}.db`)));
    },
  );

  it('rejects the batch that failed in the thread and every later one, and still closes', async () => {
    const file = path.join(dir, 'failing.db');
    const storage = await built.createStorage({ engine: 'sqlite', file });
    const writer = storage.openHostWriter();
    const writes = (await import(new URL('ingest/pipeline.js', DIST).href)) as {
      prepare: typeof import('../../src/ingest/pipeline.js').prepare;
    };
    const classifier = new built.ClassificationResolver([]);
    const batch = observations(10, 7).map((o) => writes.prepare(o, { classifier }));
    await expect(writer.write(batch)).resolves.toMatchObject({ inserted: expect.any(Number) });
    const other = new BetterSqlite3(file);
    other.exec('DROP TABLE host_changes');
    other.close();
    const newer = batch.map((write) => ({ ...write, observedAt: write.observedAt + 1 }));
    await expect(writer.write(newer)).rejects.toThrow(/host_changes/);
    await expect(writer.write(newer)).rejects.toThrow(/host_changes/);
    expect(writer.batchesInThread).toBe(2);
    await writer.close();
    await storage.close();
  });
});

describe.skipIf(!POSTGRES_URL)('PostgreSQL ingest with batches handed over before the previous one committed', () => {
  it('commits them in input order: the same records as SQLite', async () => {
    const list = observations(3000, 4);
    const { config, drop } = await postgresCase.fresh();
    const storage = await createStorage(config);
    try {
      const summary = await runIngest(
        storage,
        itemsOf(list),
        { classifier: new ClassificationResolver([]), matcher: confirmingMatcher(storage) },
        { retentionDays: 0, batchSize: 50 },
      );
      const reference = await ingestWith(
        createStorage,
        runIngest,
        ClassificationResolver,
        path.join(dir, 'reference.db'),
        list,
      );
      expect(counts(summary)).toEqual(counts(reference.summary));
      const rows = await storage.db.all(`SELECT ${RECORD_COLUMNS} FROM hosts ORDER BY ip_key, port, protocol, fp_key`);
      expect(rows.map((row) => ({ ...(row as object) }))).toEqual(recordsOf(path.join(dir, 'reference.db')));
    } finally {
      await storage.close();
      await drop();
    }
  });
});
