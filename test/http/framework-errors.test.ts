import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/server/main.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeErrors, validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';

/**
 * Error bodies the HTTP layer produces itself — a path that is not valid percent-encoding, an
 * unknown route, a URI or headers too large, a request Node cannot parse — use the documented
 * `{"error": true, "errors": [...]}` shape and never echo any part of the request.
 */

/** A marker placed in every request; no error body may contain it. */
const MARK = 'ECHOMARK';

function expectErrorShape(body: unknown, status: number) {
  expect(body).toEqual({ error: true, errors: [expect.any(String)] });
  expect(describeErrors(validateAgainst('search.ErrorResponse', body))).toEqual([]);
  const text = JSON.stringify(body);
  expect(text, `${status} echoes the request: ${text}`).not.toContain(MARK);
  expect(text).not.toMatch(/%C0|%AE|FST_ERR|statusCode/);
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are over a new connection and reads the response until the server closes it. */
function rawRequest(port: number, request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may close while we are still writing: what it answered is what counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
  });
}

const get = (target: string, headers: Record<string, string> = {}) =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}Connection: close\r\n\r\n`;

describe.each(engineCases())('HTTP-layer errors through inject ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  const inject = async (method: 'GET' | 'DELETE' | 'POST', url: string) => {
    const response = await t.app.inject({ method, url, headers: { authorization: `Bearer ${t.token}` } });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    return { status: response.statusCode, body: response.json() };
  };

  it.each([
    '/v4/backup/%C0%AE%C0%AE',
    `/v4/backup/${MARK}%C0%AE%C0%AE`,
    `/v4/backup/${MARK}%zz`,
    `/v3/backup/${MARK}%`,
    `/${MARK}/%E2%82`,
  ])('a path that is not valid percent-encoded UTF-8 (%s) is a 400 in the documented shape', async (url) => {
    const response = await inject('GET', url);
    expect(response.status).toBe(400);
    expectErrorShape(response.body, 400);
  });

  it.each([
    ['GET', `/${MARK}`],
    ['GET', `/v4/${MARK}/deeper?${MARK}=1`],
    ['GET', `/v3/index/${MARK}-intel`],
    ['DELETE', '/v4/advisory'],
    ['POST', `/v3/index/target-intel?cve=${MARK}`],
  ] as const)('%s %s: a 404 whose message names no part of the request', async (method, url) => {
    const response = await inject(method, url);
    expect(response.status).toBe(404);
    expectErrorShape(response.body, 404);
    const message = response.body.errors[0] as string;
    expect(message).not.toContain(method);
    for (const part of url.split(/[/?=&]/).filter((p) => p.length > 2)) expect(message).not.toContain(part);
  });

  it('a path segment longer than the router accepts is a 414 in the documented shape', async () => {
    const response = await inject('GET', `/v4/backup/${MARK}${'a'.repeat(200)}`);
    expect(response.status).toBe(414);
    expectErrorShape(response.body, 414);
  });
});

describe.each(engineCases())('HTTP-layer errors from a listening server ($name)', (engine) => {
  let server: RunningServer;
  let port: number;
  let token: string;
  let drop: () => Promise<void>;
  let backupDir: string;

  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-http-errors-'));
    const config = {
      ...loadConfig({
        VULNSCOPE_HOST: '127.0.0.1',
        VULNSCOPE_PORT: '0',
        VULNSCOPE_RATE_LIMIT: 'unlimited',
        VULNSCOPE_BACKUP_DIR: backupDir,
        VULNSCOPE_RETENTION_DAYS: '0',
      }),
      database: fresh.config,
    };
    server = await startServer(config, {
      sweeper: false,
      logStream: { write: () => true } as unknown as NodeJS.WritableStream,
    });
    port = Number(new URL(server.url).port);
    token = (await server.context.storage.tokens.create('http-errors')).token;
  });
  afterAll(async () => {
    await server?.close();
    await drop?.();
    if (backupDir) fs.rmSync(backupDir, { recursive: true, force: true });
  });

  const expectJsonError = (response: RawResponse, status: number) => {
    expect(response.status, response.body.slice(0, 300)).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cache-control']).toBe('no-store');
    expectErrorShape(JSON.parse(response.body), status);
  };

  it('answers a good request (the server under test works)', async () => {
    const response = await rawRequest(port, get('/whoami', { authorization: `Bearer ${token}` }));
    expect(response.status).toBe(200);
  });

  it('a request target longer than Node accepts (20 KB) is a 414 in the documented shape', async () => {
    const target = `/v4/advisory?vendor=${MARK}${'a'.repeat(20_000)}`;
    expectJsonError(await rawRequest(port, get(target, { authorization: `Bearer ${token}` })), 414);
  });

  it('a request target far over the limit (100 KB, several network reads) is a 414 too', async () => {
    const target = `/v4/advisory?vendor=${MARK}${'a'.repeat(100_000)}`;
    expectJsonError(await rawRequest(port, get(target)), 414);
  });

  it('headers larger than Node accepts (20 KB) are a 431 in the documented shape', async () => {
    const response = await rawRequest(
      port,
      get('/whoami', { authorization: `Bearer ${token}`, 'x-padding': `${MARK}${'b'.repeat(20_000)}` }),
    );
    expectJsonError(response, 431);
  });

  it('many headers adding up past the limit are a 431', async () => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    for (let i = 0; i < 200; i++) headers[`x-h${i}`] = `${MARK}${'c'.repeat(100)}`;
    expectJsonError(await rawRequest(port, get('/whoami', headers)), 431);
  });

  it('bytes a URL may not hold (raw non-ASCII, a raw control character) are a 400 in the documented shape', async () => {
    const raw = Buffer.concat([
      Buffer.from(`GET /v4/advisory?vendor=${MARK}`),
      Buffer.from([0xc0, 0xae, 0xff]),
      Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    ]);
    expectJsonError(await rawRequest(port, raw), 400);
    expectJsonError(await rawRequest(port, `GET /v4/advisory?vendor=${MARK}\u0001 HTTP/1.1\r\nHost: a\r\n\r\n`), 400);
  });

  it('a request that is not HTTP is a 400 in the documented shape', async () => {
    expectJsonError(await rawRequest(port, `${MARK} nonsense\r\n\r\n`), 400);
  });

  it('a malformed path and an unknown route over the network are in the documented shape too', async () => {
    expectJsonError(
      await rawRequest(port, get(`/v4/backup/${MARK}%C0%AE%C0%AE`, { authorization: `Bearer ${token}` })),
      400,
    );
    expectJsonError(await rawRequest(port, get(`/${MARK}`, { authorization: `Bearer ${token}` })), 404);
  });
});
