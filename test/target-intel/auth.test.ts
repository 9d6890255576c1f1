import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { loadDataset, TI } from './dataset.js';

const DAY_MS = 86_400_000;
const STATUS_TOKEN = 'operator-status-token-for-tests';

function expect401(response: { status: number; body: any; headers: Record<string, unknown> }) {
  expect(response.status, JSON.stringify(response.body)).toBe(401);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body.error).toBe(true);
  expect(Array.isArray(response.body.errors)).toBe(true);
  expect(response.body.errors.length).toBeGreaterThanOrEqual(1);
  for (const message of response.body.errors) expect(typeof message).toBe('string');
  expect(response.body).not.toHaveProperty('data');
}

describe.each(engineCases())('target-intel authentication on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { VULNSCOPE_STATUS_TOKEN: STATUS_TOKEN });
    await loadDataset(t);
  });
  afterAll(async () => t?.close());

  const inject = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers }).then((r) => {
      let body: any = r.body;
      try {
        body = r.json();
      } catch {
        /* asserted by callers */
      }
      return { status: r.statusCode, body, headers: r.headers as Record<string, unknown> };
    });

  it('/healthz answers without a token and says only whether the process is live and ready', async () => {
    const response = await inject('/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', live: true, ready: true, rate_limit: 'memory' });
    expect(await inject('/healthz/live')).toMatchObject({ status: 200, body: { live: true } });
  });

  it('/process/status gives storage, index position and memory to the operator token only', async () => {
    expect((await inject('/process/status')).status).toBe(401);
    expect((await inject('/process/status', { authorization: `Bearer ${t.token}` })).status).toBe(401);
    const response = await inject('/process/status', { authorization: `Bearer ${STATUS_TOKEN}` });
    expect(response.status).toBe(200);
    expect(response.body.state).toBe('ready');
    expect(response.body.storage.engine).toBe(engine.name);
    expect(response.body.storage.location).toBe(t.context.storage.db.description);
    if (engine.name === 'postgres') expect(response.body.storage.breaker.state).toBe('closed');
    expect(response.body.index.records).toBe(t.context.hostIndex.index.size);
    expect(response.body.index.change_seq).toBe(t.context.hostIndex.status().appliedSeq);
    expect(response.body.index.memory_bytes).toBeGreaterThan(0);
    // A test app does not listen for announced commits (a started server on PostgreSQL does).
    expect(response.body.index.listening).toBe(false);
    expect(response.body.pid).toBe(process.pid);
    const memory = response.body.memory;
    expect(memory.heap_used_bytes).toBeGreaterThan(0);
    expect(memory.heap_total_bytes).toBeGreaterThanOrEqual(memory.heap_used_bytes);
    expect(memory.rss_bytes).toBeGreaterThan(memory.heap_used_bytes);
    expect(memory.external_bytes).toBeGreaterThanOrEqual(0);
  });

  /** A token that has never been used (the authenticator caches lookups for a second). */
  const freshToken = async () => t.storage.tokens.create(`fresh-${Math.random()}`);

  it.each([
    ['Authorization: Bearer T', (token: string) => inject(`${TI}?limit=1`, { authorization: `Bearer ${token}` })],
    ['Authorization: bearer T', (token: string) => inject(`${TI}?limit=1`, { authorization: `bearer ${token}` })],
    [
      'Authorization: T (bare, as the Python SDK sends it)',
      (token: string) => inject(`${TI}?limit=1`, { authorization: token }),
    ],
    ['?token=T', (token: string) => inject(`${TI}?limit=1&token=${encodeURIComponent(token)}`)],
    ['?token=T first', (token: string) => inject(`${TI}?token=${encodeURIComponent(token)}&limit=1`)],
    ['cookie token=T', (token: string) => inject(`${TI}?limit=1`, { cookie: `token=${token}` })],
    ['cookie among others', (token: string) => inject(`${TI}?limit=1`, { cookie: `a=1; token=${token}; b=2` })],
    [
      // The Cookie header written by light-my-request with the `cookie` package (pinned in package.json).
      'cookie token=T set through inject({ cookies })',
      (token: string) =>
        t.app
          .inject({ method: 'GET', url: `${TI}?limit=1`, cookies: { a: '1', token } })
          .then((r) => ({ status: r.statusCode, body: r.json() })),
    ],
  ])('accepts %s', async (_how, send) => {
    const response = await send(t.token);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body._meta.total_documents).toBe(20);
    expect(response.body.data).toHaveLength(1);
  });

  it('401 without any token', async () => {
    expect401(await t.get(TI, null));
    expect401(await t.get(`${TI}?cve=CVE-2021-41773`, null));
    expect401(await inject(`${TI}?token=`));
    expect401(await inject(TI, { cookie: 'token=' }));
    expect401(await inject(TI, { cookie: 'other=1' }));
  });

  it('401 for an unknown token, however it is sent', async () => {
    const unknown = 'vs_unknown-token-value-0123456789';
    expect401(await t.get(TI, unknown));
    expect401(await inject(TI, { authorization: unknown }));
    expect401(await inject(`${TI}?token=${unknown}`));
    expect401(await inject(TI, { cookie: `token=${unknown}` }));
    expect401(await inject(TI, { authorization: 'Bearer' }));
    // A near miss of the real token.
    expect401(await t.get(TI, `${t.token}x`));
    expect401(await t.get(TI, t.token.slice(0, -1)));
  });

  it('401 before any parameter check (a bad request without a token is still a 401)', async () => {
    expect401(await t.get(`${TI}?port=0`, null));
    expect401(await t.get(`${TI}?foo=bar`, null));
  });

  it('401 for a revoked token', async () => {
    const { token, info } = await freshToken();
    expect((await t.get(`${TI}?limit=1`, token)).status).toBe(200);
    expect(await t.storage.tokens.revoke(info.id)).toBe(true);
    // Another fresh token checks the revocation without depending on the 1 s lookup cache.
    const second = await freshToken();
    await t.storage.tokens.revoke(second.info.id);
    expect401(await t.get(TI, second.token));
    expect401(await inject(`${TI}?token=${encodeURIComponent(second.token)}`));
    expect401(await inject(TI, { cookie: `token=${second.token}` }));
  });

  it('401 for a token unused for longer than VULNSCOPE_TOKEN_IDLE_DAYS (30)', async () => {
    const longAgo = Date.now() - 40 * DAY_MS;
    const neverUsed = await freshToken();
    await t.storage.db.run(`UPDATE tokens SET created_at = ?, last_used_at = NULL WHERE id = ?`, [
      longAgo,
      neverUsed.info.id,
    ]);
    expect401(await t.get(TI, neverUsed.token));

    const idle = await freshToken();
    await t.storage.db.run(`UPDATE tokens SET created_at = ?, last_used_at = ? WHERE id = ?`, [
      longAgo - DAY_MS,
      longAgo,
      idle.info.id,
    ]);
    expect401(await t.get(TI, idle.token));
    expect401(await inject(`${TI}?token=${encodeURIComponent(idle.token)}`));
  });

  it('an old token still in use is not expired', async () => {
    const old = await freshToken();
    await t.storage.db.run(`UPDATE tokens SET created_at = ?, last_used_at = ? WHERE id = ?`, [
      Date.now() - 400 * DAY_MS,
      Date.now() - 2 * DAY_MS,
      old.info.id,
    ]);
    expect((await t.get(`${TI}?limit=1`, old.token)).status).toBe(200);
    const recent = await freshToken();
    await t.storage.db.run(`UPDATE tokens SET created_at = ? WHERE id = ?`, [Date.now() - 29 * DAY_MS, recent.info.id]);
    expect((await t.get(`${TI}?limit=1`, recent.token)).status).toBe(200);
  });

  it('never echoes a ?token= value (not in _meta.matches, not anywhere in the body)', async () => {
    const url = `${TI}?token=${encodeURIComponent(t.token)}&cve=CVE-2021-41773&show_query=true&show_pages=true`;
    const response = await inject(url);
    expect(response.status).toBe(200);
    expect(response.body._meta.matches).toEqual([{ field: 'cve', value: 'CVE-2021-41773' }]);
    expect(response.body._meta.matches.some((m: { field: string }) => m.field === 'token')).toBe(false);
    expect(JSON.stringify(response.body)).not.toContain(t.token);
    // Cursor mode: neither the page nor the cursor carries it.
    const first = await inject(`${TI}?token=${encodeURIComponent(t.token)}&start_cursor=true&limit=3`);
    expect(JSON.stringify(first.body)).not.toContain(t.token);
    const cursor = first.body._meta.next_cursor as string;
    const payload = Buffer.from(cursor.slice(0, cursor.lastIndexOf('.')), 'base64url').toString('utf8');
    expect(payload).not.toContain(t.token);
    const second = await inject(`${TI}?cursor=${encodeURIComponent(cursor)}&token=${encodeURIComponent(t.token)}`);
    expect(second.status).toBe(200);
    expect(JSON.stringify(second.body)).not.toContain(t.token);
    // Error bodies do not echo it either.
    const bad = await inject(`${TI}?token=${encodeURIComponent(t.token)}&port=0&bogus=1`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).not.toContain(t.token);
  });

  it('redacts ?token= values from every log line', async () => {
    const before = t.logs.length;
    const wrong = 'vs_wrong-token-that-must-not-be-logged';
    const revoked = await freshToken();
    await t.storage.tokens.revoke(revoked.info.id);
    const urls = [
      `${TI}?token=${t.token}`,
      `${TI}?token=${encodeURIComponent(t.token)}&cve=CVE-2021-41773`,
      `${TI}?cve=CVE-2021-41773&token=${t.token}&limit=2`,
      `${TI}?token=${t.token}&port=0`, // 400
      `${TI}?token=${t.token}&bogus=1`, // 400 unknown parameter
      `${TI}?token=${t.token}&token=${t.token}`, // repeated
      `${TI}?TOKEN=${t.token}`, // other case
      `${TI}?token=${wrong}`, // 401
      `${TI}?token=${revoked.token}`, // 401 revoked
      `/v3/index/does-not-exist?token=${t.token}`, // 404
      `/healthz?token=${t.token}`,
      `${TI}?start_cursor=true&limit=2&token=${t.token}`,
    ];
    for (const url of urls) await inject(url);
    const lines = t.logs.slice(before);
    expect(lines.length).toBeGreaterThan(0);
    const text = lines.join('\n');
    expect(text).toContain('REDACTED');
    for (const secret of [t.token, encodeURIComponent(t.token), wrong, revoked.token]) {
      const leaking = lines.filter((line) => line.includes(secret));
      expect(leaking, `log lines holding a token: ${leaking.join('')}`).toEqual([]);
    }
  });

  // BUG (src/server/plugins/auth.ts redactToken): the query parser decodes parameter names, so
  // `?%74oken=T` authenticates with T exactly like `?token=T`, but the redaction regex only
  // matches the literal `token=` in the raw URL, so T is written to the request log lines.
  it('redacts a ?token= value whose name is percent-encoded', async () => {
    const before = t.logs.length;
    const response = await inject(`${TI}?%74oken=${t.token}&limit=1`);
    expect(response.status).toBe(200); // the server does read it as the token
    const leaking = t.logs.slice(before).filter((line) => line.includes(t.token));
    expect(leaking).toEqual([]);
  });
});
