import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../../src/config.js';
import { engineCases } from '../support/engines.js';
import { LONG, report } from './support/figures.js';
import { databaseUrlOf, killHard, type RunningServer, sleep, startServer } from './support/processes.js';
import { seedDatabase } from './support/seed.js';
import { type Answer, describeAnswer, timedGet } from './support/timed-fetch.js';

/**
 * A bounded soak: eight tokens query every endpoint at a steady pace (well inside their budget)
 * while a ninth floods as fast as 12 connections allow. The flooding token must get 429s with
 * Retry-After, the others never, and nothing may fail. The server's RSS growth is reported.
 */
const SOAK_MS = LONG ? 600_000 : Number(process.env.VULNSCOPE_RELIABILITY_SOAK_MS ?? 30_000);
/** Every token's budget per endpoint group; a steady token uses at most a third of it. */
const BUDGET = '300/10s';
const STEADY_TOKENS = 8;
const STEADY_WORKERS_PER_TOKEN = 2;
/** Per steady worker: at most 10 requests/s, half of them to the index group: ≤ 100 a token per 10 s in any group. */
const STEADY_INTERVAL_MS = 100;
const FLOOD_WORKERS = 12;

const URLS = [
  '/v3/index/target-intel?limit=20',
  '/v3/index/target-intel?vendor=apache&contains_cve=true&limit=50',
  '/v3/index/target-intel?cidr=198.18.0.0/24&sort=ip&order=asc',
  '/v3/index/target-intel?country_code=US&port=443&start_cursor=true&limit=200',
  '/v3/index/target-intel?cve=CVE-2024-1001',
  '/v4/advisory?name=alpha',
  '/v4/advisory/list',
  '/v3/search/cpe?vendor=apache',
  '/v3/backup',
  '/whoami',
];

function rssKiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

describe.each(engineCases())('soak with one token flooding ($name)', (engine) => {
  let database: { config: DatabaseConfig; drop(): Promise<void> };
  let server: RunningServer;
  let tokens: Record<string, string>;

  beforeAll(async () => {
    database = await engine.fresh();
    const names = ['flood', ...Array.from({ length: STEADY_TOKENS }, (_, i) => `steady-${i}`)];
    tokens = await seedDatabase(database.config, {
      observations: 3000,
      tokens: Object.fromEntries(names.map((name) => [name, undefined])),
    });
    server = await startServer({
      VULNSCOPE_DATABASE_URL: databaseUrlOf(database.config),
      VULNSCOPE_RETENTION_DAYS: '0',
      VULNSCOPE_RATE_LIMIT: BUDGET,
      VULNSCOPE_BACKUP_INTERVAL: '0',
    });
  });
  afterAll(async () => {
    if (server) await killHard(server.child);
    await database?.drop();
  });

  it('the flooding token gets 429 with Retry-After, the others never, and nothing fails', async () => {
    const pid = server.child.pid!;
    // Warm-up before the first RSS reading: JIT, caches, connections.
    await Promise.all(URLS.map((url) => timedGet(server.base, url, tokens['steady-0'], 10_000)));
    await sleep(1000);
    const rssStart = rssKiB(pid);
    let rssPeak = rssStart;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssKiB(pid));
    }, 1000);
    const until = performance.now() + SOAK_MS;
    const steady: Answer[] = [];
    const flood: Answer[] = [];
    const steadyWorker = async (token: string, offset: number) => {
      for (let i = offset; performance.now() < until; i++) {
        const started = performance.now();
        steady.push(await timedGet(server.base, URLS[i % URLS.length]!, token, 30_000));
        await sleep(Math.max(0, STEADY_INTERVAL_MS - (performance.now() - started)));
      }
    };
    const floodWorker = async (offset: number) => {
      for (let i = offset; performance.now() < until; i++) {
        flood.push(await timedGet(server.base, URLS[i % URLS.length]!, tokens.flood, 30_000));
      }
    };
    const workers: Array<Promise<void>> = [];
    for (let t = 0; t < STEADY_TOKENS; t++) {
      for (let w = 0; w < STEADY_WORKERS_PER_TOKEN; w++) workers.push(steadyWorker(tokens[`steady-${t}`]!, t + w * 5));
    }
    for (let w = 0; w < FLOOD_WORKERS; w++) workers.push(floodWorker(w));
    await Promise.all(workers);
    clearInterval(sampler);
    await sleep(1000);
    const rssEnd = rssKiB(pid);

    const seconds = SOAK_MS / 1000;
    const part = `soak ${engine.name} (${seconds} s, ${STEADY_TOKENS * STEADY_WORKERS_PER_TOKEN + FLOOD_WORKERS} connections)`;
    const times = steady.map((a) => a.ms).sort((a, b) => a - b);
    const refused = flood.filter((a) => a.status === 429);
    report(
      part,
      'steady requests / errors / 429',
      `${steady.length} / ${steady.filter((a) => a.status !== 200).length} / ${steady.filter((a) => a.status === 429).length}`,
    );
    report(
      part,
      'steady p50 / p99 / max ms',
      `${times[Math.floor(times.length / 2)]?.toFixed(1)} / ${times[Math.floor(times.length * 0.99)]?.toFixed(1)} / ${times.at(-1)?.toFixed(1)}`,
    );
    const perUrl = URLS.map((url) => {
      const own = steady
        .filter((a) => a.url === url)
        .map((a) => a.ms)
        .sort((a, b) => a - b);
      return `${url.replace(/^\/v\d\//, '')} ${own[Math.floor(own.length / 2)]?.toFixed(0)}`;
    });
    report(part, 'steady p50 ms by query', perUrl.join('; '));
    report(
      part,
      'flood requests / 429 / other errors',
      `${flood.length} / ${refused.length} / ${flood.filter((a) => a.status !== 200 && a.status !== 429).length}`,
    );
    report(part, 'requests/s (all tokens)', (steady.length + flood.length) / seconds);
    report(
      part,
      'server RSS start / peak / end MiB',
      `${(rssStart / 1024).toFixed(0)} / ${(rssPeak / 1024).toFixed(0)} / ${(rssEnd / 1024).toFixed(0)}`,
    );
    report(part, 'server RSS growth (goal < 10 %)', `${(((rssEnd - rssStart) / rssStart) * 100).toFixed(1)} %`);

    expect(
      steady
        .filter((a) => a.status !== 200)
        .slice(0, 5)
        .map(describeAnswer),
      'steady tokens',
    ).toEqual([]);
    expect(
      flood
        .filter((a) => a.status !== 200 && a.status !== 429)
        .slice(0, 5)
        .map(describeAnswer),
      'flood',
    ).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
    expect(
      refused
        .filter((a) => a.problem || !(Number(a.retryAfter) > 0))
        .slice(0, 5)
        .map(describeAnswer),
    ).toEqual([]);
  });
});
