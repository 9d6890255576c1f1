import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NvdApiClient } from '../../src/ingest/feeds/nvd-api.js';
import { syncNvdCves } from '../../src/ingest/feeds/nvd-cve-sync.js';
import { DEFAULT_OVERLAP_MS } from '../../src/ingest/feeds/nvd-sync.js';
import { DAY_MS } from '../../src/ingest/feeds/nvd-windows.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { syncStateStore } from '../../src/ingest/feeds/sync-state.js';
import { nvdApiBase, syncFeed } from '../../src/ingest/feeds/sync.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { engineCases, sqliteCase } from '../support/engines.js';
import { fakeClock } from './clock.js';
import { cveRequests, nvdTime, startFakeNvd, type FakeNvd } from './fake-nvd.js';

/** `sync nist-nvd2` against a local stand-in of the NVD CVE API: full load, resume, incremental windows. */

const FEED = { name: 'nist-nvd2', description: 'NVD', adapter: 'nist-nvd2' };
const NOW = Date.parse('2026-11-01T00:00:00Z');

let fake: FakeNvd;
beforeAll(async () => {
  fake = await startFakeNvd();
});
afterAll(() => fake.close());
beforeEach(async () => {
  fake.requests.length = 0;
  fake.maxPerPage = 2000;
  delete fake.fail;
  fake.cves = (await import('./fake-nvd.js')).readNvdCves();
});

/** A client on a fake clock: the rate limiter and backoff never wait for real. */
const client = (options: { attempts?: number } = {}) =>
  new NvdApiClient({ baseUrl: fake.base, clock: fakeClock(), backoffMs: 10, ...options });

async function stored(
  storage: Storage,
  id: string,
): Promise<
  { cveMetadata: { state: string; dateUpdated?: string }; containers: { cna: Record<string, unknown> } } | undefined
> {
  const row = await storage.db.get<{ record: string }>(
    `SELECT record FROM advisories WHERE feed = ? AND record_id = ? AND gen_to IS NULL`,
    [FEED.name, id],
  );
  return row ? JSON.parse(row.record) : undefined;
}

function touch(id: string, lastModified: number, change: Record<string, unknown> = {}) {
  const cve = fake.cves.find((c) => c.id === id)!;
  Object.assign(cve, change, { lastModified: new Date(lastModified).toISOString().slice(0, 23) });
}

