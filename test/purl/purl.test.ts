/**
 * `GET /v3/purl` and `POST /v3/purls` over the real PyPA and Go OSV samples and a hand-built CVE 5
 * feed, on both engines: the advisories of a package version (checked against an oracle that reads
 * the OSV files directly), bodies valid against the official lookups document and the served
 * /openapi.json, requests shaped as the official Python SDK sends them, and 400/401/402/413/415.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeedEntitlement } from '../../src/core/entitlements.js';
import { advisory, loadRealFeed, loadRecords } from '../advisories/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { CONTRACT_ERROR, contractOf } from '../support/contract-of.js';
import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';
import { type OpenApi, OpenApiValidator } from '../support/openapi-validator.js';

type Json = Record<string, any>;

/** The first `count` OSV entries of a fixture, as the tests load them. */
function osvEntries(file: string, count: number): Json[] {
  return zlib
    .gunzipSync(fs.readFileSync(fixture(file)))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, count)
    .map((line) => JSON.parse(line) as Json);
}

/** Dotted numbers and Go pseudo-versions, enough for the packages below (an oracle, not the product's comparator). */
function compare(a: string, b: string): number {
  const parts = (v: string) => v.replace(/^v/, '').split(/[.-]/);
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const [x, y] = [pa[i] ?? '0', pb[i] ?? '0'];
    const d = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
    if (d !== 0) return d;
  }
  return 0;
}

/** OSV semantics read directly: each `introduced` up to the next `fixed`/`last_affected`, git ranges skipped. */
function oracle(entries: Json[], name: string, version: string): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>();
  for (const entry of entries) {
    for (const affected of entry.affected ?? []) {
      if (affected.package.name !== name) continue;
      for (const range of affected.ranges ?? []) {
        if (range.type === 'GIT') continue;
        let start: string | undefined;
        for (const event of range.events) {
          if (event.introduced !== undefined) start = event.introduced;
          const end = event.fixed ?? event.last_affected;
          if (end === undefined || start === undefined) continue;
          const inside =
            compare(version, start) >= 0 && (event.fixed ? compare(version, end) < 0 : compare(version, end) <= 0);
          if (inside) found.set(entry.id, event.fixed);
          start = undefined;
        }
        if (start !== undefined && compare(version, start) >= 0) found.set(entry.id, undefined);
      }
    }
  }
  return found;
}

const PYPA = osvEntries('feeds/pypa_advisory_database_osv.jsonl.gz', 200);
const GO = osvEntries('feeds/golang_vulndb_osv.jsonl.gz', 300);

/** CVE 5 records naming packages by collectionURL + packageName, and by packageURL. */
const CVE5 = [
  advisory('CVE-2099-1001', {
    affected: [
      {
        collectionURL: 'https://pypi.org',
        packageName: 'aiohttp',
        versions: [{ version: '3.0.0', lessThan: '3.7.2', status: 'affected', versionType: 'python' }],
        defaultStatus: 'unaffected',
      },
    ],
  }),
  advisory('CVE-2099-1002', {
    affected: [
      {
        packageURL: 'pkg:npm/%40scope/widget',
        versions: [{ version: '1.0.0', lessThanOrEqual: '1.4.0', status: 'affected', versionType: 'semver' }],
        defaultStatus: 'unaffected',
      },
    ],
  }),
  advisory('CVE-2099-1003', {
    affected: [
      {
        collectionURL: 'https://pypi.org',
        packageName: 'aiohttp',
        versions: [{ version: '4.0.0', lessThan: '4.0.1', status: 'affected', versionType: 'python' }],
        defaultStatus: 'unaffected',
      },
    ],
  }),
];

const AIOHTTP = 'pkg:pypi/aiohttp@3.7.0';
const XNET = 'pkg:golang/golang.org/x/net@v0.0.0-20180801000000-000000000000';

