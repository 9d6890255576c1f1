import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../../src/config.js';
import { sqliteCase } from '../support/engines.js';
import { report } from './support/figures.js';
import { databaseUrlOf, killHard, type RunningServer, sleep, startServer, withStorage } from './support/processes.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { type Answer, describeAnswer, timedGet } from './support/timed-fetch.js';

/**
 * Redis outages through a TCP proxy in front of the real Redis, against two running servers that
 * share it for rate limits: Redis stopped (refused), silent (connections accepted, nothing
 * answered) and restarted (reachable again). No request may fail or wait more than 100 ms longer
 * because of Redis (beyond the slowest request while Redis answers), and once Redis is back the instances share each token's budget again. The
 * database is SQLite: Redis's role does not depend on the engine.
 */
const REDIS_URL = process.env.VULNSCOPE_TEST_REDIS_URL;
/** The bound: a silent Redis delays no request by more than this. */
const REDIS_BOUND_MS = 100;
const PHASE_MS = 3000;
/** How soon shared counting must resume once Redis answers again (the fallback's probe runs every few seconds). */
const SHARED_AGAIN_BOUND_MS = 30_000;
const URLS = ['/whoami', '/v3/index/target-intel?limit=5', '/v4/advisory/list'];

describe.runIf(REDIS_URL)('Redis stopped, silent and restarted', () => {
  let proxy: TcpProxy;
  let database: { config: DatabaseConfig; drop(): Promise<void> };
  let servers: RunningServer[] = [];
  let token: string;
  let budgetTokens: string[];

  beforeAll(async () => {
    const target = new URL(REDIS_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    database = await sqliteCase.fresh();
    ({ token, budgetTokens } = await withStorage(database.config, async (storage) => ({
      token: (await storage.tokens.create('redis-outage')).token,
      budgetTokens: [
        (await storage.tokens.create('budget-before', { rateLimit: 20 })).token,
        (await storage.tokens.create('budget-after', { rateLimit: 20 })).token,
      ],
    })));
    const env = {
      VULNSCOPE_DATABASE_URL: databaseUrlOf(database.config),
      VULNSCOPE_RETENTION_DAYS: '0',
      // A budget no phase spends, so every request goes through the shared counter.
      VULNSCOPE_RATE_LIMIT: '1000000/60s',
      VULNSCOPE_REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      VULNSCOPE_BACKUP_INTERVAL: '0',
    };
    servers = [await startServer(env), await startServer(env)];
  });
  afterAll(async () => {
    for (const server of servers) await killHard(server.child);
    await proxy?.close();
    await database?.drop();
  });

  /** Sequential requests to both servers for `ms`, as a client would send them. */
  async function requestsFor(ms: number): Promise<Answer[]> {
    const answers: Answer[] = [];
    const until = performance.now() + ms;
    for (let i = 0; performance.now() < until; i++) {
      const server = servers[i % servers.length]!;
      answers.push(await timedGet(server.base, URLS[i % URLS.length]!, token, 10_000));
    }
    return answers;
  }

  /** How many of 2 × 12 requests (12 to each instance) a token with a budget of 20 gets refused. */
  async function refusedOfSharedBudget(budgetToken: string): Promise<number> {
    let refused = 0;
    for (let i = 0; i < 24; i++) {
      const answer = await timedGet(servers[i % 2]!.base, '/whoami', budgetToken, 10_000);
      if (answer.status === 429) refused++;
    }
    return refused;
  }

  /** Waits until every server's /healthz says rate limits are shared again; how long that took (ms). */
  async function sharedAgain(): Promise<number> {
    const started = performance.now();
    while (performance.now() - started < SHARED_AGAIN_BOUND_MS) {
      const modes = await Promise.all(
        servers.map(async (server) => {
          const response = await fetch(`${server.base}/healthz`).catch(() => undefined);
          return ((await response?.json().catch(() => undefined)) as { rate_limit?: string } | undefined)?.rate_limit;
        }),
      );
      if (modes.every((mode) => mode === 'shared')) return performance.now() - started;
      await sleep(100);
    }
    return Number.POSITIVE_INFINITY;
  }

  it('no request fails or waits more than 100 ms, and shared counting returns with Redis', async () => {
    // Warm-up (JIT, connections, Redis ready), not measured.
    await requestsFor(1500);
    expect(await sharedAgain()).toBeLessThan(SHARED_AGAIN_BOUND_MS);
    const sharedBefore = await refusedOfSharedBudget(budgetTokens[0]!);
    const phases: Array<[string, () => Promise<void>]> = [
      ['reachable', async () => {}],
      ['stopped', () => proxy.setMode('refuse')],
      ['restarted', () => proxy.setMode('forward')],
      ['silent', () => proxy.setMode('silent')],
      ['back after silence', () => proxy.setMode('forward')],
    ];
    const problems: string[] = [];
    // A request's delay is measured against the slowest one while Redis answers (this machine is shared and noisy).
    let baselineMs = 0;
    for (const [name, change] of phases) {
      await change();
      const answers = await requestsFor(PHASE_MS);
      const slowest = Math.max(...answers.map((a) => a.ms));
      if (name === 'reachable') baselineMs = slowest;
      report(
        `redis ${name}`,
        'requests / failed / slowest ms',
        `${answers.length} / ${answers.filter((a) => a.status !== 200).length} / ${Math.round(slowest)}`,
      );
      problems.push(
        ...answers
          .filter((a) => a.status !== 200 || a.ms > baselineMs + REDIS_BOUND_MS)
          .slice(0, 5)
          .map((a) => `${name}: ${describeAnswer(a)}`),
      );
    }
    const backMs = await sharedAgain();
    report('redis back after silence', '/healthz says rate_limit shared again after, ms', Math.round(backMs));
    expect(backMs).toBeLessThan(SHARED_AGAIN_BOUND_MS);
    const sharedAfter = await refusedOfSharedBudget(budgetTokens[1]!);
    report(
      'redis shared budget (20 per token, 24 requests over two instances)',
      'refused before / after the outages',
      `${sharedBefore} / ${sharedAfter}`,
    );
    expect(problems).toEqual([]);
    // Shared: the two instances together let 20 through, so 4 of 24 are refused (alone, each would let all 12 through).
    expect(sharedBefore).toBe(4);
    expect(sharedAfter).toBe(4);
  });
});