describe.each(engineCases())('sync nist-nvd2 from the API ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
  });
  afterEach(async () => {
    await storage.close();
    await drop();
  });

  it('loads everything by plain paging first, then asks only for what changed since', async () => {
    fake.maxPerPage = 10;
    const remaps: string[][] = [];
    const first = await syncNvdCves(storage, FEED, {
      api: client(),
      now: () => NOW,
      onKnowledgeChanged: async (products) => remaps.push(products),
    });
    expect(cveRequests(fake)).toEqual([
      { startIndex: 0, status: 200 },
      { startIndex: 10, status: 200 },
      { startIndex: 20, status: 200 },
    ]);
    expect(first).toMatchObject({
      read: 29,
      added: 29,
      rejected: 0,
      records: 29,
      pages: 3,
      windows: 1,
      requests: 3,
      syncedUntil: NOW,
    });
    expect(first.runs).toEqual([{ kind: 'full', resumed: false, until: NOW }]);
    expect((await storage.advisories.feed(FEED.name))?.recordCount).toBe(29);
    expect(await syncStateStore(storage, FEED.name).read()).toEqual({ base: fake.base, syncedUntil: NOW });
    // Knowledge follows each stored page (the loads refresh it), reported as one summary.
    expect(first.knowledge?.cvesChanged).toBeGreaterThanOrEqual(28);
    expect((await storage.knowledge.counts()).cves).toBe(first.knowledge?.cvesChanged);
    // Host re-mapping is asked for once per sync, with every touched product of the three pages.
    expect(remaps).toEqual([first.knowledge?.touchedProducts]);
    expect(remaps[0]).toContain('a:apache:log4j');

    // NVD rejects one CVE and updates another after the first sync.
    touch('CVE-2011-2523', NOW + 3_600_000, {
      vulnStatus: 'Rejected',
      descriptions: [{ lang: 'en', value: 'Rejected reason: duplicate.' }],
    });
    touch('CVE-2021-44832', NOW + 2 * 3_600_000, { evaluatorComment: 'checked again' });
    fake.requests.length = 0;
    const later = NOW + 2 * DAY_MS;
    const second = await syncNvdCves(storage, FEED, { api: client(), now: () => later });
    expect(cveRequests(fake)).toEqual([
      {
        startIndex: 0,
        from: new Date(NOW - DEFAULT_OVERLAP_MS).toISOString(),
        to: new Date(later).toISOString(),
        status: 200,
      },
    ]);
    expect(second).toMatchObject({ read: 2, added: 0, updated: 2, records: 29, windows: 1, pages: 1 });
    expect(second.runs).toEqual([
      { kind: 'incremental', resumed: false, from: NOW - DEFAULT_OVERLAP_MS, until: later },
    ]);

    // A rejected NVD CVE is stored as file loads store it: a REJECTED record with its reason.
    const rejected = await stored(storage, 'CVE-2011-2523');
    expect(rejected?.cveMetadata.state).toBe('REJECTED');
    expect(rejected?.containers.cna.rejectedReasons).toEqual([{ lang: 'en', value: 'Rejected reason: duplicate.' }]);
    expect(rejected?.containers.cna.x_vulnStatus).toBe('Rejected');
    expect((await stored(storage, 'CVE-2021-44832'))?.containers.cna.x_nvdEvaluatorComment).toBe('checked again');

    // Nothing new: one request, nothing written.
    fake.requests.length = 0;
    const third = await syncNvdCves(storage, FEED, { api: client(), now: () => later + 60_000 });
    expect(third).toMatchObject({ read: 0, added: 0, updated: 0, records: 29, pages: 1 });
    expect(cveRequests(fake).length).toBe(1);
  });
});

