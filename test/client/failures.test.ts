/**
 * The SDK's failure paths against stand-in servers: timeouts, the caller's abort, unreachable
 * servers, cut exports, 5xx, 429 retries, and what goes on the wire.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Vulnscope,
  VulnscopeApiError,
  VulnscopeConfigError,
  VulnscopeIncompleteExportError,
  VulnscopeServerError,
  VulnscopeTimeoutError,
} from '../../src/client/index.js';
import { parseRetryAfter } from '../../src/client/transport.js';
import { freePort } from '../support/cli.js';
import { stubServer } from './support.js';

const TOKEN = 'vs_stub_token_secret';
let stub: Awaited<ReturnType<typeof stubServer>> | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function serve(handler: (request: http.IncomingMessage, response: http.ServerResponse) => void) {
  stub = await stubServer(handler);
  return new Vulnscope({ baseUrl: stub.base, token: TOKEN, timeoutMs: 2000 });
}

async function failure(run: () => Promise<unknown>): Promise<VulnscopeApiError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(VulnscopeApiError);
    const e = error as VulnscopeApiError;
    expect(`${e.message} ${e.messages.join(' ')}`).not.toContain(TOKEN);
    return e;
  }
  throw new Error('expected the call to fail');
}

async function drain(items: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of items) n++;
  return n;
}

const ndjson = (response: http.ServerResponse) => response.writeHead(200, { 'content-type': 'application/x-ndjson' });

describe('the SDK on the wire', () => {
  it('sends the token as a Bearer header only, booleans and integers as text, and drops a token parameter', async () => {
    const seen: Array<{ url: string; authorization: string | undefined }> = [];
    const client = await serve((request, response) => {
      seen.push({ url: request.url!, authorization: request.headers.authorization });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"_meta":{},"data":[]}');
    });
    await client.targetIntel({ port: 443, contains_cve: true, limit: 5, cve: 'CVE-2021-41773', token: 'x' } as never);
    await client.backup('a feed/with slash');
    expect(seen[0]!.authorization).toBe(`Bearer ${TOKEN}`);
    const url = new URL(seen[0]!.url, 'http://x');
    expect(url.pathname).toBe('/v3/index/target-intel');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      port: '443',
      contains_cve: 'true',
      limit: '5',
      cve: 'CVE-2021-41773',
    });
    expect(seen[1]!.url).toBe('/v4/backup/a%20feed%2Fwith%20slash');
  });

  it('keeps a base URL path prefix (a server behind a reverse proxy)', async () => {
    const urls: string[] = [];
    stub = await stubServer((request, response) => {
      urls.push(request.url!);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
    });
    await new Vulnscope({ baseUrl: `${stub.base}/vulnscope/`, token: TOKEN }).indexes();
    expect(urls).toEqual(['/vulnscope/v3/index']);
  });

  it('calls fetch without a receiver, as the fetch of browsers requires', async () => {
    const receivers: unknown[] = [];
    const client = new Vulnscope({
      baseUrl: 'http://vulnscope.test',
      token: TOKEN,
      // A browser's fetch throws "Illegal invocation" when called with any `this` but the window.
      fetch: function (this: unknown) {
        receivers.push(this);
        return Promise.resolve(
          new Response('{"_meta":{},"data":[]}', { headers: { 'content-type': 'application/json' } }),
        );
      } as typeof fetch,
    });
    await client.targetIntel({ limit: 1 });
    expect(receivers).toEqual([undefined]);
  });

  it('needs a base URL and a token', () => {
    expect(() => new Vulnscope({ env: {} })).toThrow(VulnscopeConfigError);
    expect(() => new Vulnscope({ env: { VULNSCOPE_URL: 'http://127.0.0.1:1' } })).toThrow(/VULNSCOPE_TOKEN/);
    expect(() => new Vulnscope({ baseUrl: 'ftp://x', token: TOKEN })).toThrow(/http/);
    const error = (() => {
      try {
        new Vulnscope({ env: {} });
      } catch (e) {
        return e as VulnscopeApiError;
      }
    })();
    expect(error?.kind).toBe('config');
  });
});

describe('SDK failures', () => {
  it('a server that does not answer in time is a timeout', async () => {
    const client = await serve(() => {
      /* never answers */
    });
    const error = await failure(() => client.indexes({ timeoutMs: 150 }));
    expect(error).toBeInstanceOf(VulnscopeTimeoutError);
    expect(error.message).toMatch(/GET \/v3\/index: no answer within 150 ms/);
  });

  it('an export that stalls mid-stream is a timeout', async () => {
    const client = await serve((_request, response) => {
      ndjson(response);
      response.write('{"ip":"192.0.2.1"}\n');
    });
    const error = await failure(() => drain(client.targetIntelExport({}, { timeoutMs: 200 })));
    expect(error.kind).toBe('timeout');
  });

  it("the caller's signal aborts a call", async () => {
    const client = await serve(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(() => client.indexes({ signal: controller.signal }));
    expect(error.kind).toBe('aborted');
    const already = await failure(() => client.indexes({ signal: AbortSignal.abort() }));
    expect(already.kind).toBe('aborted');
  });

  it('an unreachable server is a network error', async () => {
    const port = await freePort();
    const client = new Vulnscope({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN });
    const error = await failure(() => client.indexes());
    expect(error.kind).toBe('network');
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/connection refused/);
  });

  it('an export without its closing line was cut', async () => {
    const client = await serve((_request, response) => {
      ndjson(response);
      response.end('{"ip":"192.0.2.1"}\n{"ip":"192.0.2.2"}\n');
    });
    const error = await failure(() => drain(client.targetIntelExport()));
    expect(error).toBeInstanceOf(VulnscopeIncompleteExportError);
    expect((error as VulnscopeIncompleteExportError).received).toBe(2);
    expect(error.message).toMatch(/cut after 2 records/);
  });

  it('an export whose connection breaks was cut', async () => {
    const client = await serve((_request, response) => {
      ndjson(response);
      response.write('{"ip":"192.0.2.1"}\n');
      setTimeout(() => response.socket?.destroy(), 50);
    });
    const error = await failure(() => drain(client.advisoryExport()));
    expect(error.kind).toBe('incomplete');
  });

  it('an export whose closing line counts other records than arrived is refused; a complete one passes', async () => {
    let count = 3;
    const client = await serve((_request, response) => {
      ndjson(response);
      response.end(`{"ip":"192.0.2.1"}\n{"ip":"192.0.2.2"}\n{"_meta":{"complete":true,"records":${count}}}\n`);
    });
    const error = await failure(() => drain(client.targetIntelExport()));
    expect(error.kind).toBe('incomplete');
    count = 2;
    expect(await drain(client.targetIntelExport())).toBe(2);
  });

  it('5xx is a server error with its messages and Retry-After, not retried', async () => {
    let requests = 0;
    const client = await serve((_request, response) => {
      requests++;
      response
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' })
        .end('{"error":true,"errors":["the server is starting"]}');
    });
    const error = await failure(() => client.advisoryFeeds());
    expect(error).toBeInstanceOf(VulnscopeServerError);
    expect(error).toMatchObject({ status: 503, messages: ['the server is starting'], retryAfterSeconds: 5 });
    expect(requests).toBe(1);
  });

  it('a walk whose server repeats a cursor stops with a server error', async () => {
    let requests = 0;
    const client = await serve((_request, response) => {
      requests++;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"_meta":{"next_cursor":"same"},"data":[{"ip":"192.0.2.1"}]}');
    });
    const error = await failure(() => drain(client.targetIntelRecords()));
    expect(error.kind).toBe('server');
    expect(requests).toBe(2);
  });

  it('a 200 that is not JSON is a server error', async () => {
    const client = await serve((_request, response) => response.writeHead(200).end('<html>'));
    expect((await failure(() => client.indexes())).kind).toBe('server');
  });

  it('429 is retried maxRetries times, then a rate-limit error', async () => {
    let requests = 0;
    stub = await stubServer((_request, response) => {
      requests++;
      response
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' })
        .end('{"error":true,"errors":["rate limit exceeded for other endpoints"]}');
    });
    const client = new Vulnscope({ baseUrl: stub.base, token: TOKEN, maxRetries: 2 });
    const error = await failure(() => client.indexes());
    expect(error.kind).toBe('rate-limit');
    expect(requests).toBe(3);
  });

  it('429 then 200: the retry answers', async () => {
    let requests = 0;
    stub = await stubServer((_request, response) => {
      if (++requests === 1) response.writeHead(429, { 'retry-after': '0' }).end('{"error":true,"errors":["slow"]}');
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"name":"x"}]}');
    });
    const client = new Vulnscope({ baseUrl: stub.base, token: TOKEN });
    expect((await client.indexes()).data).toEqual([{ name: 'x' }]);
    expect(requests).toBe(2);
  });

  it('a server that echoes the token never gets it into an error', async () => {
    const client = await serve((request, response) =>
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: true, errors: [`bad header ${request.headers.authorization}`] })),
    );
    const error = await failure(() => client.indexes());
    expect(error.messages).toEqual(['bad header Bearer <token>']);
  });

  it('Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
