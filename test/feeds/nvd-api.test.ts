import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VulnscopeError } from '../../src/core/errors.js';
import { NVD_PATHS, NVD_WINDOW_MS, NvdApiClient, nvdPages } from '../../src/ingest/feeds/nvd-api.js';
import { freePort } from '../support/cli.js';
import { fakeClock } from './clock.js';
import { cveRequests, startFakeNvd, type FakeNvd } from './fake-nvd.js';

/** The NVD API client and pager against a local stand-in of NVD (no wall-clock waits: a fake clock). */

let fake: FakeNvd;
beforeAll(async () => {
  fake = await startFakeNvd();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.maxPerPage = 2000;
  delete fake.fail;
});

const cvePages = (client: NvdApiClient, startIndex = 0, resultsPerPage = 2000) =>
  nvdPages(client, { path: NVD_PATHS.cves, listKey: 'vulnerabilities', resultsPerPage, startIndex });

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('nvdPages', () => {
  it('pages through the whole collection, advancing by what each page really holds', async () => {
    fake.maxPerPage = 10; // NVD may send fewer than asked
    const client = new NvdApiClient({ baseUrl: fake.base, clock: fakeClock() });
    const pages = await collect(cvePages(client));
    expect(pages.map((p) => [p.startIndex, p.items.length, p.next, p.totalResults])).toEqual([
      [0, 10, 10, 29],
      [10, 10, 20, 29],
      [20, 9, 29, 29],
    ]);
    const ids = pages.flatMap((p) => p.items.map((i) => (i as { cve: { id: string } }).cve.id));
    expect(new Set(ids).size).toBe(29);
    expect(cveRequests(fake).map((r) => r.startIndex)).toEqual([0, 10, 20]);
    expect(fake.requests.every((r) => r.params.get('resultsPerPage') === '2000')).toBe(true);
    expect(client.requests).toBe(3);
  });

  it('starts where it is told (a resumed sync)', async () => {
    const client = new NvdApiClient({ baseUrl: fake.base, clock: fakeClock() });
    const pages = await collect(cvePages(client, 25, 3));
    expect(pages.map((p) => [p.startIndex, p.items.length])).toEqual([
      [25, 3],
      [28, 1],
    ]);
  });

  it('ends after one request when nothing matches', async () => {
    const client = new NvdApiClient({ baseUrl: fake.base, clock: fakeClock() });
    const pages = await collect(
      nvdPages(client, {
        path: NVD_PATHS.cves,
        listKey: 'vulnerabilities',
        resultsPerPage: 2000,
        params: { lastModStartDate: '1999-01-01T00:00:00.000Z', lastModEndDate: '1999-02-01T00:00:00.000Z' },
      }),
    );
    expect(pages.map((p) => [p.totalResults, p.items.length])).toEqual([[0, 0]]);
  });
});

