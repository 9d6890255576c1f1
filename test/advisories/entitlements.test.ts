import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeedEntitlement } from '../../src/core/entitlements.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeErrors, validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';
import { ADVISORY, advisory, loadRecords } from './support.js';

/** Feed entitlements: 402 for a feed the token may not read; unnamed queries search only covered feeds. */
describe.each(engineCases())('advisory entitlements ($name)', (engine) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    // The server's default for tokens created without feeds: only "alpha".
    t = await startTestApp(engine, { VULNSCOPE_DEFAULT_FEEDS: 'alpha' });
    await loadRecords(t.storage, 'alpha', [advisory('CVE-2024-0001'), advisory('CVE-2024-0002')]);
    await loadRecords(t.storage, 'beta', [advisory('CVE-2024-0003')]);
    for (const [name, feeds] of [
      ['all', '*'],
      ['beta', 'beta'],
      ['both', 'alpha,beta'],
      ['none', 'none'],
    ] as const) {
      tokens[name] = (await t.storage.tokens.create(name, { feeds: parseFeedEntitlement(feeds) })).token;
    }
    tokens.default = (await t.storage.tokens.create('default')).token;
  });
  afterAll(async () => {
    await t?.close();
  });

  const expect402 = (response: { status: number; body: any }, pattern: RegExp) => {
    expect(response.status).toBe(402);
    expect(response.body).toEqual({ error: true, errors: [expect.stringMatching(pattern)] });
    expect(describeErrors(validateAgainst('search.ErrorResponse', response.body))).toEqual([]);
  };

  it.each<[string, string, number, number | 'unknown']>([
    ['all', 'name=beta', 200, 1],
    ['beta', 'name=beta', 200, 1],
    ['beta', 'name=alpha', 402, 0],
    ['default', 'name=alpha', 200, 2],
    ['default', 'name=beta', 402, 0],
    ['both', 'name=alpha', 200, 2],
    ['none', 'name=alpha', 402, 0],
    ['beta', 'name=nope', 400, 0],
  ])('token %s, %s → %i', async (token, query, status, count) => {
    const response = await t.get(`${ADVISORY}?${query}`, tokens[token]);
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    if (status === 200) expect(response.body._meta.filtered).toBe(count);
    if (status === 402) expect402(response, /payment required: token "\w+" is not entitled to/);
  });

  it.each<[string, string[], number]>([
    ['all', ['CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003'], 3],
    ['both', ['CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003'], 3],
    ['beta', ['CVE-2024-0003'], 1],
    ['default', ['CVE-2024-0001', 'CVE-2024-0002'], 2],
  ])('without a name, token %s searches only its feeds', async (token, ids, total) => {
    const response = await t.get(`${ADVISORY}?limit=100`, tokens[token]);
    expect(response.status).toBe(200);
    expect(
      response.body.data.map((r: any) => r.cveMetadata.cveId).filter((id: string) => id.startsWith('CVE-2024')),
    ).toEqual(ids);
    if (token === 'beta' || token === 'default') expect(response.body._meta.total).toBe(total);
  });

  it('the feed list shows only the feeds a token may read; a token without any gets 402', async () => {
    const list = async (token: string) =>
      (await t.get('/v4/advisory/list', tokens[token])).body.data.map((f: any) => f.name);
    expect(await list('beta')).toEqual(['beta']);
    expect(await list('default')).toEqual(['alpha']);
    expect(await list('all')).toEqual(expect.arrayContaining(['alpha', 'beta', 'mitre-cvelist-v5', 'nist-nvd2']));
    expect402(await t.get('/v4/advisory/list', tokens.none), /not entitled to any advisory feed/);
    expect402(await t.get(`${ADVISORY}?vendor=acme`, tokens.none), /not entitled to any advisory feed/);
  });

  it('feed entitlements do not touch endpoints that read no feed', async () => {
    expect((await t.get('/v3/index/target-intel?limit=1', tokens.none)).status).toBe(200);
    expect((await t.get('/whoami', tokens.none)).status).toBe(200);
  });
});
