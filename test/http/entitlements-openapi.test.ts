/**
 * GET /v3/entitlements (the calling token's feeds and budgets, VulnCheck's `models.Entitlements`)
 * and GET /v3/openapi (the served document, behind a token).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeedEntitlement } from '../../src/core/entitlements.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { contractOf } from '../support/contract-of.js';
import { engineCases } from '../support/engines.js';
import { type OpenApi, OpenApiValidator } from '../support/openapi-validator.js';

const GROUPS = ['index', 'advisory', 'backup', 'search', 'other'];
const budgets = (each: string) => GROUPS.map((group) => `${group}=${each}`);

describe.each(engineCases())('GET /v3/entitlements, GET /v3/openapi ($name)', (engine) => {
  let t: TestApp;
  let served: OpenApiValidator;
  const registered = new FeedRegistry()
    .list()
    .map((feed) => feed.name)
    .sort();

  beforeAll(async () => {
    t = await startTestApp(engine, { VULNSCOPE_RATE_LIMIT: '600/60s,backup=10/1h' });
    served = new OpenApiValidator((await t.get('/openapi.json')).body as OpenApi, 'served');
  });
  afterAll(() => t?.close());

  const entitlementsOf = async (options: Parameters<TestApp['storage']['tokens']['create']>[1]) => {
    const { token } = await t.storage.tokens.create('entitled', options);
    const { status, body } = await t.get('/v3/entitlements', token);
    expect(status).toBe(200);
    expect(contractOf('/v3/entitlements')!(body)).toEqual([]);
    expect(served.responseProblems('/v3/entitlements', 'get', 200, 'application/json', body)).toEqual([]);
    return body.entitlements;
  };

  it.each([
    [
      'the server default (every feed, its budgets)',
      {},
      registered,
      [...budgets('600/60s').slice(0, 2), 'backup=10/3600s', ...budgets('600/60s').slice(3)],
    ],
    [
      'listed feeds, an own budget',
      { feeds: parseFeedEntitlement('nist-nvd2,cisa-kev'), rateLimit: 120 },
      ['cisa-kev', 'nist-nvd2'],
      [...budgets('120/60s').slice(0, 2), 'backup=120/3600s', ...budgets('120/60s').slice(3)],
    ],
    [
      'no feed, unlimited',
      { feeds: parseFeedEntitlement('none'), rateLimit: 'unlimited' as const },
      [],
      budgets('unlimited'),
    ],
    [
      'an admin token',
      { feeds: parseFeedEntitlement('cisa-kev'), rateLimit: 'unlimited' as const, admin: true },
      ['cisa-kev'],
      budgets('unlimited'),
    ],
  ])('%s', async (_, options, feeds, rateLimit) => {
    const admin = [String(Boolean((options as { admin?: boolean }).admin))];
    expect(await entitlementsOf(options)).toEqual({ feeds, rate_limit: rateLimit, admin });
  });

  it('answers a bare Authorization header (the official Python SDK) and refuses a request without a token', async () => {
    const sdk = await t.app.inject({ method: 'GET', url: '/v3/entitlements', headers: { authorization: t.token } });
    expect(sdk.statusCode).toBe(200);
    expect((await t.get('/v3/entitlements', null)).status).toBe(401);
    expect((await t.get('/v3/entitlements?feeds=all')).status).toBe(400);
  });

  it('/v3/openapi serves the /openapi.json document, with a token only', async () => {
    const document = await t.get('/openapi.json', null);
    const { status, body } = await t.get('/v3/openapi');
    expect(status).toBe(200);
    expect(body).toEqual(document.body);
    expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(['/v3/cpe', '/v3/entitlements', '/v3/openapi']));
    expect(body.paths['/v3/cpe'].get.operationId).toBe('cpe_get');
    expect(body.paths['/v3/entitlements'].get.operationId).toBe('entitlements_get');
    expect(body.paths['/v3/openapi'].get.operationId).toBe('openapi_get');
    expect(served.responseProblems('/v3/openapi', 'get', 200, 'application/json', body)).toEqual([]);
    expect((await t.get('/v3/openapi', null)).status).toBe(401);
    expect((await t.get('/v3/openapi?format=yaml')).status).toBe(400);
  });
});
