/**
 * Token management over HTTP (`/v3/tokens`), on each engine: admin tokens, child tokens and their
 * rules (at most 10, the parent's feeds at most, its budget, its lifetime), what a token may see,
 * and the cross-site rules of state-changing requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFeedEntitlement } from '../../src/core/entitlements.js';
import { MAX_CHILD_TOKENS } from '../../src/core/tokens.js';
import { createStorage, migrate } from '../../src/storage/index.js';
import { openDatabase } from '../../src/storage/database.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { type OpenApi, OpenApiValidator } from '../support/openapi-validator.js';

const PUBLIC = 'https://vulnscope.example.test';
const DAY = 86_400_000;

interface Answer {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

describe.each(engineCases())('token management over HTTP ($name)', (engine) => {
  let t: TestApp;
  let served: OpenApiValidator;
  let admin: string;
  let alice: string;
  let aliceId: number;
  let bob: string;

  beforeAll(async () => {
    t = await startTestApp(engine, { VULNSCOPE_PUBLIC_URL: PUBLIC });
    served = new OpenApiValidator((await t.get('/openapi.json', null)).body as OpenApi, 'served');
    admin = (await t.storage.tokens.create('root', { admin: true })).token;
    const a = await t.storage.tokens.create('alice', { feeds: parseFeedEntitlement('cisa-kev,nist-nvd2') });
    alice = a.token;
    aliceId = a.info.id;
    bob = (await t.storage.tokens.create('bob')).token;
  });
  afterAll(() => t?.close());

  async function call(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const response = await t.app.inject({
      method,
      url,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
    });
    const answer = { status: response.statusCode, body: response.json(), headers: response.headers };
    const path = url.split('?')[0]!.replace(/\/v3\/tokens\/\d+$/, '/v3/tokens/{id}');
    const media = 'application/json';
    expect(served.responseProblems(path, method.toLowerCase(), answer.status, media, answer.body)).toEqual([]);
    return answer;
  }
  const create = (token: string, body: unknown) => call('POST', '/v3/tokens', { token, body });
  const list = (token: string) => call('GET', '/v3/tokens', { token });
  const revoke = (token: string, id: number) => call('DELETE', `/v3/tokens/${id}`, { token });
  const self = (token: string) => call('GET', '/v3/tokens/self', { token });

  it('an admin token lists every token, never a secret', async () => {
    const { status, body } = await list(admin);
    expect(status).toBe(200);
    const names = body.data.map((token: { name: string }) => token.name);
    expect(names).toEqual(expect.arrayContaining(['test', 'root', 'alice', 'bob']));
    const root = body.data.find((token: { name: string }) => token.name === 'root');
    expect(root).toMatchObject({ admin: true, parent_id: null, child: false, state: 'active', feeds: ['*'] });
    expect(JSON.stringify(body)).not.toContain(admin);
    expect(JSON.stringify(body)).not.toContain(alice);
    expect(body.data.every((token: object) => !('token' in token))).toBe(true);
  });

  it('an admin token creates a token with feeds and a rate limit (never admin), and revokes it', async () => {
    const created = await create(admin, { name: 'partner', feeds: ['cisa-kev'], rate_limit: 120 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'partner',
      feeds: ['cisa-kev'],
      rate_limit: 120,
      admin: false,
      child: false,
      state: 'active',
      last_used_at: null,
    });
    expect(created.body.token).toMatch(/^vs_/);
    const rootId = (await self(admin)).body.id;
    expect(created.body.parent_id).toBe(rootId);
    expect((await self(created.body.token)).body).toMatchObject({ name: 'partner', budgets: expect.any(Array) });
    // Listed afterwards without the secret.
    expect(JSON.stringify((await list(admin)).body)).not.toContain(created.body.token);

    const revoked = await revoke(admin, created.body.id);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.body.id, state: 'revoked', children_revoked: 0 });
    expect((await call('GET', '/whoami', { token: created.body.token })).status).toBe(401);
    expect((await revoke(admin, 999_999)).status).toBe(404);
  });

  it.each([
    ['an admin token', () => admin],
    ['another token', () => alice],
  ])('%s cannot create an admin token over HTTP', async (_, who) => {
    const before = (await t.storage.tokens.list()).length;
    const answer = await create(who(), { name: 'sneaky', admin: true });
    expect(answer.status).toBe(403);
    expect(answer.body.errors[0]).toContain('token create --admin');
    expect((await t.storage.tokens.list()).length).toBe(before);
  });

  it.each([
    ['more feeds than the parent', { name: 'c', feeds: ['cisa-kev', 'osv'] }, 403, '"osv"'],
    ['every feed when the parent has a list', { name: 'c', feeds: ['*'] }, 403, '"*"'],
    ['an own rate limit', { name: 'c', rate_limit: 5 }, 400, 'spends the budget'],
    ['no name', { name: '' }, 400, 'name'],
    ['an invalid feed name', { name: 'c', feeds: ['Bad Name'] }, 400, 'feed name'],
  ])('a child token with %s is refused', async (_, body, status, says) => {
    const answer = await create(alice, body);
    expect(answer.status).toBe(status);
    expect(answer.body.errors[0]).toContain(says);
  });

  it(`a non-admin token creates up to ${MAX_CHILD_TOKENS} children (those not revoked), then 409`, async () => {
    const owner = await t.storage.tokens.create('many');
    const made: number[] = [];
    for (let i = 0; i < MAX_CHILD_TOKENS; i++) {
      const answer = await create(owner.token, { name: `kid-${i}` });
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ parent_id: owner.info.id, child: true, admin: false, feeds: ['*'] });
      made.push(answer.body.id);
    }
    const over = await create(owner.token, { name: 'one-too-many' });
    expect(over.status).toBe(409);
    expect(over.body.errors[0]).toContain(`${MAX_CHILD_TOKENS} child tokens`);
    expect((await revoke(owner.token, made[0]!)).status).toBe(200);
    expect((await create(owner.token, { name: 'replacement' })).status).toBe(201);
    expect((await list(owner.token)).body.data).toHaveLength(MAX_CHILD_TOKENS + 1);
  });

  it("a child reads at most its parent's feeds, inherits them by default, and cannot create tokens", async () => {
    const narrow = await create(alice, { name: 'narrow', feeds: ['nist-nvd2'] });
    expect(narrow.status).toBe(201);
    expect(narrow.body.feeds).toEqual(['nist-nvd2']);
    const inherited = await create(alice, { name: 'inherited' });
    expect(inherited.body.feeds).toEqual(['cisa-kev', 'nist-nvd2']);
    const entitlements = await call('GET', '/v3/entitlements', { token: narrow.body.token });
    expect(entitlements.body.entitlements.feeds).toEqual(['nist-nvd2']);
    expect(entitlements.body.entitlements.admin).toEqual(['false']);
    expect((await call('GET', '/v3/entitlements', { token: admin })).body.entitlements.admin).toEqual(['true']);

    const grandchild = await create(narrow.body.token, { name: 'grandchild' });
    expect(grandchild.status).toBe(403);
    expect(grandchild.body.errors[0]).toContain('child tokens cannot create tokens');
    expect((await list(narrow.body.token)).body.data).toEqual([]);
  });

  it("a non-admin token sees and revokes only the tokens it created: another's id is a 404", async () => {
    const mine = await create(bob, { name: 'bobs-kid' });
    const theirs = await create(alice, { name: 'alices-kid' });
    const listed = (await list(bob)).body.data.map((token: { id: number }) => token.id);
    expect(listed).toEqual([mine.body.id]);
    const notMine = await revoke(bob, theirs.body.id);
    const nowhere = await revoke(bob, 999_999);
    expect(notMine.status).toBe(404);
    expect(notMine.body.errors[0]).toBe(`no token with id ${theirs.body.id}`);
    expect(nowhere.status).toBe(404);
    expect((await revoke(bob, aliceId)).status).toBe(404);
    expect((await self(theirs.body.token)).body.state).toBe('active');
    const itself = await revoke(bob, (await self(bob)).body.id);
    expect(itself.status).toBe(403);
    expect((await revoke(bob, mine.body.id)).status).toBe(200);
  });

  it('revoking a parent revokes its children: their next request is a 401', async () => {
    const parent = await t.storage.tokens.create('parent');
    const child = await create(parent.token, { name: 'kid' });
    expect((await call('GET', '/whoami', { token: child.body.token })).status).toBe(200);
    const revoked = await revoke(admin, parent.info.id);
    expect(revoked.body.children_revoked).toBe(1);
    expect((await call('GET', '/whoami', { token: child.body.token })).status).toBe(401);
    expect((await call('GET', '/whoami', { token: parent.token })).status).toBe(401);
  });

  it('a child whose parent was revoked without it (directly in the database) is refused within a second', async () => {
    const parent = await t.storage.tokens.create('parent-db');
    const child = await create(parent.token, { name: 'kid' });
    expect((await call('GET', '/whoami', { token: child.body.token })).status).toBe(200);
    await t.storage.db.run(`UPDATE tokens SET revoked_at = ? WHERE id = ?`, [Date.now(), parent.info.id]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const refused = await call('GET', '/whoami', { token: child.body.token });
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0]).toContain('the token that created this token was revoked');
    expect((await self(admin)).status).toBe(200);
    const view = (await list(admin)).body.data.find((token: { id: number }) => token.id === child.body.id);
    expect(view.state).toBe('revoked');
  });

  it('a child of an expired parent (unused for the idle days) is refused with a 401 saying so', async () => {
    const parent = await t.storage.tokens.create('sleepy');
    const child = await create(parent.token, { name: 'kid' });
    await t.context.tokens.flush();
    const old = Date.now() - 31 * DAY;
    await t.storage.db.run(`UPDATE tokens SET created_at = ?, last_used_at = ? WHERE id = ?`, [
      old,
      old,
      parent.info.id,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const refused = await call('GET', '/whoami', { token: child.body.token });
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0]).toContain('the token that created this token expired after 30 days unused');
    const view = (await list(admin)).body.data.find((token: { id: number }) => token.id === child.body.id);
    expect(view.state).toBe('expired');
    expect(Date.parse(view.expires_at)).toBeLessThan(Date.now());
  });

  it("a child's requests spend its parent's budget", async () => {
    const parent = await t.storage.tokens.create('budgeted', { rateLimit: 3 });
    const child = await create(parent.token, { name: 'kid' });
    expect(child.body).toMatchObject({ rate_limit: 3, child: true });
    const index = (token: string) => call('GET', '/v3/index', { token });
    expect((await index(parent.token)).headers['ratelimit-remaining']).toBe('2');
    expect((await index(child.body.token)).headers['ratelimit-remaining']).toBe('1');
    expect((await index(parent.token)).status).toBe(200);
    const spent = await index(child.body.token);
    expect(spent.status).toBe(429);
    expect((await index(parent.token)).status).toBe(429);
    // Another token's budget is untouched.
    expect((await call('GET', '/v3/index', { token: bob })).status).toBe(200);
    const entitlements = await call('GET', '/v3/entitlements', { token: child.body.token });
    expect(entitlements.body.entitlements.rate_limit).toContain('index=3/60s');
  });

  it('/v3/tokens/self describes the calling token', async () => {
    const child = await create(alice, { name: 'described', feeds: ['cisa-kev'] });
    const { status, body } = await self(child.body.token);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: child.body.id,
      name: 'described',
      feeds: ['cisa-kev'],
      rate_limit: 'default',
      state: 'active',
      admin: false,
      parent_id: aliceId,
      child: true,
    });
    expect(body.last_used_at).not.toBeNull();
    expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now() + 29 * DAY);
    expect(body).not.toHaveProperty('token');
  });

  describe('cross-site protection of state-changing requests', () => {
    const cookie = (token: string) => ({ cookie: `token=${token}` });
    it.each([
      ['by cookie without Origin', (token: string) => cookie(token), 403, 'Origin header'],
      [
        'by cookie from another site',
        (token: string) => ({ ...cookie(token), origin: 'https://evil.test' }),
        403,
        'evil.test',
      ],
      ['by cookie from this server', (token: string) => ({ ...cookie(token), origin: PUBLIC }), 201, undefined],
      [
        'by cookie, Origin with the default port',
        (token: string) => ({ ...cookie(token), origin: `${PUBLIC}:443` }),
        201,
        undefined,
      ],
      ['by Bearer header without Origin', (token: string) => ({ authorization: `Bearer ${token}` }), 201, undefined],
      [
        'by Bearer header from another site',
        (token: string) => ({ authorization: token, origin: 'https://evil.test' }),
        201,
        undefined,
      ],
    ])('POST %s', async (_, headers, status, says) => {
      const answer = await call('POST', '/v3/tokens', { body: { name: 'csrf' }, headers: headers(admin) });
      expect(answer.status).toBe(status);
      if (says) expect(answer.body.errors[0]).toContain(says);
    });

    it('DELETE by cookie needs the Origin too', async () => {
      const victim = (await create(admin, { name: 'victim' })).body.id;
      expect((await call('DELETE', `/v3/tokens/${victim}`, { headers: cookie(admin) })).status).toBe(403);
      const allowed = await call('DELETE', `/v3/tokens/${victim}`, { headers: { ...cookie(admin), origin: PUBLIC } });
      expect(allowed.status).toBe(200);
    });

    it('never takes the token from the URL for POST or DELETE, even beside a valid header', async () => {
      const post = await call('POST', `/v3/tokens?token=${admin}`, { body: { name: 'url' } });
      expect(post.status).toBe(400);
      expect(post.body.errors[0]).toContain('not accepted for POST');
      const both = await call('POST', `/v3/tokens?token=${admin}`, { token: admin, body: { name: 'url' } });
      expect(both.status).toBe(400);
      expect((await call('DELETE', `/v3/tokens/1?token=${admin}`, { token: admin })).status).toBe(400);
      // GET keeps every carrier.
      expect((await call('GET', `/v3/tokens/self?token=${admin}`)).status).toBe(200);
      expect((await call('GET', '/v3/tokens/self', { headers: cookie(admin) })).status).toBe(200);
    });
  });

  it('documents the endpoints: answers, errors and token carriers', async () => {
    const doc = (await t.get('/openapi.json', null)).body;
    const post = doc.paths['/v3/tokens'].post;
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '409', '429']));
    expect(post.security).not.toContainEqual({ TokenQuery: [] });
    expect(post.requestBody.content['application/json'].schema.properties).not.toHaveProperty('admin');
    const remove = doc.paths['/v3/tokens/{id}'].delete;
    expect(Object.keys(remove.responses)).toEqual(expect.arrayContaining(['200', '403', '404']));
    expect(doc.paths['/v3/tokens'].get.security).toContainEqual({ TokenQuery: [] });
    expect(doc.paths['/v3/tokens/self'].get.operationId).toBe('tokens_self_get');
  });
});

describe.each(engineCases())('migration 16 ($name)', (engine) => {
  it('adds the admin flag and parent to an existing database, its tokens still valid', async () => {
    const fresh = await engine.fresh();
    try {
      const db = await openDatabase(fresh.config);
      try {
        await migrate(db, { through: 15 });
        await db.run(`INSERT INTO tokens (name, hash, created_at) VALUES ('old', 'h', ?)`, [Date.now()]);
        expect((await migrate(db)).applied).toEqual([16]);
      } finally {
        await db.close();
      }
      const storage = await createStorage(fresh.config);
      try {
        const [old] = await storage.tokens.list();
        expect(old).toMatchObject({ name: 'old', admin: false });
        expect(old!.parentId).toBeUndefined();
        const child = await storage.tokens.createChild(old!.id, 'kid', {}, MAX_CHILD_TOKENS);
        expect(child.info).toMatchObject({ parentId: old!.id, parent: { id: old!.id, admin: false } });
        expect(await storage.tokens.findByToken(child.token)).toMatchObject({ name: 'kid', parentId: old!.id });
      } finally {
        await storage.close();
      }
    } finally {
      await fresh.drop();
    }
  });
});

describe('cross-site protection without VULNSCOPE_PUBLIC_URL', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp(engineCases()[0]!);
    admin = (await t.storage.tokens.create('root', { admin: true })).token;
  });
  afterAll(() => t?.close());

  it.each([
    ['the origin the request was addressed to', 'http://vulnscope.internal:8080', 201],
    ['another port', 'http://vulnscope.internal:9090', 403],
    ['another scheme', 'https://vulnscope.internal:8080', 403],
  ])('a cookie POST from %s', async (_, origin, status) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v3/tokens',
      headers: {
        host: 'vulnscope.internal:8080',
        cookie: `token=${admin}`,
        origin,
        'content-type': 'application/json',
      },
      payload: JSON.stringify({ name: 'same-origin' }),
    });
    expect(response.statusCode, response.body).toBe(status);
  });
});
