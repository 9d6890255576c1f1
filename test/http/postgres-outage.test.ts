import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { ClassificationResolver } from '../../src/ingest/classifications/resolver.js';
import { runIngest } from '../../src/ingest/pipeline.js';
import { type RunningServer, startServer } from '../../src/server/main.js';
import { confirmingMatcher } from '../../src/services/matching/source.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { asItems, observation } from '../support/app.js';
import { POSTGRES_URL, postgresCase } from '../support/engines.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * PostgreSQL going silent or slow under a running server, through a proxy the test controls.
 * Bounds are asserted with a 5× margin over the (2 s for new requests once silent), and
 * the request deadline is set far above them so that a quick 503 can only come from the breaker.
 */

const BREAKER_BOUND_MS = 10_000;
/** Every endpoint a token reaches; each request uses a token never seen, so authentication needs the database. */
const ENDPOINTS = [
  '/v3/index/target-intel?limit=5',
  '/v4/advisory?limit=5',
  '/v3/search/cpe?vendor=apache',
  '/v3/backup',
  '/v3/index',
  '/whoami',
];

const quiet = { write: () => true } as unknown as NodeJS.WritableStream;

async function timedGet(url: string, token?: string) {
  const started = performance.now();
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* asserted by callers */
  }
  return {
    status: response.status,
    body,
    retryAfter: response.headers.get('retry-after'),
    ms: performance.now() - started,
  };
}

function expect503(response: Awaited<ReturnType<typeof timedGet>>) {
  expect(response.status, JSON.stringify(response.body)).toBe(503);
  expect(response.body.error).toBe(true);
  expect(response.body.errors).toEqual([expect.any(String)]);
  expect(Number(response.retryAfter)).toBeGreaterThan(0);
}

