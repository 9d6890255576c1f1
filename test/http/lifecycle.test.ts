import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../src/server/lifecycle.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

const STATUS_TOKEN = 'operator-token-lifecycle';

/** What each path answers in each state: the API only when ready; probes and the operator always. */
const CASES: Array<[state: 'starting' | 'draining', path: string, status: number]> = [
  ['starting', '/v3/index/target-intel?limit=1', 503],
  ['starting', '/v4/advisory?limit=1', 503],
  ['starting', '/whoami', 503],
  ['starting', '/healthz', 503],
  ['starting', '/healthz/live', 200],
  ['starting', '/openapi.json', 200],
  ['starting', '/process/status', 200],
  ['draining', '/v3/index/target-intel?limit=1', 503],
  ['draining', '/v3/search/cpe?vendor=apache', 503],
  ['draining', '/healthz', 503],
  ['draining', '/healthz/live', 200],
  ['draining', '/process/status', 200],
];

describe.each(engineCases())('readiness while starting and draining ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { VULNSCOPE_STATUS_TOKEN: STATUS_TOKEN });
  });
  afterAll(async () => t?.close());

  const request = (path: string) =>
    t.app.inject({
      method: 'GET',
      url: path,
      headers: { authorization: `Bearer ${path.startsWith('/process/') ? STATUS_TOKEN : t.token}` },
    });

  it.each(CASES)('%s: %s → %i', async (state, path, status) => {
    const ready = t.context.lifecycle;
    t.context.lifecycle = new Lifecycle(state);
    try {
      const response = await request(path);
      expect(response.statusCode, response.body).toBe(status);
      if (path === '/healthz') expect(response.json()).toMatchObject({ status: state, live: true, ready: false });
      else if (path === '/process/status') expect(response.json().state).toBe(state);
      else if (status === 503) {
        expect(response.json()).toEqual({ error: true, errors: [expect.stringMatching(/starting|shutting down/)] });
        expect(response.headers['retry-after']).toBe('5');
        if (state === 'draining') expect(response.headers.connection).toBe('close');
      }
    } finally {
      t.context.lifecycle = ready;
    }
  });

  it('ready again: everything answers', async () => {
    for (const path of ['/v3/index/target-intel?limit=1', '/healthz', '/whoami'])
      expect((await request(path)).statusCode, path).toBe(200);
  });

  it('a lifecycle moves starting → ready → draining, never back', () => {
    const lifecycle = new Lifecycle();
    expect(lifecycle.state).toBe('starting');
    lifecycle.markReady();
    expect(lifecycle.ready).toBe(true);
    lifecycle.markDraining();
    lifecycle.markReady();
    expect(lifecycle.state).toBe('draining');
  });
});
