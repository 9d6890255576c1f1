import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteCase } from '../support/engines.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * The operator routes: `/process/status` reports this process's event-loop delay and memory to the
 * operator token only, and a reset returns what it cleared; without VULNSCOPE_STATUS_TOKEN there is
 * no such route.
 */

const STATUS_TOKEN = 'operator-secret-0123456789';

describe('process status', () => {
  let t: TestApp;
  let bare: TestApp;

  beforeAll(async () => {
    t = await startTestApp(sqliteCase, { VULNSCOPE_STATUS_TOKEN: STATUS_TOKEN });
    bare = await startTestApp(sqliteCase);
  });
  afterAll(async () => {
    await t?.close();
    await bare?.close();
  });

  const cases: Array<{
    name: string;
    method: 'GET' | 'POST';
    url: string;
    token: () => string | undefined;
    status: number;
  }> = [
    { name: 'status, operator token', method: 'GET', url: '/process/status', token: () => STATUS_TOKEN, status: 200 },
    {
      name: 'reset, operator token',
      method: 'POST',
      url: '/process/status/reset',
      token: () => STATUS_TOKEN,
      status: 200,
    },
    { name: 'status, API token', method: 'GET', url: '/process/status', token: () => t.token, status: 401 },
    { name: 'reset, API token', method: 'POST', url: '/process/status/reset', token: () => t.token, status: 401 },
    { name: 'status, no token', method: 'GET', url: '/process/status', token: () => undefined, status: 401 },
    {
      name: 'status, wrong token',
      method: 'GET',
      url: '/process/status',
      token: () => `${STATUS_TOKEN}x`,
      status: 401,
    },
  ];

  it.each(cases)('$name: $status', async ({ method, url, token, status }) => {
    const value = token();
    const response = await t.app.inject({
      method,
      url,
      headers: value ? { authorization: `Bearer ${value}` } : {},
    });
    expect(response.statusCode, response.body).toBe(status);
  });

  it('reports this process, its event-loop delay and memory', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/process/status',
      headers: { authorization: `Bearer ${STATUS_TOKEN}` },
    });
    const body = response.json();
    expect(body.pid).toBe(process.pid);
    expect(body.event_loop_delay).toMatchObject({ resolution_ms: expect.any(Number), max_ms: expect.any(Number) });
    expect(body.memory.rss_bytes).toBeGreaterThan(0);
  });

  it('a reset returns what it cleared and restarts the window', async () => {
    const reset = () =>
      t.app.inject({
        method: 'POST',
        url: '/process/status/reset',
        headers: { authorization: `Bearer ${STATUS_TOKEN}` },
      });
    const first = (await reset()).json();
    const second = (await reset()).json();
    expect(Date.parse(second.since)).toBeGreaterThanOrEqual(Date.parse(first.since));
  });

  it('does not exist without VULNSCOPE_STATUS_TOKEN', async () => {
    const response = await bare.app.inject({
      method: 'GET',
      url: '/process/status',
      headers: { authorization: `Bearer ${bare.token}` },
    });
    expect(response.statusCode).toBe(404);
  });
});