describe('NvdApiClient', () => {
  it('sends the API key as the apiKey header when one is configured, and none otherwise', async () => {
    await new NvdApiClient({ baseUrl: fake.base, apiKey: 'k-123', clock: fakeClock() }).getJson(NVD_PATHS.cves, {
      startIndex: 0,
    });
    await new NvdApiClient({ baseUrl: fake.base, clock: fakeClock() }).getJson(NVD_PATHS.cves, { startIndex: 0 });
    expect(fake.requests.map((r) => r.apiKey)).toEqual(['k-123', undefined]);
    // Never in the URL.
    expect(fake.requests.every((r) => !r.params.has('apiKey'))).toBe(true);
  });

  it('keeps to the public rate limit: 5 requests per rolling window without a key', async () => {
    const clock = fakeClock(0);
    const client = new NvdApiClient({ baseUrl: fake.base, clock });
    const starts: number[] = [];
    for (let i = 0; i < 11; i++) {
      await client.getJson(NVD_PATHS.cves, { startIndex: 0, resultsPerPage: 1 });
      starts.push(clock.time);
    }
    expect(starts).toEqual([
      0,
      0,
      0,
      0,
      0,
      NVD_WINDOW_MS,
      NVD_WINDOW_MS,
      NVD_WINDOW_MS,
      NVD_WINDOW_MS,
      NVD_WINDOW_MS,
      2 * NVD_WINDOW_MS,
    ]);
    expect(NVD_WINDOW_MS).toBeGreaterThanOrEqual(30_000);
  });

  it('allows 50 requests per window with a key', async () => {
    const clock = fakeClock(0);
    const client = new NvdApiClient({ baseUrl: fake.base, apiKey: 'k', clock });
    for (let i = 0; i < 50; i++) await client.getJson(NVD_PATHS.cves, { startIndex: 0, resultsPerPage: 1 });
    expect(clock.time).toBe(0);
    await client.getJson(NVD_PATHS.cves, { startIndex: 0, resultsPerPage: 1 });
    expect(clock.time).toBe(NVD_WINDOW_MS);
  });

  it('retries a 503 with exponential backoff and succeeds', async () => {
    let failures = 2;
    fake.fail = () => (failures-- > 0 ? 503 : undefined);
    const clock = fakeClock(0);
    const retries: string[] = [];
    const client = new NvdApiClient({
      baseUrl: fake.base,
      clock,
      backoffMs: 1_000,
      onRetry: (r) => retries.push(r.reason),
    });
    const { body } = await client.getJson(NVD_PATHS.cves, { startIndex: 0 });
    expect(body.totalResults).toBe(29);
    expect(fake.requests.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(clock.sleeps).toEqual([1_000, 2_000]);
    expect(retries[0]).toMatch(/HTTP 503.*induced failure/);
    expect(client.requests).toBe(3);
  });

  it.each([403, 429, 500, 502])('retries HTTP %i', async (status) => {
    let failures = 1;
    fake.fail = () => (failures-- > 0 ? status : undefined);
    const client = new NvdApiClient({ baseUrl: fake.base, clock: fakeClock() });
    await client.getJson(NVD_PATHS.cves, { startIndex: 0 });
    expect(fake.requests.map((r) => r.status)).toEqual([status, 200]);
  });

  it('does not retry a request NVD refuses (404 with its message)', async () => {
    const client = new NvdApiClient({ baseUrl: fake.base, clock: fakeClock() });
    const error = await client
      .getJson(NVD_PATHS.cves, {
        lastModStartDate: '2020-01-01T00:00:00.000Z',
        lastModEndDate: '2021-01-01T00:00:00.000Z',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VulnscopeError);
    expect((error as Error).message).toMatch(/HTTP 404.*120 days/);
    expect(fake.requests.length).toBe(1);
  });

  it('gives up after the configured attempts with a 503 error of the one error family', async () => {
    fake.fail = () => 503;
    const clock = fakeClock(0);
    const client = new NvdApiClient({ baseUrl: fake.base, clock, attempts: 4, backoffMs: 100, maxBackoffMs: 250 });
    const error = (await client.getJson(NVD_PATHS.cves, {}).catch((e: unknown) => e)) as VulnscopeError;
    expect(error).toBeInstanceOf(VulnscopeError);
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/failed after 4 attempts: HTTP 503/);
    expect(clock.sleeps).toEqual([100, 200, 250]);
  });

  it("waits as long as the server's Retry-After says", async () => {
    let failures = 1;
    const server = fake;
    server.fail = () => (failures-- > 0 ? 429 : undefined);
    // The fake sends no Retry-After; wrap fetch to add one.
    const clock = fakeClock(0);
    const client = new NvdApiClient({
      baseUrl: fake.base,
      clock,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (response.status !== 429) return response;
        return new Response(null, { status: 429, headers: { 'retry-after': '7' } });
      },
    });
    await client.getJson(NVD_PATHS.cves, {});
    expect(clock.sleeps).toEqual([7_000]);
  });

  it('retries network errors (nothing listening) and then reports them', async () => {
    const port = await freePort();
    const clock = fakeClock(0);
    const client = new NvdApiClient({ baseUrl: `http://127.0.0.1:${port}`, clock, attempts: 3, backoffMs: 10 });
    const error = (await client.getJson(NVD_PATHS.cves, {}).catch((e: unknown) => e)) as VulnscopeError;
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/after 3 attempts: .*ECONNREFUSED/);
    expect(clock.sleeps).toEqual([10, 20]);
  });

  it('retries a body that is not an NVD page', async () => {
    let calls = 0;
    const client = new NvdApiClient({
      baseUrl: fake.base,
      clock: fakeClock(),
      fetch: async (input, init) => (calls++ === 0 ? new Response('{"truncated', { status: 200 }) : fetch(input, init)),
    });
    const { body } = await client.getJson(NVD_PATHS.cves, {});
    expect(body.totalResults).toBe(29);
    expect(calls).toBe(2);
  });
});
