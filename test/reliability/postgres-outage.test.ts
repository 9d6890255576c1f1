import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../../src/config.js';
import { POSTGRES_URL, postgresCase } from '../support/engines.js';
import { report } from './support/figures.js';
import { databaseUrlOf, killHard, type RunningServer, sleep, startServer } from './support/processes.js';
import { seedDatabase } from './support/seed.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { type Answer, describeAnswer, timedGet } from './support/timed-fetch.js';

/**
 * PostgreSQL outages through a TCP proxy in front of the real server, against a running
 * `vulnscope serve`: refused (a stopped database), silent (connections accepted, nothing answered)
 * and slow. Asserted are only the bounds: once the database is unreachable, a new request
 * gets a JSON 503 with Retry-After within 2 s on every endpoint; a request in flight when it went
 * silent answers at its deadline; a slow database never holds a request past its deadline; the
 * server recovers without a restart.
 */
/** The server's request deadline here: long enough that each bound below is 5× what the breaker takes (≈ 1.1–1.6 s). */
const DEADLINE_MS = 6000;
/** The bound for a request that arrives once the database is gone. */
const NEW_REQUEST_BOUND_MS = 2000;
/** Time for the breaker to close again once the database is back (measured: under 1 s). */
const RECOVERY_BOUND_MS = 30_000;
/** Past the server's one-second token cache, so authentication itself needs the database. */
const PAST_TOKEN_CACHE_MS = 1100;

const URLS = [
  '/v3/index/target-intel?limit=5',
  '/v3/index/target-intel?vendor=apache&contains_cve=true&limit=5',
  '/v4/advisory?name=alpha',
  '/v4/advisory/list',
  '/v3/search/cpe?vendor=apache',
  '/v3/backup',
  '/whoami',
];

