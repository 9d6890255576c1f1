import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Observation } from '../../src/core/observation.js';
import { SeededRandom } from '../../src/ingest/demo/random.js';
import type { PageRequest } from '../../src/search/host-query.js';
import { IndexSync } from '../../src/search/index-sync.js';
import { hostIndexSnapshot } from '../../src/search/snapshot/settings.js';
import { startServer } from '../../src/server/main.js';
import { parseHostQuery, typedFilters } from '../../src/server/routes/target-intel/query.js';
import { createStorage } from '../../src/storage/index.js';
import { ClassificationResolver } from '../../src/ingest/classifications/resolver.js';
import { runIngest } from '../../src/ingest/pipeline.js';
import { confirmingMatcher } from '../../src/services/matching/source.js';
import { asItems, observation, startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

const HOUR = 3_600_000;
const NOW = Date.now();

/** Random observations over a few hundred (ip, port) keys, so later batches update and supersede. */
function observations(random: SeededRandom, count: number): Array<Partial<Observation> & { ip: string; port: number }> {
  const pick = <T>(values: T[]) => values[Math.floor(random.next() * values.length)]!;
  return Array.from({ length: count }, () => {
    const vendor = pick(['nginx', 'apache', 'openbsd', 'microsoft']);
    const product = { nginx: 'nginx', apache: 'http_server', openbsd: 'openssh', microsoft: 'iis' }[vendor]!;
    const version = pick(['1.0', '2.4.49', '8.9', '10.0']);
    return {
      ip:
        random.next() < 0.15
          ? `2001:db8::${Math.floor(random.next() * 60)}`
          : `198.51.100.${Math.floor(random.next() * 200)}`,
      port: pick([22, 80, 443]),
      protocol: pick(['tcp', 'tcp', 'udp'] as const),
      hostnames:
        random.next() < 0.6 ? [pick(['a', 'b', 'shared', `h${Math.floor(random.next() * 50)}`]) + '.example.org'] : [],
      timestamp: NOW - Math.floor(random.next() * 48 * HOUR),
      fingerprints:
        random.next() < 0.9
          ? [{ vendor, product, version, cpe: `cpe:2.3:a:${vendor}:${product}:${version}:*:*:*:*:*:*:*` }]
          : [],
      cves: random.next() < 0.4 ? [pick(['CVE-2021-41773', 'CVE-2021-42013', 'CVE-2023-0001'])] : [],
      classifications: random.next() < 0.2 ? [pick(['c2:sliver', 'honeypot', 'proxy:tor'])] : [],
      asn: pick([undefined, 'AS64500', 'AS64501']),
      countryCode: pick([undefined, 'DE', 'FR']),
    };
  });
}

const QUERIES: Array<Record<string, string>> = [
  {},
  { vendor: 'nginx' },
  { vendor: 'apache', version: '2.4.49' },
  { cpe: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*' },
  { cve: 'CVE-2021-42013' },
  { contains_cve: 'false' },
  { classifications: 'proxy' },
  { asn: 'AS64501', port: '443' },
  { country_code: 'FR' },
  { protocol: 'udp' },
  { cidr: '198.51.100.0/25' },
  { cidr: '2001:db8::/32' },
  { hostname: 'shared' },
  { domain: 'example.org' },
  { lastModStartDate: new Date(NOW - 12 * HOUR).toISOString() },
  { pubEndDate: new Date(NOW - 30 * HOUR).toISOString() },
];
const SORTS: Array<Pick<PageRequest, 'sort' | 'order'>> = [
  { sort: 'timestamp', order: 'desc' },
  { sort: 'date_added', order: 'asc' },
  { sort: 'ip', order: 'asc' },
  { sort: 'port', order: 'desc' },
];

function answers(sync: IndexSync): unknown[] {
  const out: unknown[] = [];
  for (const params of QUERIES) {
    for (const order of SORTS) {
      const page = sync.index.page(parseHostQuery(typedFilters(params)), { ...order, offset: 2, limit: 30 });
      out.push([params, order, page.total, page.ids]);
    }
  }
  return out;
}

describe.each(engineCases())('restarting from the host index snapshot ($name)', (engine) => {
  let app: TestApp;
  let dir: string;
  const random = new SeededRandom(11);
  const databaseOf = () => app.context.config.database;

  /** An index started the way a server starts it, over its own connection. */
  const restart = async () => {
    const storage = await createStorage(databaseOf());
    const sync = new IndexSync(storage.hosts, hostIndexSnapshot(dir, databaseOf(), storage));
    await sync.build();
    return { sync, storage };
  };
  /** An index built from the database alone: what the restarted one must equal. */
  const fresh = async () => {
    const sync = new IndexSync(app.storage.hosts);
    await sync.build();
    return sync;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-snapshot-restart-'));
    app = await startTestApp(engine, { VULNSCOPE_SNAPSHOT_DIR: dir });
    await app.ingest(observations(random, 1500));
  });
  afterAll(async () => {
    await app?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a snapshot, then more ingest, then a restart: the index equals the database', async () => {
    // Ingest while the snapshot is written: the index applies it only once the write is done, so
    // the snapshot holds exactly the position it names.
    const seqAtWrite = app.context.hostIndex.seq;
    await runIngest(
      app.storage,
      asItems(observations(random, 600).map(observation)),
      { classifier: new ClassificationResolver([]), matcher: confirmingMatcher(app.storage) },
      { retentionDays: 0 },
    );
    const settled: string[] = [];
    const writing = app.context.hostIndex.saveSnapshot().then((done) => {
      settled.push('write');
      return done;
    });
    const refreshing = app.context.hostIndex.refresh().then(() => settled.push('refresh'));
    const [written] = await Promise.all([writing, refreshing]);
    expect(settled).toEqual(['write', 'refresh']);
    expect(written?.seq).toBe(seqAtWrite);
    expect(written!.records).toBeGreaterThan(300);
    expect(app.context.hostIndex.seq).toBeGreaterThan(seqAtWrite);
    const { sync, storage } = await restart();
    try {
      expect(sync.status().snapshot?.start).toMatchObject({ loaded: true, seq: written!.seq });
      expect(sync.seq).toBe(await app.storage.hosts.latestChangeSeq());
      const built = await fresh();
      expect(sync.index.size).toBe(await app.storage.hosts.count());
      expect(answers(sync)).toEqual(answers(built));
      // …and it keeps tailing the log like any index.
      await app.ingest(observations(random, 300));
      await sync.refresh();
      await built.refresh();
      expect(answers(sync)).toEqual(answers(built));
    } finally {
      await sync.stop();
      await storage.close();
    }
  });

  it('rebuilds, saying why, when the change log was trimmed past the snapshot', async () => {
    const written = await app.context.hostIndex.saveSnapshot();
    await app.ingest(observations(random, 50));
    await app.storage.hosts.pruneChanges(Date.now() + 1000);
    await app.ingest(observations(random, 50));
    const { sync, storage } = await restart();
    try {
      expect(sync.status().snapshot?.start).toEqual({
        loaded: false,
        reason: expect.stringMatching(new RegExp(`trimmed past the snapshot \\(snapshot at ${written!.seq}`)),
      });
      expect(answers(sync)).toEqual(answers(await fresh()));
    } finally {
      await sync.stop();
      await storage.close();
    }
  });

  it('rebuilds when the snapshot is of another database, or corrupt', async () => {
    await app.context.hostIndex.saveSnapshot();
    const other = await engine.fresh();
    const otherStorage = await createStorage(other.config);
    try {
      const mine = hostIndexSnapshot(dir, databaseOf(), app.storage).file;
      const theirs = hostIndexSnapshot(dir, other.config, otherStorage);
      fs.copyFileSync(mine, theirs.file);
      const sync = new IndexSync(otherStorage.hosts, theirs);
      await sync.build();
      expect(sync.status().snapshot?.start).toEqual({ loaded: false, reason: 'snapshot of another database' });
      expect(sync.index.size).toBe(0);

      const bytes = fs.readFileSync(mine);
      bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
      fs.writeFileSync(mine, bytes);
      const { sync: restarted, storage } = await restart();
      expect(restarted.status().snapshot?.start).toEqual({
        loaded: false,
        reason: expect.stringMatching(/^snapshot corrupt/),
      });
      expect(answers(restarted)).toEqual(answers(await fresh()));
      await restarted.stop();
      await storage.close();
    } finally {
      await otherStorage.close();
      await other.drop();
    }
  });
});

describe.each(engineCases())('a server writes its snapshot at shutdown and starts from it ($name)', (engine) => {
  it('answers the same after a restart, having read the snapshot', async () => {
    const database = await engine.fresh();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-snapshot-server-'));
    const config = {
      ...loadConfig({ VULNSCOPE_PORT: '0', VULNSCOPE_RETENTION_DAYS: '0', VULNSCOPE_SNAPSHOT_DIR: dir }),
      database: database.config,
    };
    const logs: string[] = [];
    const logStream = { write: (line: string) => logs.push(line) > 0 } as unknown as NodeJS.WritableStream;
    try {
      const first = await startServer(config, { logStream });
      const storage = first.context.storage;
      await runIngest(
        storage,
        asItems(observations(new SeededRandom(3), 400).map(observation)),
        { classifier: new ClassificationResolver([]), matcher: confirmingMatcher(storage) },
        { retentionDays: 0 },
      );
      await first.context.hostIndex.refresh();
      const before = answers(first.context.hostIndex);
      const seq = first.context.hostIndex.seq;
      await first.close();
      expect(logs.join('')).toMatch(/"reason":"no snapshot".*index built: snapshot not used/);

      const second = await startServer(config, { logStream });
      try {
        expect(second.context.hostIndex.status().snapshot?.start).toMatchObject({ loaded: true, seq });
        expect(logs.join('')).toMatch(/index read from its snapshot/);
        expect(answers(second.context.hostIndex)).toEqual(before);
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