describe.runIf(POSTGRES_URL)('PostgreSQL outages under a running server', () => {
  let proxy: TcpProxy;
  let setup: Storage;
  let drop: () => Promise<void>;
  let schema: string;
  let server: RunningServer | undefined;
  const tokens: string[] = [];
  const freshToken = () => tokens.pop()!;

  beforeAll(async () => {
    const target = new URL(POSTGRES_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const fresh = await postgresCase.fresh();
    drop = fresh.drop;
    schema = (fresh.config as { schema: string }).schema;
    setup = await createStorage(fresh.config);
    for (let i = 0; i < 40; i++) tokens.push((await setup.tokens.create(`outage-${i}`)).token);
    const classifier = new ClassificationResolver([]);
    const now = Date.now();
    await runIngest(
      setup,
      asItems(
        Array.from({ length: 20 }, (_, i) =>
          observation({ ip: `192.0.2.${i + 1}`, port: 443, timestamp: now, hostnames: [`h${i}.example`] }),
        ),
      ),
      { classifier, matcher: confirmingMatcher(setup) },
      { retentionDays: 0 },
    );
  });

  afterEach(async () => {
    await proxy.setMode('forward');
    proxy.setLatency(0);
    await server?.close();
    server = undefined;
  });

  afterAll(async () => {
    await setup?.close();
    await proxy?.close();
    await drop?.();
  });

  const configFor = (env: Record<string, string>): Config => {
    const url = new URL(POSTGRES_URL!);
    url.hostname = proxy.host;
    url.port = String(proxy.port);
    url.searchParams.set('schema', schema);
    return loadConfig({
      VULNSCOPE_DATABASE_URL: url.toString(),
      VULNSCOPE_PORT: '0',
      VULNSCOPE_RETENTION_DAYS: '0',
      VULNSCOPE_RATE_LIMIT: 'unlimited',
      VULNSCOPE_BACKUP_INTERVAL: '0',
      VULNSCOPE_SECRET: randomBytes(16).toString('hex'),
      ...env,
    });
  };

  it('silent: new requests on every endpoint get a JSON 503 quickly, in-flight ones too, and it recovers', async () => {
    server = await startServer(configFor({ VULNSCOPE_REQUEST_TIMEOUT_MS: '60000' }), { logStream: quiet });
    const before = await timedGet(`${server.url}/v3/index/target-intel?limit=5`, freshToken());
    expect(before.status).toBe(200);
    expect(before.body._meta.total_documents).toBe(20);

    await proxy.setMode('silent');
    const inFlight = timedGet(`${server.url}/v3/index/target-intel?limit=5`, freshToken());
    const answers = [];
    for (const path of ENDPOINTS) {
      const response = await timedGet(`${server.url}${path}`, freshToken());
      expect503(response);
      answers.push(`${path} ${Math.round(response.ms)} ms`);
      expect(response.ms, path).toBeLessThan(BREAKER_BOUND_MS);
    }
    const health = await timedGet(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'unavailable', live: true, ready: false });
    const waited = await inFlight;
    expect503(waited);
    expect(waited.ms).toBeLessThan(BREAKER_BOUND_MS);
    console.info(`silent PostgreSQL: in flight ${Math.round(waited.ms)} ms; ${answers.join(', ')}`);

    await proxy.setMode('forward');
    const started = Date.now();
    while ((await timedGet(`${server.url}/healthz`)).status !== 200) {
      expect(Date.now() - started).toBeLessThan(BREAKER_BOUND_MS);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = await timedGet(`${server.url}/v3/index/target-intel?limit=5`, freshToken());
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual(before.body.data);
  });

  it('slow: a request still waiting at its deadline gets a JSON 503 with Retry-After, the rest answer', async () => {
    // The probe tolerates the latency, so only the request deadline can answer.
    server = await startServer(
      configFor({ VULNSCOPE_REQUEST_TIMEOUT_MS: '1000', VULNSCOPE_DB_PROBE_TIMEOUT_MS: '20000' }),
      { logStream: quiet },
    );
    proxy.setLatency(2_000);
    const late = await timedGet(`${server.url}/v3/index/target-intel?limit=5`, freshToken());
    expect503(late);
    expect(late.body.errors[0]).toMatch(/did not complete within 1 s/);
    expect(late.ms).toBeLessThan(5 * 1000);
    proxy.setLatency(0);
    // The abandoned work finishes on its own; the server keeps answering.
    const next = await timedGet(`${server.url}/v3/index/target-intel?limit=5`, freshToken());
    expect(next.status).toBe(200);
    expect(next.body._meta.total_documents).toBe(20);
  });
});

describe.runIf(POSTGRES_URL)('the PostgreSQL breaker', () => {
  it('does not open when only the event loop was late, however long', async () => {
    const fresh = await postgresCase.fresh();
    const storage = await createStorage(fresh.config);
    try {
      const opened: string[] = [];
      storage.db.onBreakerChange?.((status) => opened.push(status.state));
      await new Promise((resolve) => setTimeout(resolve, 600));
      // Turns longer than the probe's 1 s bound, with the database answering all along: a probe
      // sent at the start of one finds its answer waiting, and its timer expired, at the end.
      for (let turn = 0; turn < 6; turn++) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        const until = Date.now() + 1_200;
        while (Date.now() < until) {
          /* a request holding the CPU */
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(opened).toEqual([]);
      expect(storage.db.breakerStatus?.().state).toBe('closed');
      expect(await storage.db.get('SELECT 1 AS one')).toEqual({ one: 1 });
    } finally {
      await storage.close();
      await fresh.drop();
    }
  });
});

describe.runIf(POSTGRES_URL)('closing PostgreSQL storage', () => {
  it('does not wait for a statement stuck on a slow server', async () => {
    const target = new URL(POSTGRES_URL!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const fresh = await postgresCase.fresh();
    const url = new URL(POSTGRES_URL!);
    url.hostname = proxy.host;
    url.port = String(proxy.port);
    const schema = (fresh.config as { schema: string }).schema;
    const storage = await createStorage({ engine: 'postgres', url: url.toString(), schema });
    try {
      // A pooled connection already open, so the statement is sent at once and waits on the server.
      expect(await storage.db.get('SELECT 1 AS one')).toEqual({ one: 1 });
      proxy.setLatency(30_000);
      const stuck = storage.db.get('SELECT 1 AS one').then(
        () => 'answered',
        () => 'failed',
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      await storage.close();
      const seconds = (performance.now() - started) / 1000;
      expect(await stuck).toBe('failed');
      console.info(`closing with a stuck statement: ${seconds.toFixed(2)} s`);
      expect(seconds).toBeLessThan(10);
    } finally {
      proxy.setLatency(0);
      await proxy.close();
      await fresh.drop();
    }
  }, 30_000);
});
