import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isDue, writeBackup } from '../../src/backup/service.js';
import { feedSource } from '../../src/backup/sources.js';
import { BackupStore } from '../../src/backup/store.js';
import { loadConfig } from '../../src/config.js';
import { feedProvenance } from '../../src/core/advisory/provenance.js';
import { UUID_PATTERN } from '../../src/core/uuid.js';
import { adapterFor } from '../../src/ingest/advisories/index.js';
import type { AdvisoryRecord, JsonObject } from '../../src/ingest/advisories/types.js';
import { loadFeedSources } from '../../src/ingest/feeds/load.js';
import { buildApp } from '../../src/server/app.js';
import { createContext } from '../../src/server/main.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { contentHash } from '../../src/storage/advisories/load.js';
import { createStorage, migrate, type Storage } from '../../src/storage/index.js';
import type { TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';
import { collect } from '../support/streams.js';
import { apiFeedRecords, recordsOf, startBackupApp, unzip, type BackupTestApp } from '../backup/support.js';
import { loadRealFeeds, REAL_FEEDS, type RealFeed } from './support.js';

type Json = JsonObject;
const DAY = 24 * 3600_000;

/** Whose provenance a feed's records carry: the feed's for converted sources, the CVE record's own for CVE 5. */
const FEEDS: Array<[RealFeed, 'feed' | 'own']> = [
  ['cisa-kev', 'feed'],
  ['go-vulndb', 'feed'],
  ['pypa', 'feed'],
  ['rustsec', 'feed'],
  ['nist-nvd2', 'feed'],
  ['mitre-cvelist-v5', 'own'],
];

function expectProvenance(record: unknown, feed: string, provider: 'feed' | 'own') {
  const { cveMetadata, containers } = record as { cveMetadata: Json; containers: { cna: Json } };
  const providerMetadata = containers.cna.providerMetadata as Json;
  expect(cveMetadata.assignerOrgId).toMatch(UUID_PATTERN);
  expect(providerMetadata.orgId).toMatch(UUID_PATTERN);
  if (provider === 'feed') expect(providerMetadata).toMatchObject(feedProvenance(feed));
}

async function archivedRecords(store: BackupStore, feed: string): Promise<unknown[]> {
  const latest = (await store.latest('v4', feed))!;
  return recordsOf(await unzip(fs.readFileSync(path.join(store.folder('v4', feed), latest.file))));
}

describe.each(engineCases())('advisory provenance: served and archived ($name)', (engine) => {
  let t: BackupTestApp;
  let store: BackupStore;
  beforeAll(async () => {
    t = await startBackupApp(engine);
    store = new BackupStore(t.backupDir);
    await loadRealFeeds(t.storage);
  });
  afterAll(async () => t?.close());

  it.each(FEEDS)('%s: every record names its assigner and provider (%s)', async (feed, provider) => {
    const served = await apiFeedRecords(t, feed);
    expect(served.length).toBeGreaterThan(0);
    for (const record of served) expectProvenance(record, feed, provider);
    await writeBackup(store, feedSource(t.storage, feed, feed), 3);
    expect(await archivedRecords(store, feed)).toEqual(served);
  });
});

/** KEV, OSV and NVD providers before provenance: not CVE orgs, or (NVD) the assigner. */
const OSV_PROVIDERS: Record<string, string> = { GO: 'Go', PYSEC: 'PyPA', RUSTSEC: 'RustSec', GHSA: 'GitHub' };

/** A record as the code before migration 14 stored it (`record` in the current shape). */
function storedBefore(record: AdvisoryRecord, adapter: string, feed: string): AdvisoryRecord {
  const old = structuredClone(record) as unknown as { cveMetadata: Json; containers: { cna: Json } };
  const own = feedProvenance(feed);
  const cna = old.containers.cna;
  const provider = cna.providerMetadata as Json;
  if (old.cveMetadata.assignerOrgId === own.orgId) delete old.cveMetadata.assignerOrgId;
  const dated = provider.dateUpdated ? { dateUpdated: provider.dateUpdated } : {};
  if (adapter === 'cisa-kev') cna.providerMetadata = { shortName: 'CISA', ...dated };
  else if (adapter === 'osv') {
    const prefix = String(cna.x_osvId).split('-')[0]!;
    cna.providerMetadata = { shortName: OSV_PROVIDERS[prefix] ?? prefix, ...dated };
  } else if (adapter === 'nist-nvd2') {
    const assigner = old.cveMetadata.assignerOrgId;
    cna.providerMetadata = { ...(assigner ? { orgId: assigner } : {}), ...dated };
  } else if (provider.orgId === own.orgId) delete cna.providerMetadata;
  return old as unknown as AdvisoryRecord;
}

/** Feed → source: each adapter, CVE JSON 4.0 and 5.x records among the CVE 5 feed's. */
const UPGRADED: Array<[string, () => Promise<string>]> = [
  ['cisa-kev', REAL_FEEDS['cisa-kev']],
  ['go-vulndb', REAL_FEEDS['go-vulndb']],
  ['pypa', REAL_FEEDS.pypa],
  ['nist-nvd2', REAL_FEEDS['nist-nvd2']],
  ['mitre-cvelist-v5', async () => fixture('vendor/apache_httpd_cna_cve_json.jsonl.gz')],
];

async function serve(storage: Storage, database: TestApp['config']['database']) {
  const config = { ...loadConfig({ VULNSCOPE_RETENTION_DAYS: '0', VULNSCOPE_RATE_LIMIT: 'unlimited' }), database };
  const context = await createContext(config, storage);
  const app = await buildApp(context, { logStream: { write: () => true } as unknown as NodeJS.WritableStream });
  const { token } = await storage.tokens.create('test');
  const served = {
    get: async (url: string) => {
      const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      return { status: response.statusCode, body: response.json(), headers: response.headers };
    },
  } as unknown as TestApp;
  return {
    records: (feed: string) => apiFeedRecords(served, feed),
    close: async () => {
      await app.close();
      await context.tokens.stop().catch(() => {});
    },
  };
}

describe.each(engineCases())('migration 14: provenance of stored records ($name)', (engine) => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('an upgraded database serves and archives them as a fresh load would, and a reload changes nothing', async () => {
    const fresh = await engine.fresh();
    cleanup.push(fresh.drop);
    const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-provenance-'));
    cleanup.push(() => fs.rmSync(backupDir, { recursive: true, force: true }));
    const store = new BackupStore(backupDir);
    const registry = new FeedRegistry();
    const expected = new Map<string, Map<string, string>>();

    const old = await createStorage(fresh.config, { migrate: false });
    await migrate(old.db, { through: 13 });
    for (const [feed, source] of UPGRADED) {
      const { adapter, description } = registry.get(feed)!;
      const items = await collect(adapterFor(adapter)(await source(), feed));
      const writes = items.flatMap((item) =>
        item.kind === 'record' ? [{ recordId: item.sourceId, record: storedBefore(item.record, adapter, feed) }] : [],
      );
      expected.set(
        feed,
        new Map(items.flatMap((i) => (i.kind === 'record' ? [[i.sourceId, JSON.stringify(i.record)]] : []))),
      );
      const load = await old.advisories.startLoad({ feed, description, adapter, mode: 'replace' });
      await load.put(writes);
      await load.finish();
      await writeBackup(store, feedSource(old, feed, description), 3);
    }
    const before = await old.db.all<{ record: string }>(
      `SELECT record FROM advisories WHERE feed = 'cisa-kev' LIMIT 1`,
    );
    expect(JSON.parse(before[0]!.record).containers.cna.providerMetadata.shortName).toBe('CISA');
    await old.close();

    const storage = await createStorage(fresh.config);
    cleanup.push(() => storage.close());
    // Stored: exactly what a load by the current adapters stores, hash included.
    const rows = await storage.db.all<{ feed: string; record_id: string; record: string; content_hash: string }>(
      `SELECT feed, record_id, record, content_hash FROM advisories`,
    );
    expect(rows.length).toBe([...expected.values()].reduce((n, records) => n + records.size, 0));
    for (const row of rows) {
      expect(row.record, `${row.feed} ${row.record_id}`).toBe(expected.get(row.feed)!.get(row.record_id));
      expect(row.content_hash).toBe(contentHash(row.record));
    }

    const server = await serve(storage, fresh.config);
    cleanup.push(server.close);
    for (const [feed] of UPGRADED) {
      const provider = feed === 'mitre-cvelist-v5' ? 'own' : 'feed';
      const served = await server.records(feed);
      for (const record of served) expectProvenance(record, feed, provider);
      // Archives written before the upgrade are due at once, whatever the interval.
      const source = feedSource(storage, feed, feed);
      expect(await isDue(store, source, DAY), feed).toBe(true);
      await writeBackup(store, source, 3);
      expect(await archivedRecords(store, feed)).toEqual(served);
      expect(await isDue(store, source, DAY), feed).toBe(false);
    }
    // The 4.0 records of the CVE 5 feed got the feed's provenance; the 5.x ones kept their own.
    const cve5 = (await server.records('mitre-cvelist-v5')) as AdvisoryRecord[];
    const feedOrg = feedProvenance('mitre-cvelist-v5').orgId;
    const byAssigner = cve5.map((r) => [r.x_dataVersion === '4.0', r.cveMetadata.assignerOrgId === feedOrg]);
    expect(new Set(byAssigner.map(([converted, fromFeed]) => `${converted}/${fromFeed}`))).toEqual(
      new Set(['true/true', 'false/false']),
    );

    for (const [feed, source] of UPGRADED) {
      const summary = await loadFeedSources(storage, registry.get(feed)!, [await source()], {
        refreshKnowledge: false,
      });
      expect({ feed, added: summary.added, updated: summary.updated, removed: summary.removed }).toEqual({
        feed,
        added: 0,
        updated: 0,
        removed: 0,
      });
      expect(summary.unchanged).toBe(expected.get(feed)!.size);
    }
  });
});
