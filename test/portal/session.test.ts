/**
 * The portal's sign-in endpoint and page headers over plain HTTP: the cookie's attributes, the
 * Origin rule, the failed-sign-in limit, and that the API paths keep their 401.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PORTAL_PAGES } from '../../src/core/portal/pages.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

const PUBLIC_URL = 'https://vulnscope.example.org';

describe.each(engineCases())('portal session ($name)', (engine) => {
  let t: TestApp;
  afterEach(async () => t?.close());

  const signIn = (token: unknown, headers: Record<string, string> = { origin: PUBLIC_URL }, ip = '10.0.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/portal/session',
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify({ token }),
      remoteAddress: ip,
    });

  it('sets an HttpOnly, SameSite=Lax cookie, Secure on an HTTPS public URL', async () => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC_URL });
    const response = await signIn(t.token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ name: 'test' });
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toContain(`token=${t.token}`);
    expect(cookie.split('; ')).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Secure', 'Path=/']));
  });

  it.each([
    ['no Origin', {}],
    ['another origin', { origin: 'https://evil.example.com' }],
    ['the origin over http', { origin: 'http://vulnscope.example.org' }],
  ])('refuses a sign-in with %s (403)', async (_, headers) => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC_URL });
    const response = await signIn(t.token, headers);
    expect(response.statusCode).toBe(403);
    expect(response.json().errors[0]).toMatch(/^forbidden: /);
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a sign-out from another origin, clears the cookie from its own', async () => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC_URL });
    const from = (origin: string) =>
      t.app.inject({ method: 'DELETE', url: '/portal/session', headers: { origin, cookie: `token=${t.token}` } });
    expect((await from('https://evil.example.com')).statusCode).toBe(403);
    const response = await from(PUBLIC_URL);
    expect(response.statusCode).toBe(204);
    expect(String(response.headers['set-cookie'])).toMatch(/^token=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
  });

  it.each([
    ['missing', undefined, /parameter "token" is required/],
    ['empty', '  ', /parameter "token" is required/],
    ['not text', 42, /parameter "token" is required/],
    ['too long', 'x'.repeat(600), /too long/],
  ])('answers 400 for a %s token', async (_, token, message) => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC_URL });
    const response = await signIn(token);
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0]).toMatch(message);
  });

  it('takes the token only as JSON (415 otherwise)', async () => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC_URL });
    const response = await t.app.inject({
      method: 'POST',
      url: '/portal/session',
      headers: { 'content-type': 'text/plain', origin: PUBLIC_URL },
      payload: t.token,
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().errors[0]).toMatch(/JSON body/);
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('limits failed sign-ins per client address (429 with Retry-After), not other addresses', async () => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC_URL });
    for (let i = 0; i < 10; i++) expect((await signIn(`vs_wrong_${i}`)).statusCode).toBe(401);
    const limited = await signIn(t.token);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await signIn(t.token, { origin: PUBLIC_URL }, '10.0.0.2')).statusCode).toBe(200);
  });

  it('serves pages with the security headers; no token leads to sign-in, the API keeps its 401', async () => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC_URL });
    for (const path of Object.values(PORTAL_PAGES)) {
      const response = await t.app.inject({ url: path });
      expect(response.headers['content-security-policy']).toBe(
        "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
      );
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['cache-control']).toBe('no-store');
      if (path === PORTAL_PAGES.signIn) expect(response.statusCode).toBe(200);
      else
        expect([response.statusCode, response.headers.location]).toEqual([
          303,
          `/sign-in?next=${encodeURIComponent(path)}`,
        ]);
    }
    const signedIn = await t.app.inject({ url: '/', headers: { cookie: `token=${t.token}` } });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.body).toMatch(/<script type="module" src="\/assets\/main-\w+\.js"><\/script>/);
    expect((await t.app.inject({ url: '/v3/index/target-intel' })).statusCode).toBe(401);
  });

  it('serves the built assets compressed and cacheable, and nothing else under /assets/', async () => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC_URL });
    const page = await t.app.inject({ url: '/sign-in' });
    const script = /src="(\/assets\/[^"]+)"/.exec(page.body)![1]!;
    const response = await t.app.inject({ url: script, headers: { 'accept-encoding': 'gzip, br' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['content-type']).toMatch(/^text\/javascript/);
    expect(response.headers['cache-control']).toContain('immutable');
    expect((await t.app.inject({ url: '/assets/..%2Fmanifest.json' })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/assets/manifest.json' })).statusCode).toBe(404);
  });

  it('sends a page back to sign-in when it is asked for with a query that tries to leave the site', async () => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC_URL });
    for (const next of ['//evil.example.com/', 'https://evil.example.com/', '/\\evil.example.com', '/v3/backup']) {
      const response = await t.app.inject({
        url: `/sign-in?next=${encodeURIComponent(next)}`,
        headers: { cookie: `token=${t.token}` },
      });
      expect([response.statusCode, response.headers.location]).toEqual([303, '/']);
    }
  });
});