describe('sync nist-nvd2 from the API (sqlite)', () => {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    const fresh = await sqliteCase.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
  });
  afterEach(async () => {
    await storage.close();
    await drop();
  });

  it('resumes an interrupted first sync at the page that failed and ends with every record', async () => {
    fake.maxPerPage = 5;
    let down = true;
    fake.fail = ({ params }) => (down && params.get('startIndex') === '15' ? 503 : undefined);
    const error = await syncNvdCves(storage, FEED, { api: client({ attempts: 2 }), now: () => NOW }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/startIndex=15.*failed after 2 attempts: HTTP 503/);
    expect(cveRequests(fake).map((r) => [r.startIndex, r.status])).toEqual([
      [0, 200],
      [5, 200],
      [10, 200],
      [15, 503],
      [15, 503],
    ]);
    // The three pages stored stay; the position after them is saved.
    expect((await storage.advisories.feed(FEED.name))?.recordCount).toBe(15);
    expect((await syncStateStore(storage, FEED.name).read())?.run).toMatchObject({
      kind: 'full',
      until: NOW,
      startIndex: 15,
    });

    down = false;
    fake.requests.length = 0;
    const later = NOW + 3_600_000;
    const resumed = await syncNvdCves(storage, FEED, { api: client(), now: () => later });
    const requests = cveRequests(fake);
    // Continues at page 15 (no page read twice), then brings the data up to now.
    expect(requests.map((r) => r.startIndex)).toEqual([15, 20, 25, 0]);
    expect(requests.slice(0, 3).every((r) => r.from === undefined)).toBe(true);
    expect(requests[3]).toMatchObject({
      from: new Date(NOW - DEFAULT_OVERLAP_MS).toISOString(),
      to: new Date(later).toISOString(),
    });
    expect(resumed.runs).toEqual([
      { kind: 'full', resumed: true, until: NOW },
      { kind: 'incremental', resumed: false, from: NOW - DEFAULT_OVERLAP_MS, until: later },
    ]);
    expect(resumed).toMatchObject({ added: 14, records: 29, syncedUntil: later });
    expect(await syncStateStore(storage, FEED.name).read()).toEqual({ base: fake.base, syncedUntil: later });
  });

  it('resumes an interrupted incremental sync in the window and at the page where it stopped', async () => {
    await syncNvdCves(storage, FEED, { api: client(), now: () => Date.parse('2023-01-01T00:00:00Z') });
    fake.requests.length = 0;
    fake.maxPerPage = 3;
    const now = Date.parse('2025-11-01T00:00:00Z'); // ≈ 1,034 days later: 9 windows
    let down = true;
    // Fail the second page of the window that holds the 9 records modified around 2025-10-21/24.
    fake.fail = ({ params }) =>
      down && params.get('startIndex') === '3' && params.get('lastModEndDate')?.startsWith('2025-11-01')
        ? 503
        : undefined;
    await expect(syncNvdCves(storage, FEED, { api: client({ attempts: 1 }), now: () => now })).rejects.toThrow(
      /HTTP 503/,
    );
    const failed = cveRequests(fake);
    const state = await syncStateStore(storage, FEED.name).read();
    expect(state?.run).toMatchObject({
      kind: 'incremental',
      startIndex: 3,
      windowStart: Date.parse(failed.at(-1)!.from!),
    });

    down = false;
    fake.requests.length = 0;
    const result = await syncNvdCves(storage, FEED, { api: client(), now: () => now + 60_000 });
    const resumed = cveRequests(fake);
    expect(resumed[0]).toEqual({ ...failed.at(-1)!, status: 200 }); // the same window and page
    expect(result.runs[0]).toMatchObject({ kind: 'incremental', resumed: true });
    expect(result.records).toBe(29);
    // Every window NVD was asked for is at most 120 days (the fake answers 404 otherwise).
    for (const r of [...failed, ...resumed].filter((r) => r.from)) {
      expect(Date.parse(r.to!) - Date.parse(r.from!)).toBeLessThanOrEqual(120 * DAY_MS);
    }
  });

  it('splits a long gap since the last sync into consecutive windows of at most 120 days', async () => {
    const start = Date.parse('2024-01-01T00:00:00Z');
    await syncStateStore(storage, FEED.name).write({ base: fake.base, syncedUntil: start });
    const now = Date.parse('2025-01-01T00:00:00Z');
    const result = await syncNvdCves(storage, FEED, { api: client(), now: () => now, overlapMs: 0 });
    const windows = cveRequests(fake).map((r) => [r.from, r.to]);
    expect(windows).toEqual([
      ['2024-01-01T00:00:00.000Z', '2024-04-30T00:00:00.000Z'],
      ['2024-04-30T00:00:00.000Z', '2024-08-28T00:00:00.000Z'],
      ['2024-08-28T00:00:00.000Z', '2024-12-26T00:00:00.000Z'],
      ['2024-12-26T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
    ]);
    expect(cveRequests(fake).every((r) => r.status === 200)).toBe(true);
    // The CVEs last modified in 2024: CVE-2021-26855, CVE-2019-9193, CVE-2024-38476, CVE-2021-34473, CVE-2023-7028, CVE-2012-2122, CVE-2021-23017.
    const expected = fake.cves.filter(
      (c) => nvdTime(c.lastModified as string) >= start && nvdTime(c.lastModified as string) <= now,
    );
    expect(result).toMatchObject({ windows: 4, added: expected.length, records: expected.length });
    expect(expected.length).toBe(7);
  });

  it('reads a window again when records leave it while it is being read', async () => {
    fake.maxPerPage = 4;
    const since = Date.parse('2025-10-01T00:00:00Z');
    await syncStateStore(storage, FEED.name).write({ base: fake.base, syncedUntil: since });
    const now = Date.parse('2025-11-01T00:00:00Z'); // 12 records modified in this month
    let moved = false;
    fake.fail = ({ params }) => {
      // After the first page is served, NVD modifies a record of the first page: it leaves the window, positions shift.
      if (!moved && params.get('startIndex') === '4') {
        moved = true;
        touch('CVE-2015-1427', now + DAY_MS);
      }
      return undefined;
    };
    const result = await syncNvdCves(storage, FEED, { api: client(), now: () => now, overlapMs: 0 });
    expect(cveRequests(fake).map((r) => r.startIndex)).toEqual([0, 4, 8, 0, 4, 8]);
    // Without the second pass CVE-2022-40684, shifted onto page one after it was read, would be missing.
    expect(result.records).toBe(12);
    expect(await stored(storage, 'CVE-2022-40684')).toBeDefined();
  });

  it('starts over when the API base changes, and on --force', async () => {
    await syncStateStore(storage, FEED.name).write({ base: 'https://elsewhere.example', syncedUntil: NOW });
    await syncNvdCves(storage, FEED, { api: client(), now: () => NOW });
    expect(cveRequests(fake)[0]).toEqual({ startIndex: 0, status: 200 }); // full listing
    fake.requests.length = 0;
    const forced = await syncNvdCves(storage, FEED, { api: client(), now: () => NOW + 1, full: true });
    expect(cveRequests(fake)).toEqual([{ startIndex: 0, status: 200 }]);
    expect(forced).toMatchObject({ unchanged: 29, records: 29 });
  });

  it('syncFeed sends nist-nvd2 to the API (API key included), a feed-file source to the download', async () => {
    const registry = new FeedRegistry([
      { name: 'nvd-mirror', adapter: 'nist-nvd2', source: `${fake.base}/rest/json/cves/2.0` },
    ]);
    const result = await syncFeed(storage, registry, 'nist-nvd2', {
      nvd: { baseUrl: fake.base, apiKey: 'secret-key', clock: fakeClock() },
    });
    expect(result).toMatchObject({
      feed: 'nist-nvd2',
      source: fake.base,
      notModified: false,
      records: 29,
      api: { pages: 1, requests: 1 },
    });
    expect(fake.requests.map((r) => r.apiKey)).toEqual(['secret-key']);
    const mirror = await syncFeed(storage, registry, 'nvd-mirror', {
      nvd: { baseUrl: 'https://services.nvd.nist.gov', clock: fakeClock() },
    });
    expect(mirror).toMatchObject({ source: fake.base, records: 29 });
  });
});

