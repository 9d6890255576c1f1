import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdvisoryRecord } from '../../src/ingest/advisories/types.js';
import { AdvisoryIndex } from '../../src/search/advisories/advisory-index.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { engineCases, POSTGRES_URL, postgresCase } from '../support/engines.js';
import { until } from '../support/instances.js';
import { advisory, loadRecords } from './support.js';

/** How the advisory index follows the database: generation switches, shared catch-ups, other writers. */
describe.each(engineCases())('advisory index catch-up ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  const page = { mode: 'offset', offset: 0, limit: 100 } as const;
  const ids = (result: { records: Array<{ cveId: string }> }) => result.records.map((hit) => hit.cveId);

  it('sees each load before the next query, across two indexes on one database', async () => {
    const first = new AdvisoryIndex(storage.advisories);
    await first.build();
    await loadRecords(storage, 'sync-a', [advisory('CVE-2024-0001'), advisory('CVE-2024-0002')]);
    const second = new AdvisoryIndex(storage.advisories);
    await second.build();
    for (const index of [first, second]) expect(ids(await index.search(['sync-a'], {}, page))).toHaveLength(2);
    // Replace: one record removed (its rows purged at once), one updated, one added.
    await loadRecords(storage, 'sync-a', [
      advisory('CVE-2024-0002', { references: [{ url: 'https://x.example/2', tags: ['patch'] }] }),
      advisory('CVE-2024-0003'),
    ]);
    for (const index of [first, second]) {
      expect(ids(await index.search(['sync-a'], {}, page))).toEqual(['CVE-2024-0002', 'CVE-2024-0003']);
      const tagged = await index.search(['sync-a'], { referenceTag: 'patch' }, page);
      expect([tagged.filtered, tagged.total]).toEqual([1, 2]);
    }
    await loadRecords(storage, 'sync-a', [advisory('CVE-2024-0004')], 'merge');
    expect((await first.search(['sync-a'], {}, page)).total).toBe(3);
    expect(first.status()).toMatchObject({ records: 3 });
  });

  it('queries arriving together share one catch-up, and each sees the load before it', async () => {
    const index = new AdvisoryIndex(storage.advisories);
    await index.build();
    let reads = 0;
    const generations = storage.advisories.generations.bind(storage.advisories);
    storage.advisories.generations = (feeds) => {
      reads++;
      return generations(feeds);
    };
    try {
      await loadRecords(storage, 'sync-b', [advisory('CVE-2024-0101')]);
      const results = await Promise.all(Array.from({ length: 20 }, () => index.search(['sync-b'], {}, page)));
      for (const result of results) expect(ids(result)).toEqual(['CVE-2024-0101']);
      // One run for the first query and one queued run for all that arrived during it, each
      // reading the pointers once (and once more per feed that moved): far fewer than 20.
      expect(reads).toBeLessThanOrEqual(5);
    } finally {
      storage.advisories.generations = generations;
    }
  });

  it('an empty or unknown feed is empty, and a feed emptied by a load empties', async () => {
    const index = new AdvisoryIndex(storage.advisories);
    expect(await index.search(['never-loaded'], {}, page)).toMatchObject({ total: 0, filtered: 0, records: [] });
    await loadRecords(storage, 'sync-c', [advisory('CVE-2024-0201')]);
    expect((await index.search(['sync-c'], {}, page)).total).toBe(1);
    const { loadFeedItems } = await import('../../src/ingest/feeds/load.js');
    await loadFeedItems(storage, { name: 'sync-c', description: 'c', adapter: 'mitre-cvelist-v5' }, [], {
      guard: { allowEmpty: true },
    });
    expect(await index.search(['sync-c'], {}, page)).toMatchObject({ total: 0, filtered: 0, records: [] });
  });
});

/**
 * On a fresh schema: `feed` loaded with `records` through a writer, then an index over a second
 * storage built and listening for switches; `body` runs with them, and everything is closed after.
 */
async function withListeningIndex(
  feed: string,
  records: AdvisoryRecord[],
  body: (index: AdvisoryIndex, reader: Storage, writer: Storage) => Promise<void>,
): Promise<void> {
  const fresh = await postgresCase.fresh();
  const reader = await createStorage(fresh.config);
  const writer = await createStorage(fresh.config);
  const index = new AdvisoryIndex(reader.advisories);
  try {
    await loadRecords(writer, feed, records);
    await index.build();
    await index.listen((error) => {
      throw error;
    });
    await body(index, reader, writer);
  } finally {
    await index.stop();
    await reader.close();
    await writer.close();
    await fresh.drop();
  }
}

describe.runIf(POSTGRES_URL)('advisory index listening for feed switches (postgres)', () => {
  it('reads the feed pointers only after a switch was announced, and sees the switch', async () => {
    await withListeningIndex('listen-a', [advisory('CVE-2024-0301')], async (index, reader, writer) => {
      const page = { mode: 'offset', offset: 0, limit: 10 } as const;
      expect((await index.search(['listen-a'], {}, page)).total).toBe(1);
      let reads = 0;
      const generations = reader.advisories.generations.bind(reader.advisories);
      reader.advisories.generations = (feeds) => {
        reads++;
        return generations(feeds);
      };
      for (let i = 0; i < 5; i++) await index.search(['listen-a'], {}, page);
      expect(reads).toBe(0);
      await loadRecords(writer, 'listen-a', [advisory('CVE-2024-0301'), advisory('CVE-2024-0302')]);
      // The announcement arrives on the listening connection shortly after the load commits.
      await until(async () => (await index.search(['listen-a'], {}, page)).total === 2, 5_000, 'the switch seen');
      expect(reads).toBeGreaterThan(0);
    });
  });

  it('keeps the feed list until a load is announced, and then lists the new feed', async () => {
    await withListeningIndex('list-a', [advisory('CVE-2024-0401')], async (index, reader, writer) => {
      let reads = 0;
      const feeds = reader.advisories.feeds.bind(reader.advisories);
      reader.advisories.feeds = () => {
        reads++;
        return feeds();
      };
      const names = async () => (await index.feeds()).map((feed) => feed.name);
      expect(await names()).toEqual(['list-a']);
      for (let i = 0; i < 5; i++) expect(await names()).toEqual(['list-a']);
      expect(reads).toBe(1);
      await loadRecords(writer, 'list-b', [advisory('CVE-2024-0402')]);
      await until(async () => (await names()).length === 2, 5_000, 'the new feed listed');
      expect(await names()).toEqual(['list-a', 'list-b']);
    });
  });
});
