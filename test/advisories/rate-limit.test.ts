import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeErrors, validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';
import { ADVISORY, advisory, loadRecords, startSecondApp, type SecondApp } from './support.js';

/** Per-token request budgets: 429 with Retry-After and RateLimit-* headers; in memory, or shared through Redis. */

const REDIS_URL = process.env.VULNSCOPE_TEST_REDIS_URL;
if (!REDIS_URL)
  console.warn('NOTICE: VULNSCOPE_TEST_REDIS_URL is not set: the shared (Redis) rate-limit tests are skipped.');

/** Budgets count per fixed window (here one hour); a test should not straddle the window's end. */
async function awayFromWindowEnd(windowMs = 3_600_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

function expect429(response: { status: number; body: any; headers: Record<string, unknown> }) {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({
    error: true,
    errors: [expect.stringMatching(/rate limit exceeded for \w+ endpoints/)],
  });
  expect(describeErrors(validateAgainst('search.ErrorResponse', response.body))).toEqual([]);
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  expect(response.headers['ratelimit-remaining']).toBe('0');
}

describe.each(engineCases())('rate limits in one instance ($name)', (engine) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestApp(engine, { VULNSCOPE_RATE_LIMIT: '3/1h,index=5/1h' });
    await loadRecords(t.storage, 'alpha', [advisory('CVE-2024-0001')]);
    for (const name of ['a', 'b', 'c']) tokens[name] = (await t.storage.tokens.create(name)).token;
    tokens.one = (await t.storage.tokens.create('one', { rateLimit: 1 })).token;
    tokens.unlimited = (await t.storage.tokens.create('bench', { rateLimit: 'unlimited' })).token;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts down with RateLimit headers, then 429 with Retry-After; another token is untouched', async () => {
    await awayFromWindowEnd();
    const remaining: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await t.get(`${ADVISORY}?name=alpha`, tokens.a);
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-limit']).toBe('3');
      expect(Number(response.headers['ratelimit-reset'])).toBeGreaterThan(0);
      expect(Number(response.headers['ratelimit-reset'])).toBeLessThanOrEqual(3600);
      expect(response.headers['ratelimit-policy']).toBe('3;w=3600');
      remaining.push(response.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    expect429(await t.get(`${ADVISORY}?name=alpha`, tokens.a));
    expect429(await t.get('/v4/advisory/list', tokens.a));
    const other = await t.get(`${ADVISORY}?name=alpha`, tokens.b);
    expect(other.status).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('2');
  });

  it('each endpoint group has its own budget', async () => {
    await awayFromWindowEnd();
    for (let i = 0; i < 3; i++) expect((await t.get(`${ADVISORY}?name=alpha`, tokens.c)).status).toBe(200);
    expect429(await t.get(`${ADVISORY}?name=alpha`, tokens.c));
    const index = await t.get('/v3/index/target-intel?limit=1', tokens.c);
    expect(index.status).toBe(200);
    expect(index.headers['ratelimit-limit']).toBe('5');
    expect(index.headers['ratelimit-remaining']).toBe('4');
  });

  it('a token may carry its own budget, or none', async () => {
    await awayFromWindowEnd();
    expect((await t.get(`${ADVISORY}?name=alpha`, tokens.one)).status).toBe(200);
    expect429(await t.get(`${ADVISORY}?name=alpha`, tokens.one));
    for (let i = 0; i < 20; i++) {
      const response = await t.get(`${ADVISORY}?name=alpha`, tokens.unlimited);
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('/healthz and /openapi.json are never limited', async () => {
    for (let i = 0; i < 10; i++) {
      for (const url of ['/healthz', '/openapi.json']) {
        const response = await t.get(url, null);
        expect(response.status).toBe(200);
        expect(response.headers['ratelimit-limit']).toBeUndefined();
      }
    }
  });
});

describe.runIf(REDIS_URL).each(engineCases())('rate limits shared through Redis by two instances ($name)', (engine) => {
  let first: TestApp;
  let second: SecondApp;
  let fallback: SecondApp;
  const tokens = { a: '', b: '', f: '' };
  beforeAll(async () => {
    const env = { VULNSCOPE_RATE_LIMIT: '4/1h', VULNSCOPE_REDIS_URL: REDIS_URL! };
    first = await startTestApp(engine, env);
    second = await startSecondApp(first, env);
    // Redis unreachable: the budget is still enforced, per instance.
    fallback = await startSecondApp(first, {
      VULNSCOPE_RATE_LIMIT: '2/1h',
      VULNSCOPE_REDIS_URL: 'redis://127.0.0.1:1',
    });
    await loadRecords(first.storage, 'alpha', [advisory('CVE-2024-0001')]);
    for (const name of ['a', 'b', 'f'] as const) tokens[name] = (await first.storage.tokens.create(name)).token;
  });
  afterAll(async () => {
    await second?.close();
    await fallback?.close();
    await first?.close();
  });

  it('one budget for both instances; another token keeps its own', async () => {
    await awayFromWindowEnd();
    const statuses: number[] = [];
    const remaining: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const response =
        i % 2 === 0
          ? await first.get(`${ADVISORY}?name=alpha`, tokens.a)
          : await second.get(`${ADVISORY}?name=alpha`, tokens.a);
      statuses.push(response.status);
      remaining.push(response.headers['ratelimit-remaining']);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(remaining).toEqual(['3', '2', '1', '0', '0', '0']);
    const other = await second.get(`${ADVISORY}?name=alpha`, tokens.b);
    expect(other.status).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('3');
  });

  it('without Redis an instance falls back to its own counts and still limits', async () => {
    await awayFromWindowEnd();
    expect((await fallback.get(`${ADVISORY}?name=alpha`, tokens.f)).status).toBe(200);
    expect((await fallback.get(`${ADVISORY}?name=alpha`, tokens.f)).status).toBe(200);
    expect429(await fallback.get(`${ADVISORY}?name=alpha`, tokens.f));
  });
});
