/**
 * Records follow knowledge changes without a rescan: a running server reads the knowledge change
 * log, finds the records naming a changed product through its host index, matches them again, and
 * the API shows the new CVEs; renames are changes too; a log that no longer reaches back makes
 * every record walk again. Both engines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { convertNvdCve } from '../../src/ingest/advisories/nvd.js';
import { loadFeedItems, recordsAsItems } from '../../src/ingest/feeds/load.js';
import { ClassificationResolver } from '../../src/ingest/classifications/resolver.js';
import { runIngest } from '../../src/ingest/pipeline.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import {
  remapChangedKnowledge,
  remapChangedKnowledgeByWalk,
  remappedGeneration,
} from '../../src/services/matching/knowledge-remap.js';
import { changedKnowledgeCves } from '../../src/services/matching/remap.js';
import { readRulesState } from '../../src/services/matching/rules-remap.js';
import { confirmingMatcher } from '../../src/services/matching/source.js';
import { type RunningServer, startServer } from '../../src/server/main.js';
import { createStorage } from '../../src/storage/index.js';
import { PRODUCT_CHANGES_KEPT } from '../../src/storage/knowledge/product-changes.js';
import { asItems, observation } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';

const NVD = fixture('nvd');
const nvdRecord = (id: string) => JSON.parse(fs.readFileSync(path.join(NVD, `${id}.json`), 'utf8'));

describe.each(engineCases())('re-mapping from the knowledge change log ($name)', (engine) => {
  let server: RunningServer;
  let drop: () => Promise<void>;
  const registry = new FeedRegistry();

  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    const config = {
      ...loadConfig({
        VULNSCOPE_PORT: '0',
        VULNSCOPE_RETENTION_DAYS: '0',
        VULNSCOPE_REMAP_POLL_MS: '50',
        VULNSCOPE_INDEX_POLL_MS: '50',
      }),
      database: fresh.config,
    };
    server = await startServer(config, { logStream: { write: () => true } as unknown as NodeJS.WritableStream });
  });
  afterAll(async () => {
    await server?.close();
    await drop?.();
  });

  const storage = () => server.context.storage;
  const ingest = async (rows: Array<{ ip: string; cpe: string }>) => {
    const summary = await runIngest(
      storage(),
      asItems(rows.map(({ ip, cpe }) => observation({ ip, port: 80, fingerprints: [{ cpe }] }))),
      { classifier: new ClassificationResolver([]), matcher: confirmingMatcher(storage()) },
      { retentionDays: 0 },
    );
    expect(summary.inserted).toBe(rows.length);
  };
  let token: string;
  /** The record's CVEs as the API serves them. */
  const cvesOf = async (ip: string): Promise<string[]> => {
    token ??= (await storage().tokens.create('remap')).token;
    const response = await fetch(`${server.url}/v3/index/target-intel?cidr=${ip}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { data: Array<{ cve: string[] }> };
    return body.data[0]?.cve ?? [];
  };
  const until = async (check: () => Promise<boolean>) => {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('the running server did not re-map in 20 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  afterEach(async () => {
    // Each test starts from a settled log.
    await until(async () => (await remappedGeneration(storage())) === (await storage().knowledge.generation()));
  });

  it('gives stored records the CVEs of knowledge that arrives later, by itself', async () => {
    await ingest([
      { ip: '192.0.2.1', cpe: 'cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*' },
      { ip: '192.0.2.2', cpe: 'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*' },
    ]);
    expect(await cvesOf('192.0.2.1')).toEqual([]);
    await loadFeedItems(
      storage(),
      registry.get('nist-nvd2')!,
      recordsAsItems([convertNvdCve(nvdRecord('CVE-2021-23017'))]),
      {
        mode: 'merge',
      },
    );
    await until(async () => (await cvesOf('192.0.2.1')).includes('CVE-2021-23017'));
    expect(await cvesOf('192.0.2.2')).toEqual([]);
  });

  it('re-maps only the records naming a changed product, found through the index', async () => {
    const index = server.context.hostIndex.index;
    const ids = index.idsNamingProducts((key) => key === 'a:f5:nginx');
    expect(ids).toHaveLength(1);
    expect(index.idsNamingProducts((key) => key === 'a:openbsd:openssh')).toHaveLength(1);
    expect(index.idsNamingProducts(() => false)).toEqual([]);
  });

  it('follows a rename: records under the old name get the new name’s CVEs', async () => {
    await ingest([{ ip: '192.0.2.3', cpe: 'cpe:2.3:a:igor_sysoev:nginx:1.4.0:*:*:*:*:*:*:*' }]);
    expect(await cvesOf('192.0.2.3')).toEqual([]);
    await storage().knowledge.upsertAliases([
      {
        from: { part: 'a', vendor: 'igor_sysoev', product: 'nginx' },
        to: { part: 'a', vendor: 'f5', product: 'nginx' },
        source: 'test',
      },
    ]);
    await until(async () => (await cvesOf('192.0.2.3')).includes('CVE-2021-23017'));
  });
});

describe.each(engineCases())('re-mapping without a server ($name)', (engine) => {
  const registry = new FeedRegistry();

  it('walks every record when the change log no longer reaches back', async () => {
    const fresh = await engine.fresh();
    const config = { ...loadConfig({ VULNSCOPE_PORT: '0', VULNSCOPE_RETENTION_DAYS: '0' }), database: fresh.config };
    const offline = await startServer(config, {
      sweeper: false,
      logStream: { write: () => true } as unknown as NodeJS.WritableStream,
    });
    try {
      const store = offline.context.storage;
      await runIngest(
        store,
        asItems([
          observation({
            ip: '198.51.100.1',
            port: 80,
            fingerprints: [{ cpe: 'cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*' }],
          }),
        ]),
        { classifier: new ClassificationResolver([]), matcher: confirmingMatcher(store) },
        { retentionDays: 0 },
      );
      await loadFeedItems(
        store,
        registry.get('nist-nvd2')!,
        recordsAsItems([convertNvdCve(nvdRecord('CVE-2021-23017'))]),
        {
          mode: 'merge',
        },
      );
      // The generations since the last re-map are more than the log keeps.
      await store.db.run(`UPDATE knowledge_meta SET value = value + ? WHERE name = 'generation'`, [
        PRODUCT_CHANGES_KEPT,
      ]);
      const summary = await remapChangedKnowledgeByWalk(store, confirmingMatcher(store));
      expect(summary).toMatchObject({ fullWalk: true, examined: 1, changed: 1 });
      expect((await readRulesState(store))?.afterId).toBeUndefined();
      expect((await store.hosts.scan(0, 10))[0]!.cves).toEqual(['CVE-2021-23017']);
      expect(
        await remapChangedKnowledge(store, offline.context.hostIndex.index, confirmingMatcher(store)),
      ).toBeUndefined();
    } finally {
      await offline.close();
      await fresh.drop();
    }
  });

  it('never writes a result computed before the record was upserted again', async () => {
    const fresh = await engine.fresh();
    const store = await createStorage(fresh.config);
    try {
      const nginx = 'cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*';
      const put = (cves: string[]) =>
        runIngest(
          store,
          asItems([observation({ ip: '198.51.100.2', port: 80, fingerprints: [{ cpe: nginx }], cves })]),
          { classifier: new ClassificationResolver([]), matcher: confirmingMatcher(store) },
          { retentionDays: 0 },
        );
      await put([]);
      const stale = await store.hosts.scanMatchInputs(0, 10);
      await loadFeedItems(
        store,
        registry.get('nist-nvd2')!,
        recordsAsItems([convertNvdCve(nvdRecord('CVE-2021-23017'))]),
        {
          mode: 'merge',
        },
      );
      // A scan reports the record again, with a CVE of its own, and is matched with the new knowledge.
      await put(['CVE-2000-0001']);
      const updates = await changedKnowledgeCves(stale, confirmingMatcher(store));
      expect(updates).toHaveLength(1);
      expect(await store.hosts.updateKnowledgeCves(updates)).toBe(0);
      expect((await store.hosts.scan(0, 10))[0]!.cves).toEqual(['CVE-2000-0001', 'CVE-2021-23017']);
    } finally {
      await store.close();
      await fresh.drop();
    }
  });
});