describe.each(engineCases())('/v3/purl and /v3/purls ($name)', (engine) => {
  let t: TestApp;
  let served: OpenApiValidator;
  const tokens = { goOnly: '', none: '' };

  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadRealFeed(t.storage, 'pypa');
    await loadRealFeed(t.storage, 'go-vulndb');
    await loadRecords(t.storage, 'mitre-cvelist-v5', CVE5);
    tokens.goOnly = (await t.storage.tokens.create('go-only', { feeds: parseFeedEntitlement('go-vulndb') })).token;
    tokens.none = (await t.storage.tokens.create('no-feeds', { feeds: parseFeedEntitlement('none') })).token;
    served = new OpenApiValidator((await t.get('/openapi.json', null)).body as OpenApi, `purl-served-${engine.name}`);
  }, 300_000);
  afterAll(async () => t?.close());

  /** A request as the official Python SDK sends it: the bare token, `urllib.parse.quote` query encoding. */
  async function sdk(method: 'GET' | 'POST', url: string, body?: unknown, token: string | null = t.token) {
    const response = await t.app.inject({
      method,
      url,
      headers: {
        ...(token ? { authorization: token } : {}),
        accept: 'application/json',
        'user-agent': 'OpenAPI-Generator/0.0.51/python',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    return { status: response.statusCode, body: response.json() as Json };
  }
  const getPurl = (purl: string, token?: string | null) =>
    sdk('GET', `/v3/purl?purl=${encodeURIComponent(purl)}`, undefined, token);
  const postPurls = (body: unknown, token?: string | null) => sdk('POST', '/v3/purls', body, token);

  /** 200 bodies against the official document and the served one; error bodies against the error shape. */
  function expectValid(path: '/v3/purl' | '/v3/purls', answer: { status: number; body: Json }) {
    const method = path === '/v3/purl' ? 'get' : 'post';
    expect(served.responseProblems(path, method, answer.status, 'application/json', answer.body)).toEqual([]);
    const check = answer.status === 200 ? contractOf(path)! : CONTRACT_ERROR;
    expect(check(answer.body)).toEqual([]);
  }

  const detections = (body: Json) =>
    new Map(
      (body.vulnerabilities as Json[]).map((v) => [v.detection as string, v.fixed_version as string | undefined]),
    );

  it('answers the OSV advisories of a PyPI version with their fixed versions, and the CVE 5 records naming the package', async () => {
    const answer = await getPurl(AIOHTTP);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expectValid('/v3/purl', answer);
    const expected = oracle(PYPA, 'aiohttp', '3.7.0');
    expected.set('CVE-2099-1001', '3.7.2');
    expect(expected.size).toBeGreaterThan(5);
    expect(detections(answer.body.data)).toEqual(expected);
    expect(answer.body._meta.total_documents).toBe(expected.size);
    const aliases = PYPA.filter((entry) => expected.has(entry.id)).flatMap((entry) =>
      (entry.aliases as string[]).filter((alias) => alias.startsWith('CVE-')),
    );
    expect(new Set(answer.body.data.cves)).toEqual(new Set([...aliases, 'CVE-2099-1001']));
    expect(answer.body._meta.purl_struct).toEqual({
      type: 'pypi',
      namespace: '',
      name: 'aiohttp',
      version: '3.7.0',
      qualifiers: [],
      subpath: '',
    });
  });

  it('answers Go modules by their pseudo-versions, with every CVE alias of an advisory', async () => {
    const answer = await getPurl(XNET);
    expect(answer.status).toBe(200);
    expectValid('/v3/purl', answer);
    const expected = oracle(GO, 'golang.org/x/net', '0.0.0-20180801000000-000000000000');
    expect(expected.size).toBeGreaterThan(3);
    expect(detections(answer.body.data)).toEqual(expected);
    // GO-2022-0197 names two CVEs.
    expect(answer.body.data.cves).toEqual(expect.arrayContaining(['CVE-2018-17847', 'CVE-2018-17848']));
  });

  // PYSEC-2022-43059 (CVE-2022-33124) affects every aiohttp version: it was never fixed.
  const UNFIXED = { 'PYSEC-2022-43059': undefined };
  it.each<[string, string, string[], Record<string, string | undefined>]>([
    ['past every fix: only the unfixed one', 'pkg:pypi/aiohttp@3.9.5', ['CVE-2022-33124'], UNFIXED],
    [
      'a range in CVE 5 only',
      'pkg:pypi/aiohttp@4.0.0',
      ['CVE-2022-33124', 'CVE-2099-1003'],
      { ...UNFIXED, 'CVE-2099-1003': '4.0.1' },
    ],
    [
      'PyPI names compare per PEP 503',
      'pkg:pypi/AioHTTP@4.0.0',
      ['CVE-2022-33124', 'CVE-2099-1003'],
      { ...UNFIXED, 'CVE-2099-1003': '4.0.1' },
    ],
    [
      'an npm scope, lessThanOrEqual: no fixed version',
      'pkg:npm/%40scope/widget@1.4.0',
      ['CVE-2099-1002'],
      {
        'CVE-2099-1002': undefined,
      },
    ],
    ['past lessThanOrEqual', 'pkg:npm/%40scope/widget@1.4.1', [], {}],
    ['a package no feed names', 'pkg:npm/left-pad@1.0.0', [], {}],
    [
      'qualifiers and subpath do not change the answer',
      'pkg:pypi/aiohttp@4.0.0?os=linux#src',
      ['CVE-2022-33124', 'CVE-2099-1003'],
      { ...UNFIXED, 'CVE-2099-1003': '4.0.1' },
    ],
  ])('%s (%s)', async (_rule, purl, cves, vulnerabilities) => {
    const answer = await getPurl(purl);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expectValid('/v3/purl', answer);
    expect(answer.body.data.cves).toEqual(cves);
    expect(Object.fromEntries(detections(answer.body.data))).toEqual(vulnerabilities);
  });

  it('echoes qualifiers and subpath in purl_struct', async () => {
    const answer = await getPurl(
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar&classifier=sources#x/y',
    );
    expect(answer.status).toBe(200);
    expect(answer.body._meta.purl_struct).toEqual({
      type: 'maven',
      namespace: 'org.apache.logging.log4j',
      name: 'log4j-core',
      version: '2.14.1',
      qualifiers: [
        { key: 'classifier', value: 'sources' },
        { key: 'type', value: 'jar' },
      ],
      subpath: 'x/y',
    });
  });

  it('answers a batch item by item, in order, each as the single lookup does', async () => {
    const purls = [AIOHTTP, XNET, 'pkg:npm/left-pad@1.0.0', AIOHTTP];
    const answer = await postPurls(purls);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expectValid('/v3/purls', answer);
    expect(answer.body._meta.total_documents).toBe(4);
    expect(answer.body.data.map((item: Json) => item.purl)).toEqual(purls);
    for (const [i, purl] of purls.entries()) {
      const single = (await getPurl(purl)).body;
      expect(answer.body.data[i]).toEqual({
        purl,
        purl_struct: single._meta.purl_struct,
        cves: single.data.cves,
        vulnerabilities: single.data.vulnerabilities,
      });
    }
  });

  it('answers an empty batch with no findings, and accepts exactly 100 purls', async () => {
    const empty = await postPurls([]);
    expect(empty.status).toBe(200);
    expectValid('/v3/purls', empty);
    expect(empty.body.data).toEqual([]);
    const full = await postPurls(Array.from({ length: 100 }, (_, i) => `pkg:pypi/aiohttp@3.${i % 10}.0`));
    expect(full.status).toBe(200);
    expect(full.body.data).toHaveLength(100);
  });

  it.each<[string, 'GET' | 'POST', string, unknown, RegExp]>([
    ['no purl', 'GET', '/v3/purl', undefined, /parameter "purl" is required/],
    ['an empty purl', 'GET', '/v3/purl?purl=', undefined, /parameter "purl" is required/],
    [
      'an unknown parameter',
      'GET',
      `/v3/purl?purl=${encodeURIComponent(AIOHTTP)}&name=x`,
      undefined,
      /unknown parameter "name"/,
    ],
    ['not a purl', 'GET', '/v3/purl?purl=aiohttp', undefined, /parameter "purl": invalid purl/],
    ['no version', 'GET', '/v3/purl?purl=pkg%3Apypi%2Faiohttp', undefined, /parameter "purl" must name a version/],
    [
      'no comparable version',
      'GET',
      '/v3/purl?purl=pkg%3Apypi%2Faiohttp%40latest%3F%3F',
      undefined,
      /concrete version/,
    ],
    ['a purl too long', 'GET', `/v3/purl?purl=pkg:npm/${'a'.repeat(600)}@1.0.0`, undefined, /at most 500 characters/],
    [
      'a purl given twice',
      'GET',
      `/v3/purl?purl=${encodeURIComponent(AIOHTTP)}&purl=${encodeURIComponent(XNET)}`,
      undefined,
      /once/,
    ],
    ['a body that is not JSON', 'POST', '/v3/purls', '["pkg:pypi/aiohttp@3.7.0"', /JSON/],
    ['an empty body', 'POST', '/v3/purls', '', /body/i],
    ['an object', 'POST', '/v3/purls', { purls: [AIOHTTP] }, /must be a JSON array of purl strings/],
    ['a string', 'POST', '/v3/purls', AIOHTTP.replace(/^/, '"').replace(/$/, '"'), /must be a JSON array/],
    [
      'a number item',
      'POST',
      '/v3/purls',
      [AIOHTTP, 1],
      /item 1 of the request body must be a purl string, got a number/,
    ],
    ['a null item', 'POST', '/v3/purls', [null], /item 0 .* got null/],
    ['an invalid item', 'POST', '/v3/purls', [AIOHTTP, 'pkg:pypi'], /item 1 of the request body: invalid purl/],
    [
      'an item without version',
      'POST',
      '/v3/purls',
      ['pkg:npm/left-pad'],
      /item 0 of the request body must name a version/,
    ],
    ['an item too long', 'POST', '/v3/purls', [`pkg:npm/${'a'.repeat(600)}@1.0.0`], /item 0 .* at most 500 characters/],
    ['an empty item', 'POST', '/v3/purls', [''], /item 0 .* must not be empty/],
    ['101 purls', 'POST', '/v3/purls', Array.from({ length: 101 }, () => AIOHTTP), /at most 100 items/],
    ['a control character', 'POST', '/v3/purls', ['pkg:npm/a\u0000b@1.0.0'], /control characters/],
  ])('400 for %s, in the documented error shape', async (_case, method, url, body, message) => {
    const answer = await sdk(method, url, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body).toEqual({ error: true, errors: [expect.stringMatching(message)] });
    expectValid(method === 'GET' ? '/v3/purl' : '/v3/purls', answer);
  });

  it('413 for a body past the bound, 415 for a form body, 400 for a text body', async () => {
    const huge = await postPurls(JSON.stringify([`pkg:npm/x@1.0.0${' '.repeat(200_000)}`]));
    expect(huge.status).toBe(413);
    expectValid('/v3/purls', huge);
    const form = await t.app.inject({
      method: 'POST',
      url: '/v3/purls',
      headers: { authorization: t.token, 'content-type': 'application/x-www-form-urlencoded' },
      payload: JSON.stringify([AIOHTTP]),
    });
    expect(form.statusCode).toBe(415);
    expectValid('/v3/purls', { status: 415, body: form.json() });
    const text = await t.app.inject({
      method: 'POST',
      url: '/v3/purls',
      headers: { authorization: t.token, 'content-type': 'text/plain' },
      payload: JSON.stringify([AIOHTTP]),
    });
    expect(text.statusCode).toBe(400);
    expect(text.json().errors[0]).toMatch(/must be a JSON array of purl strings/);
  });

  it('401 without a token, before the body is read', async () => {
    for (const answer of [await getPurl(AIOHTTP, null), await postPurls([AIOHTTP], null), await postPurls('[', null)]) {
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: true, errors: [expect.any(String)] });
    }
  });

  it('402 when the token may read none of the feeds that hold the purl type; 200 where it may', async () => {
    const pypi = await getPurl(AIOHTTP, tokens.goOnly);
    expect(pypi.status).toBe(402);
    expect(pypi.body.errors[0]).toMatch(/none of the feeds that hold pypi packages \(mitre-cvelist-v5, pypa\)/);
    expectValid('/v3/purl', pypi);
    const go = await getPurl(XNET, tokens.goOnly);
    expect(go.status).toBe(200);
    expect(go.body.data.vulnerabilities.length).toBeGreaterThan(3);
    const mixed = await postPurls([XNET, AIOHTTP], tokens.goOnly);
    expect(mixed.status).toBe(402);
    expectValid('/v3/purls', mixed);
    expect((await postPurls([XNET], tokens.goOnly)).status).toBe(200);
    for (const answer of [await getPurl(XNET, tokens.none), await postPurls([XNET], tokens.none)]) {
      expect(answer.status).toBe(402);
      expect(answer.body.errors[0]).toMatch(/not entitled to any advisory feed/);
    }
  });

  it('a token reading the CVE 5 feed only gets its records, not those of the OSV feeds', async () => {
    const cve5 = (await t.storage.tokens.create('cve5-only', { feeds: parseFeedEntitlement('mitre-cvelist-v5') }))
      .token;
    const answer = await getPurl(AIOHTTP, cve5);
    expect(answer.status).toBe(200);
    expect(Object.fromEntries(detections(answer.body.data))).toEqual({ 'CVE-2099-1001': '3.7.2' });
  });
});
