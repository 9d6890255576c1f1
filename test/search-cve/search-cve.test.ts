/**
 * `GET /v3/search/cve` on both engines: hits from the readable feeds and from target-intel, both
 * paging modes (every hit exactly once across feeds and target-intel), the official and the served
 * schemas, entitlement filtering, and the 400/401 answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeedEntitlement } from '../../src/core/entitlements.js';
import { advisory, loadRecords } from '../advisories/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { contractOf } from '../support/contract-of.js';
import { engineCases } from '../support/engines.js';
import { type OpenApi, OpenApiValidator } from '../support/openapi-validator.js';

const PATH = '/v3/search/cve';
const CVE = 'CVE-2024-0001';
const HOSTS = 23;

interface Hit {
  index: string;
  id: string;
  source: any;
}

describe.each(engineCases())('GET /v3/search/cve ($name)', (engine) => {
  let t: TestApp;
  let served: OpenApiValidator;
  const tokens: Record<'alpha' | 'alphaGamma' | 'none', string> = { alpha: '', alphaGamma: '', none: '' };
  /** Every hit for CVE in the served order, as a token reading every feed sees it. */
  let expected: string[];

  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadRecords(t.storage, 'alpha', [advisory(CVE), advisory('CVE-2024-0002')]);
    await loadRecords(t.storage, 'beta', [advisory(CVE)]);
    await loadRecords(t.storage, 'gamma', [advisory(CVE), advisory('CVE-2024-0009')]);
    const hosts = Array.from({ length: HOSTS }, (_, i) => ({ ip: `198.51.100.${i + 1}`, port: 443, cves: [CVE] }));
    await t.ingest([
      ...hosts,
      { ip: '198.51.100.200', port: 22, cves: ['CVE-2024-0002'] },
      { ip: '198.51.100.201', port: 22 },
    ]);
    for (const [name, feeds] of [
      ['alpha', 'alpha'],
      ['alphaGamma', 'alpha,gamma'],
      ['none', 'none'],
    ] as const) {
      tokens[name] = (await t.storage.tokens.create(name, { feeds: parseFeedEntitlement(feeds) })).token;
    }
    served = new OpenApiValidator((await t.get('/openapi.json', null)).body as OpenApi, `served-cve-${engine.name}`);
    const ids = (await t.context.hostIndex.index.evaluate({ cve: CVE, dateAdded: [], observed: [] })).toArray();
    expected = ['alpha', 'beta', 'gamma'].map((feed) => `${feed}/${CVE}`).concat(ids.map((id) => `target-intel/${id}`));
  }, 120_000);
  afterAll(async () => t?.close());

  const key = (hit: Hit) => `${hit.index}/${hit.id}`;

  async function ok(url: string, token?: string) {
    const response = await t.get(url, token);
    expect(response.status, JSON.stringify(response.body).slice(0, 400)).toBe(200);
    expect(contractOf(PATH)!(response.body)).toEqual([]);
    expect(served.responseProblems(PATH, 'get', 200, 'application/json', response.body)).toEqual([]);
    return response.body as { _meta: Record<string, any>; data: Hit[] };
  }

  it('serves the advisories of each feed, then the target-intel records, with counts per index', async () => {
    const body = await ok(`${PATH}?cve=${CVE}`);
    expect(body.data.map(key)).toEqual(expected);
    expect(expected).toHaveLength(3 + HOSTS);
    const [first] = body.data;
    expect(first!.source.cveMetadata.cveId).toBe(CVE);
    const host = body.data.at(-1)!;
    expect(host.source).toMatchObject({ cve: [CVE], contains_cve: true, port: 443 });
    expect(body._meta).toMatchObject({
      cve: CVE,
      limit: 100,
      page: 1,
      total_pages: 1,
      total_count: 3 + HOSTS,
      current_count: 3 + HOSTS,
      indices_with_hits: 4,
      top_index_counts: [
        { index: 'target-intel', doc_count: HOSTS },
        { index: 'alpha', doc_count: 1 },
        { index: 'beta', doc_count: 1 },
        { index: 'gamma', doc_count: 1 },
      ],
    });
    expect(body._meta.next_cursor).toBeUndefined();
  });

  it.each([1, 2, 3, 5, 26, 100])('pages of %i cover every hit once, in order', async (limit) => {
    const seen: string[] = [];
    const pages = Math.ceil(expected.length / limit);
    for (let page = 1; page <= pages + 1; page++) {
      const body = await ok(`${PATH}?cve=${CVE}&page=${page}&limit=${limit}`);
      expect(body._meta).toMatchObject({ page, limit, total_pages: pages, total_count: expected.length });
      expect(body._meta.current_count).toBe(body.data.length);
      seen.push(...body.data.map(key));
    }
    expect(seen).toEqual(expected);
  });

  it.each([
    ['start_cursor=true', 1],
    ['start_cursor=', 2],
    ['cursor=', 3],
    ['start_cursor=1', 4],
    ['start_cursor=true', 25],
    ['start_cursor=true', 1000],
  ])(
    'a cursor walk (%s, limit %i) returns every hit exactly once, across feeds and target-intel',
    async (start, limit) => {
      const seen: string[] = [];
      let body = await ok(`${PATH}?cve=${CVE}&${start}&limit=${limit}`);
      let pages = 1;
      for (;;) {
        expect(body._meta.page).toBeUndefined();
        expect(body._meta.total_count).toBe(expected.length);
        seen.push(...body.data.map(key));
        if (!body._meta.next_cursor) break;
        expect(body.data).toHaveLength(limit);
        body = await ok(`${PATH}?cve=${CVE.toLowerCase()}&cursor=${encodeURIComponent(body._meta.next_cursor)}`);
        pages++;
      }
      expect(seen).toEqual(expected);
      expect(pages).toBe(Math.max(1, Math.ceil(expected.length / limit)));
    },
  );

  it('a walk goes on past records added to target-intel meanwhile, and meets them', async () => {
    const first = await ok(`${PATH}?cve=CVE-2024-0002&start_cursor=true&limit=1`);
    expect(first.data.map(key)).toEqual([`alpha/CVE-2024-0002`]);
    await t.ingest([{ ip: '198.51.100.210', port: 8443, cves: ['CVE-2024-0002'] }]);
    const rest: string[] = [];
    for (let cursor = first._meta.next_cursor; cursor; ) {
      const body = await ok(`${PATH}?cve=CVE-2024-0002&cursor=${encodeURIComponent(cursor)}`);
      rest.push(...body.data.map((hit) => `${hit.index}/${hit.source.ip}`));
      cursor = body._meta.next_cursor;
    }
    expect(rest).toEqual(['target-intel/198.51.100.200', 'target-intel/198.51.100.210']);
  });

  it.each<[keyof typeof tokens, string[], number]>([
    ['alpha', ['alpha'], 2],
    ['alphaGamma', ['alpha', 'gamma'], 3],
    ['none', [], 1],
  ])('token reading %s: only its feeds, and target-intel', async (token, feeds, queried) => {
    const body = await ok(`${PATH}?cve=${CVE}`, tokens[token]);
    const indexes = [...new Set(body.data.map((hit) => hit.index))];
    expect(indexes).toEqual([...feeds, 'target-intel']);
    expect(body._meta).toMatchObject({
      total_count: feeds.length + HOSTS,
      queried_index_count: queried,
      indices_with_hits: feeds.length + 1,
    });
  });

  it('a CVE held only by feeds the token may not read is an empty answer, not a refusal', async () => {
    const body = await ok(`${PATH}?cve=CVE-2024-0009`, tokens.alpha);
    expect(body.data).toEqual([]);
    expect(body._meta).toMatchObject({ total_count: 0, indices_with_hits: 0, top_index_counts: [] });
    expect((await ok(`${PATH}?cve=CVE-2024-0009`)).data.map(key)).toEqual(['gamma/CVE-2024-0009']);
  });

  it('a cursor does not carry one token’s feeds to another', async () => {
    const first = await ok(`${PATH}?cve=${CVE}&start_cursor=true&limit=1`, tokens.alpha);
    const next = await ok(`${PATH}?cve=${CVE}&cursor=${encodeURIComponent(first._meta.next_cursor)}`, tokens.alpha);
    expect(next.data.every((hit) => hit.index === 'target-intel')).toBe(true);
  });

  it('answers a request as the official Python SDK sends it (bare token, percent-encoded)', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `${PATH}?cve=cve%2D2024%2D0001&page=1&limit=5`,
      headers: { authorization: t.token, accept: 'application/json' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json().data.map(key)).toEqual(expected.slice(0, 5));
  });

  it.each<[string, RegExp]>([
    ['', /cve/],
    ['cve=', /cve/],
    ['cve=CVE-24-1', /cve/],
    ['cve=CVE-2024-1', /cve/],
    [`cve=${'CVE-2024-'}${'1'.repeat(40)}`, /cve/],
    [`cve=${CVE}&limit=0`, /limit/],
    [`cve=${CVE}&limit=1001`, /limit/],
    [`cve=${CVE}&page=0`, /page/],
    [`cve=${CVE}&page=101`, /page \(101\) × limit \(100\)/],
    [`cve=${CVE}&page=11&limit=1000`, /page \(11\) × limit \(1000\)/],
    [`cve=${CVE}&page=2&limit=1000&start_cursor=true`, /page/],
    [`cve=${CVE}&page=1&cursor=`, /page/],
    [`cve=${CVE}&cursor=forged.sig`, /cursor/],
    [`cve=${CVE}&vendor=acme`, /vendor/],
  ])('400 for %s', async (query, message) => {
    const response = await t.get(`${PATH}?${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body).toEqual({ error: true, errors: [expect.stringMatching(message)] });
    expect(served.responseProblems(PATH, 'get', 400, 'application/json', response.body)).toEqual([]);
  });

  it('400 when a cursor is continued with another CVE or limit', async () => {
    const first = await ok(`${PATH}?cve=${CVE}&start_cursor=true&limit=2`);
    const cursor = encodeURIComponent(first._meta.next_cursor);
    for (const [query, name] of [
      [`cve=CVE-2024-0002&cursor=${cursor}`, 'cve'],
      [`cve=${CVE}&limit=3&cursor=${cursor}`, 'limit'],
    ] as const) {
      const response = await t.get(`${PATH}?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.errors[0]).toContain(`parameter "${name}" differs from the cursor's`);
    }
  });

  it('401 without a token or with a wrong one', async () => {
    for (const token of [null, 'not-a-token']) {
      const response = await t.get(`${PATH}?cve=${CVE}`, token);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: true, errors: [expect.any(String)] });
    }
  });
});
