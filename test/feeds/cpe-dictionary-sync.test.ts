import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { syncCpeDictionary } from '../../src/ingest/feeds/cpe-dictionary-sync.js';
import { NvdApiClient } from '../../src/ingest/feeds/nvd-api.js';
import { DEFAULT_OVERLAP_MS } from '../../src/ingest/feeds/nvd-sync.js';
import { syncStateStore } from '../../src/ingest/feeds/sync-state.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { sqliteCase } from '../support/engines.js';
import { fakeClock } from './clock.js';
import { startFakeNvd, type FakeNvd } from './fake-nvd.js';

/** `sync cpe-dictionary` against a local stand-in of NVD's CPE and Match Criteria APIs. */

const NOW = Date.parse('2026-11-01T00:00:00Z');
const CPES = '/rest/json/cpes/2.0';
const MATCH = '/rest/json/cpematch/2.0';

let fake: FakeNvd;
beforeAll(async () => {
  fake = await startFakeNvd();
});
afterAll(() => fake.close());

let storage: Storage;
let drop: () => Promise<void>;
beforeEach(async () => {
  const fresh = await sqliteCase.fresh();
  drop = fresh.drop;
  storage = await createStorage(fresh.config);
  fake.requests.length = 0;
  delete fake.fail;
});
afterEach(async () => {
  await storage.close();
  await drop();
});

const client = (attempts = 6) =>
  new NvdApiClient({ baseUrl: fake.base, apiKey: 'k', clock: fakeClock(), backoffMs: 10, attempts });
const requests = () =>
  fake.requests.map((r) => ({
    path: r.path,
    startIndex: Number(r.params.get('startIndex')),
    perPage: Number(r.params.get('resultsPerPage')),
    ...(r.params.has('lastModStartDate') ? { from: r.params.get('lastModStartDate') } : {}),
    status: r.status,
  }));

describe('sync cpe-dictionary', () => {
  it('pages through products and match criteria into the dictionary, then asks only for changes', async () => {
    const changed: string[][] = [];
    const first = await syncCpeDictionary(storage, {
      api: client(),
      now: () => NOW,
      productsPerPage: 3,
      matchStringsPerPage: 3,
      onKnowledgeChanged: async (products) => changed.push(products),
    });
    expect(requests()).toEqual([
      { path: CPES, startIndex: 0, perPage: 3, status: 200 },
      { path: CPES, startIndex: 3, perPage: 3, status: 200 },
      { path: MATCH, startIndex: 0, perPage: 3, status: 200 },
      { path: MATCH, startIndex: 3, perPage: 3, status: 200 },
    ]);
    expect(first).toMatchObject({ products: 4, matchStrings: 4, deprecated: 1, aliases: 1, rejected: 0, requests: 4 });
    expect(first.collections.products).toMatchObject({
      pages: 2,
      syncedUntil: NOW,
      runs: [{ kind: 'full', resumed: false }],
    });
    // The deprecated igor_sysoev:nginx → nginx:nginx is a rename; re-mapping is told once, at the end.
    expect(changed).toEqual([first.touchedProducts]);
    expect(first.touchedProducts.some((key) => key.includes('igor_sysoev'))).toBe(true);
    const counts = await storage.knowledge.counts();
    expect(counts.aliases).toBe(1);
    expect(counts.dictionaryNames).toBeGreaterThan(4);
    expect(fake.requests.every((r) => r.apiKey === 'k')).toBe(true);

    fake.requests.length = 0;
    const later = NOW + 86_400_000;
    await syncCpeDictionary(storage, { api: client(), now: () => later });
    const from = new Date(NOW - DEFAULT_OVERLAP_MS).toISOString();
    expect(requests()).toEqual([
      { path: CPES, startIndex: 0, perPage: 10_000, from, status: 200 },
      { path: MATCH, startIndex: 0, perPage: 500, from, status: 200 },
    ]);
  });

  it('resumes the match criteria where a failed sync stopped, without reading the products again', async () => {
    let down = true;
    fake.fail = ({ path, params }) => (down && path === MATCH && params.get('startIndex') === '2' ? 503 : undefined);
    await expect(
      syncCpeDictionary(storage, { api: client(1), now: () => NOW, productsPerPage: 2, matchStringsPerPage: 2 }),
    ).rejects.toThrow(/HTTP 503/);
    expect(await syncStateStore(storage, 'cpe-dictionary.products').read()).toEqual({
      base: fake.base,
      syncedUntil: NOW,
    });
    expect((await syncStateStore(storage, 'cpe-dictionary.matchStrings').read())?.run).toMatchObject({
      kind: 'full',
      startIndex: 2,
    });

    down = false;
    fake.requests.length = 0;
    const result = await syncCpeDictionary(storage, {
      api: client(),
      now: () => NOW + 60_000,
      productsPerPage: 2,
      matchStringsPerPage: 2,
    });
    expect(requests().map((r) => [r.path, r.startIndex, r.from !== undefined])).toEqual([
      [CPES, 0, true], // products: an incremental window
      [MATCH, 2, false], // match criteria: the failed page of the full listing
      [MATCH, 0, true], // then their changes since
    ]);
    expect(result.collections.matchStrings.runs.map((r) => [r.kind, r.resumed])).toEqual([
      ['full', true],
      ['incremental', false],
    ]);
    expect(result.matchStrings).toBe(2);
  });
});
