/**
 * The SDK (`vulnscope/client`) against a live server on each engine: every endpoint of ENDPOINTS,
 * cursor walks, exports, and the 401, 402 and 429 paths as typed errors.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Vulnscope,
  VulnscopeApiError,
  VulnscopeAuthError,
  VulnscopeEntitlementError,
  VulnscopeRateLimitError,
  type RetryNotice,
} from '../../src/client/index.js';
import { METHOD_OF_ENDPOINT } from '../../src/client/vulnscope.js';
import { ENDPOINTS } from '../../src/core/api/index.js';
import { engineCases } from '../support/engines.js';
import {
  ALPHA,
  awayFromWindowEnd,
  HOSTS,
  ON_443,
  startClientTestServer,
  WITH_CVE,
  type ClientTestServer,
} from './support.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function rejection(promise: Promise<unknown>): Promise<VulnscopeApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(VulnscopeApiError);
  return error as VulnscopeApiError;
}

describe('the SDK covers the API', () => {
  it('has a method for every endpoint of ENDPOINTS', () => {
    expect(Object.keys(METHOD_OF_ENDPOINT).sort()).toEqual(Object.keys(ENDPOINTS).sort());
    for (const method of Object.values(METHOD_OF_ENDPOINT)) {
      expect(typeof Vulnscope.prototype[method]).toBe('function');
    }
  });
});

describe.each(engineCases())('the SDK against a live server ($name)', (engine) => {
  let s: ClientTestServer;
  let client: Vulnscope;

  beforeAll(async () => {
    s = await startClientTestServer(engine);
    client = new Vulnscope({ baseUrl: s.base, token: s.token });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('reads VULNSCOPE_URL and VULNSCOPE_TOKEN when not given', async () => {
    const fromEnv = new Vulnscope({ env: { VULNSCOPE_URL: `${s.base}/`, VULNSCOPE_TOKEN: s.token } });
    const page = await fromEnv.targetIntel({ limit: 1 });
    expect(page._meta.total_documents).toBe(HOSTS);
  });

  it('targetIntel: one page with typed filters (integers and booleans)', async () => {
    const page = await client.targetIntel({ port: 443, contains_cve: false, limit: 5, sort: 'ip', order: 'asc' });
    expect(page._meta.total_documents).toBe(ON_443 - 4); // 443 and a CVE: i = 0, 15, 30, 45
    expect(page.data).toHaveLength(5);
    expect(page.data.every((record) => record.port === 443 && record.contains_cve === false)).toBe(true);
    const ips = page.data.map((record) => record.ip!);
    expect(ips).toEqual([...ips].sort((a, b) => Number(a.split('.')[3]) - Number(b.split('.')[3])));
  });

  it('targetIntelRecords walks the cursor: every record once, across pages', async () => {
    const pages = await collect(client.targetIntelPages({ limit: 7 }));
    expect(pages).toHaveLength(Math.ceil(HOSTS / 7));
    expect(pages.at(-1)!._meta.next_cursor).toBeUndefined();
    const records = await collect(client.targetIntelRecords({ contains_cve: true, limit: 3, explain: true }));
    expect(records).toHaveLength(WITH_CVE);
    expect(new Set(records.map((record) => record.ip)).size).toBe(WITH_CVE);
  });

  it('a walk stops early when the loop breaks', async () => {
    let seen = 0;
    for await (const record of client.targetIntelRecords({ limit: 2 })) {
      expect(record.ip).toBeTruthy();
      if (++seen === 3) break;
    }
    expect(seen).toBe(3);
  });

  it('targetIntelFacets: counts per field', async () => {
    const facets = await client.targetIntelFacets({ fields: 'country_code,port:3', contains_cve: true });
    expect(facets._meta.total_documents).toBe(WITH_CVE);
    const countries = facets.data.country_code!.values;
    expect(countries.reduce((sum, value) => sum + value.count, 0)).toBe(WITH_CVE);
    expect(facets.data.port!.values.length).toBeLessThanOrEqual(3);
  });

  it('targetIntelExport streams every match and checks the closing line', async () => {
    const records = await collect(client.targetIntelExport({ port: 443 }));
    expect(records).toHaveLength(ON_443);
    expect(records.every((record) => record.port === 443)).toBe(true);
    const all = await collect(client.targetIntelExport());
    expect(all).toHaveLength(HOSTS);
  });

  it('an export left early frees the token for the next one', async () => {
    for await (const _ of client.targetIntelExport()) break;
    // One export per token at a time: a second would get a 429 if the first were still held.
    const again = await collect(client.targetIntelExport({ port: 443 }));
    expect(again).toHaveLength(ON_443);
  });

  it('cpeSearch: names and their CVEs', async () => {
    const page = await client.cpeSearch({ part: 'o', vendor: 'fortinet', product: 'fortios', version: '7.2.1' });
    expect(page.data.map((row) => row.cves)).toEqual([['CVE-2022-40684', 'CVE-2024-23113']]);
    const limited = await client.cpeSearch({ vendor: 'apache', product: 'http_server', limit: 1, page: 2 });
    expect(limited.data).toHaveLength(1);
  });

  it('advisories: pages, cursor walks and the export agree', async () => {
    const page = await client.advisories({ name: 'alpha', limit: 10, page: 2 });
    expect(page._meta.filtered).toBe(ALPHA);
    expect(page.data).toHaveLength(10);
    const walked = await collect(client.advisoryRecords({ name: 'alpha', limit: 4 }));
    expect(walked).toHaveLength(ALPHA);
    const exported = await collect(client.advisoryExport({ name: 'alpha' }));
    expect(exported.map((r) => JSON.stringify(r))).toEqual(walked.map((r) => JSON.stringify(r)));
    const widgets = await collect(client.advisoryRecords({ name: 'alpha', product: 'widget', limit: 100 }));
    expect(widgets).toHaveLength(Math.ceil(ALPHA / 2));
  });

  it('searchCve and searchCveHits: a page, and a cursor walk holding the same hits once', async () => {
    const cve = 'CVE-2024-1000'; // hosts 0, 12, 24, 36, 48
    const page = await client.searchCve({ cve, limit: 100 });
    const walked = await collect(client.searchCveHits({ cve, limit: 2 }));
    const key = (hit: { index: string; id: string | number }) => `${hit.index}/${hit.id}`;
    expect(walked.map(key)).toEqual(page.data.map(key));
    expect(new Set(walked.map(key)).size).toBe(walked.length);
    expect(walked.filter((hit) => hit.index === 'target-intel')).toHaveLength(5);
  });

  it('cpeLookup: the CVEs of a CPE, as CPE search lists them for its name', async () => {
    const answer = await client.cpeLookup({ cpe: 'cpe:2.3:o:fortinet:fortios:7.2.1' });
    expect(answer.data).toEqual(['CVE-2022-40684', 'CVE-2024-23113']);
    expect(answer._meta.cpe).toBe('cpe:2.3:o:fortinet:fortios:7.2.1');
  });

  it('purl and purls: a package version alone and in a batch, each with its purl_struct', async () => {
    const one = await client.purl({ purl: 'pkg:pypi/requests@2.0.0' });
    expect(one._meta.purl_struct).toMatchObject({ type: 'pypi', name: 'requests', version: '2.0.0' });
    const many = await client.purls(['pkg:pypi/requests@2.0.0', 'pkg:npm/left-pad@1.0.0']);
    expect(many.data.map((item) => item.purl)).toEqual(['pkg:pypi/requests@2.0.0', 'pkg:npm/left-pad@1.0.0']);
    expect(many.data[1]!.purl_struct).toMatchObject({ type: 'npm', name: 'left-pad' });
    const error = await rejection(client.purls(Array.from({ length: 101 }, (_, i) => `pkg:npm/p${i}@1.0.0`)));
    expect(error.status).toBe(400);
  });

  it('entitlements and openapiLookup: what the token may read, and the served document', async () => {
    expect((await client.entitlements()).entitlements.feeds).toEqual(expect.arrayContaining(['alpha', 'beta']));
    const beta = new Vulnscope({ baseUrl: s.base, token: s.betaToken });
    expect((await beta.entitlements()).entitlements.feeds).toEqual(['beta']);
    const document = await client.openapiLookup();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths as object)).toContain('/v3/cpe');
  });

  it('tokens, tokenSelf, createToken, revokeToken: an admin token and a child token', async () => {
    const admin = new Vulnscope({
      baseUrl: s.base,
      token: (await s.t.storage.tokens.create('sdk-admin', { admin: true })).token,
    });
    const created = await admin.createToken({ name: 'sdk-made', feeds: ['beta'], rate_limit: 50 });
    expect(created).toMatchObject({ name: 'sdk-made', feeds: ['beta'], rate_limit: 50, admin: false, child: false });
    const made = new Vulnscope({ baseUrl: s.base, token: created.token });
    expect(await made.tokenSelf()).toMatchObject({ id: created.id, state: 'active', parent_id: expect.any(Number) });
    expect((await made.entitlements()).entitlements.admin).toEqual(['false']);
    expect((await admin.tokens()).data.map((token) => token.name)).toContain('sdk-made');

    const child = await made.createToken({ name: 'sdk-child' });
    expect(child).toMatchObject({ parent_id: created.id, child: true, feeds: ['beta'], rate_limit: 50 });
    expect((await made.tokens()).data.map((token) => token.id)).toEqual([child.id]);
    const grandchild = await rejection(
      new Vulnscope({ baseUrl: s.base, token: child.token }).createToken({ name: 'x' }),
    );
    expect(grandchild.status).toBe(403);
    const notMine = await rejection(made.revokeToken(created.id - 1));
    expect(notMine.status).toBe(404);

    const revoked = await admin.revokeToken(created.id);
    expect(revoked).toMatchObject({ id: created.id, state: 'revoked', children_revoked: 1 });
    const refused = await rejection(new Vulnscope({ baseUrl: s.base, token: child.token }).tokenSelf());
    expect(refused).toBeInstanceOf(VulnscopeAuthError);
  });

  it('c2Addresses and c2Hostnames: the C2 lists as JSON (none classified c2 here)', async () => {
    expect(await client.c2Addresses()).toEqual([]);
    expect(await client.c2Hostnames()).toEqual([]);
  });

  it('advisoryFeeds, indexes, backups, backup, indexBackups, indexBackup', async () => {
    const feeds = await client.advisoryFeeds();
    expect(feeds.data.map((feed) => feed.name)).toEqual(expect.arrayContaining(['alpha', 'beta']));
    const indexes = await client.indexes();
    expect(indexes.data.map((index) => index.name)).toContain('target-intel');
    const backups = await client.backups();
    expect(backups.data.find((item) => item.name === 'alpha')).toMatchObject({ available: true });
    expect(await client.backup('alpha')).toMatchObject({
      available: true,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const indexBackups = await client.indexBackups();
    expect(indexBackups.data.map((index) => index.name)).toContain('target-intel');
    const index = await client.indexBackup('target-intel');
    const latest = index.data[0]!;

    // The signed URL is fetched without the token; its bytes match the advertised sha256.
    const response = await client.download(latest.url!);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(latest.sha256);
  });

  it('a 404 is a request error naming what was asked', async () => {
    const error = await rejection(client.backup('no-such-feed'));
    expect(error.kind).toBe('request');
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/^GET \/v4\/backup\/no-such-feed: 404/);
  });

  it('a 400 carries the server messages', async () => {
    const error = await rejection(client.targetIntel({ cidr: 'not-a-cidr' }));
    expect(error.kind).toBe('request');
    expect(error.status).toBe(400);
    expect(error.messages.join(' ')).toMatch(/cidr/);
  });

  it('401: a wrong token is an auth error, and the message never holds the token', async () => {
    const secret = 'vs_wrong_token_that_must_not_leak';
    const wrong = new Vulnscope({ baseUrl: s.base, token: secret });
    const error = await rejection(wrong.advisoryFeeds());
    expect(error).toBeInstanceOf(VulnscopeAuthError);
    expect(error.kind).toBe('auth');
    expect(error.status).toBe(401);
    expect(error.messages.length).toBeGreaterThan(0);
    expect(`${error.message} ${error.messages.join(' ')} ${error.stack}`).not.toContain(secret);
    const exported = await rejection(collect(wrong.targetIntelExport()));
    expect(exported.kind).toBe('auth');
  });

  it('402: a feed the token may not read is an entitlement error', async () => {
    const beta = new Vulnscope({ baseUrl: s.base, token: s.betaToken });
    expect((await beta.advisories({ name: 'beta' }))._meta.filtered).toBe(1);
    const error = await rejection(beta.advisories({ name: 'alpha' }));
    expect(error).toBeInstanceOf(VulnscopeEntitlementError);
    expect(error.status).toBe(402);
    expect(error.messages[0]).toMatch(/not entitled/);
    const exported = await rejection(collect(beta.advisoryExport({ name: 'alpha' })));
    expect(exported.kind).toBe('entitlement');
    const walked = await rejection(collect(beta.advisoryRecords({ name: 'alpha' })));
    expect(walked.kind).toBe('entitlement');
  });

  it('429: retried after Retry-After, so a burst over the budget still succeeds', async () => {
    const retries: RetryNotice[] = [];
    const limited = new Vulnscope({ baseUrl: s.base, token: s.twoToken, onRetry: (r) => retries.push(r) });
    // Two requests per 2 s window: five in a row meet at least one 429.
    for (let i = 0; i < 5; i++) expect((await limited.advisoryFeeds()).data.length).toBeGreaterThan(0);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatchObject({ request: 'GET /v4/advisory/list', attempt: 1 });
    expect(retries[0]!.waitMs).toBeGreaterThan(0);
    expect(retries[0]!.waitMs).toBeLessThanOrEqual(2000);
  });

  it('429: without retries, or when Retry-After passes the cap, a rate-limit error at once', async () => {
    const token = await s.oneRequestToken();
    const none = new Vulnscope({ baseUrl: s.base, token, maxRetries: 0 });
    await awayFromWindowEnd(2000, 500);
    await none.advisoryFeeds();
    const error = await rejection(none.advisoryFeeds());
    expect(error).toBeInstanceOf(VulnscopeRateLimitError);
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.messages[0]).toMatch(/rate limit exceeded/);

    // Backups have a one-hour window: waiting for it would pass the default cap of 60 s.
    const retries: RetryNotice[] = [];
    const capped = new Vulnscope({ baseUrl: s.base, token, onRetry: (r) => retries.push(r) });
    await awayFromWindowEnd();
    await capped.backups();
    const started = Date.now();
    const late = await rejection(capped.backups());
    expect(late.kind).toBe('rate-limit');
    expect(late.retryAfterSeconds).toBeGreaterThan(60);
    expect(retries).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