describe('nvdApiBase', () => {
  const feed = (source?: string, adapter: 'nist-nvd2' | 'osv' = 'nist-nvd2') => ({
    name: 'x',
    description: 'x',
    adapter,
    ...(source ? { source } : {}),
  });
  it.each([
    [undefined, 'https://services.nvd.nist.gov'],
    ['https://services.nvd.nist.gov', 'https://services.nvd.nist.gov'],
    ['https://services.nvd.nist.gov/', 'https://services.nvd.nist.gov'],
    ['https://nvd-mirror.example/rest/json/cves/2.0', 'https://nvd-mirror.example'],
    ['https://mirror.example/nvd/rest/json/cves/2.0/', 'https://mirror.example/nvd'],
    ['http://127.0.0.1:9999', 'http://127.0.0.1:9999'],
    ['https://nvd.nist.gov/feeds/json/cve/2.0/nvdcve-2.0-modified.json.gz', undefined],
    ['https://mirror.example/rest/json/cves/2.0?pubStartDate=x', undefined],
    ['/data/nvd', undefined],
  ])('%s → %s', (source, expected) => {
    expect(nvdApiBase(feed(source), 'https://services.nvd.nist.gov')).toBe(expected);
  });
  it('only for nist-nvd2 feeds', () => {
    expect(nvdApiBase(feed(undefined, 'osv'))).toBeUndefined();
  });
});