describe.runIf(POSTGRES_URL)('PostgreSQL outages through a proxy (postgres)', () => {
  let proxy: TcpProxy;
  let server: RunningServer | undefined;
  let database: { config: DatabaseConfig; drop(): Promise<void> };
  let token: string;
  let freshTokens: string[];

  beforeEach(async () => {
    database = await postgresCase.fresh();
    const target = new URL(POSTGRES_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const names = ['outage', ...Array.from({ length: 8 }, (_, i) => `in-flight-${i}`)];
    const tokens = await seedDatabase(database.config, {
      observations: 300,
      tokens: Object.fromEntries(names.map((name) => [name, undefined])),
    });
    token = tokens.outage!;
    freshTokens = names.slice(1).map((name) => tokens[name]!);
    const proxied = { ...(database.config as { engine: 'postgres'; url: string; schema?: string }) };
    const url = new URL(proxied.url);
    url.host = `127.0.0.1:${proxy.port}`;
    server = await startServer({
      VULNSCOPE_DATABASE_URL: databaseUrlOf({ ...proxied, url: url.toString() }),
      VULNSCOPE_RETENTION_DAYS: '0',
      VULNSCOPE_RATE_LIMIT: 'unlimited',
      VULNSCOPE_BACKUP_INTERVAL: '0',
      VULNSCOPE_REQUEST_TIMEOUT_MS: String(DEADLINE_MS),
    });
    for (const url of URLS) expect((await timedGet(server.base, url, token, 10_000)).status, url).toBe(200);
  });
  afterEach(async () => {
    if (server) await killHard(server.child);
    server = undefined;
    await proxy?.close();
    await database?.drop();
  });

  const everyEndpoint = (giveUpMs: number) =>
    Promise.all([
      ...URLS.map((url) => timedGet(server!.base, url, token, giveUpMs)),
      timedGet(server!.base, '/healthz', undefined, giveUpMs),
    ]);

  /** Polls every endpoint until all answer 200 again; returns how long that took. */
  async function recovery(): Promise<number> {
    const started = performance.now();
    while (performance.now() - started < RECOVERY_BOUND_MS) {
      const answers = await Promise.all(URLS.map((url) => timedGet(server!.base, url, token, 5000)));
      if (answers.every((a) => a.status === 200)) return performance.now() - started;
      await sleep(200);
    }
    return Number.POSITIVE_INFINITY;
  }

  function unavailableProblems(answers: Answer[], boundMs: number): string[] {
    return (
      answers
        .filter((a) => a.url !== '/healthz')
        .filter((a) => a.status !== 503 || a.problem || !(Number(a.retryAfter) > 0) || a.ms > boundMs)
        .map(describeAnswer)
        // /healthz answers with its own status document, not an error body: it only has to answer in time.
        .concat(answers.filter((a) => a.url === '/healthz' && (a.status === 0 || a.ms > boundMs)).map(describeAnswer))
    );
  }

  it('refused: new requests get a JSON 503 with Retry-After within 2 s, then recovery without restart', async () => {
    await proxy.setMode('refuse');
    await sleep(PAST_TOKEN_CACHE_MS);
    const answers = await everyEndpoint(NEW_REQUEST_BOUND_MS * 5);
    report('postgres refused', 'slowest new request, ms', Math.round(Math.max(...answers.map((a) => a.ms))));
    await proxy.setMode('forward');
    const recovered = await recovery();
    report('postgres refused', 'recovery after the database is back, ms', Math.round(recovered));
    expect(unavailableProblems(answers, NEW_REQUEST_BOUND_MS)).toEqual([]);
    expect(recovered).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it('silent: in-flight requests answer at the deadline, new ones a JSON 503 within 2 s, then recovery', async () => {
    // Slow first, so the in-flight requests are surely waiting on the database when it goes silent.
    proxy.setLatency(400);
    const inFlight = freshTokens.map((fresh, i) =>
      timedGet(server!.base, i % 2 ? '/v4/advisory?name=alpha' : '/whoami', fresh, DEADLINE_MS * 5),
    );
    await sleep(150);
    await proxy.setMode('silent');
    proxy.setLatency(0);
    const heldAnswers = await Promise.all(inFlight);
    await sleep(PAST_TOKEN_CACHE_MS);
    const answers = await everyEndpoint(NEW_REQUEST_BOUND_MS * 5);
    // A second round: the breaker, once open, keeps answering at once.
    const again = await everyEndpoint(NEW_REQUEST_BOUND_MS * 5);
    report('postgres silent', 'in-flight requests: statuses', heldAnswers.map((a) => a.status).join(' '));
    report('postgres silent', 'in-flight requests: slowest, ms', Math.round(Math.max(...heldAnswers.map((a) => a.ms))));
    report(
      'postgres silent',
      'slowest new request, ms',
      Math.round(Math.max(...answers.concat(again).map((a) => a.ms))),
    );
    await proxy.setMode('forward');
    const recovered = await recovery();
    report('postgres silent', 'recovery after the database is back, ms', Math.round(recovered));

    const lateOrBroken = heldAnswers
      .filter(
        (a) =>
          a.status === 0 || a.problem || a.ms > DEADLINE_MS + NEW_REQUEST_BOUND_MS || ![200, 503].includes(a.status),
      )
      .map(describeAnswer);
    expect(lateOrBroken, 'in-flight requests').toEqual([]);
    expect(unavailableProblems(answers.concat(again), NEW_REQUEST_BOUND_MS), 'new requests').toEqual([]);
    expect(recovered).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it('slow: every request answers (200 or a JSON 503) by its deadline, then recovery', async () => {
    proxy.setLatency(500);
    const answers = (await everyEndpoint(DEADLINE_MS * 5)).concat(await everyEndpoint(DEADLINE_MS * 5));
    await sleep(PAST_TOKEN_CACHE_MS);
    answers.push(...(await everyEndpoint(DEADLINE_MS * 5)));
    const statuses = new Map<number, number>();
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    report('postgres slow (500 ms a packet)', 'statuses', [...statuses].map(([s, n]) => `${s}×${n}`).join(' '));
    report('postgres slow (500 ms a packet)', 'slowest request, ms', Math.round(Math.max(...answers.map((a) => a.ms))));
    proxy.setLatency(0);
    const recovered = await recovery();
    report('postgres slow (500 ms a packet)', 'recovery after latency is gone, ms', Math.round(recovered));
    const bad = answers
      .filter(
        (a) =>
          a.status === 0 ||
          (a.problem && a.url !== '/healthz') ||
          !(a.status === 200 || a.status === 503) ||
          a.ms > DEADLINE_MS + NEW_REQUEST_BOUND_MS,
      )
      .map(describeAnswer);
    expect(bad).toEqual([]);
    expect(recovered).toBeLessThan(RECOVERY_BOUND_MS);
  });
});
