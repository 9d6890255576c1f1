import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation } from '../../src/core/observation.js';
import { IndexSync } from '../../src/search/index-sync.js';
import { parseHostQuery, typedFilters } from '../../src/server/routes/target-intel/query.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 5, 1, 8);
const NGINX = 'cpe:2.3:a:f5:nginx:1.20.1:*:*:*:*:*:*:*';

type Input = Partial<Observation> & { ip: string; port: number };

/** 300 records; a third observed at T0 (these expire), the rest two days later. */
function records(): Input[] {
  return Array.from({ length: 300 }, (_, i) => ({
    ip: `10.30.${i >> 6}.${i & 63}`,
    port: i % 2 === 0 ? 80 : 443,
    timestamp: i % 3 === 0 ? T0 : T0 + 48 * HOUR,
    fingerprints: i % 2 === 0 ? [{ cpe: NGINX }] : [],
    hostnames: i % 5 === 0 ? [`host${i}.example.com`] : [],
    cves: i % 7 === 0 ? ['CVE-2021-41773'] : [],
  }));
}

const QUERIES: Array<Record<string, string>> = [
  {},
  { port: '80' },
  { hostname: 'host' },
  { cve: 'CVE-2021-41773' },
  { cidr: '10.30.0.0/24' },
  { updatedAtEndDate: '2025-06-02T00:00:00Z' },
];

describe.each(engineCases())('an expiry applied from the change log on $name', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await t.ingest(records());
  });
  afterAll(async () => t?.close());

  it('removes the expired records, leaving the index equal to a fresh build', async () => {
    const hosts = t.storage.hosts;
    const running = new IndexSync(hosts);
    await running.build();
    const expired = running.index.idsObservedBefore(T0 + HOUR);
    expect(expired).toHaveLength(100);

    expect(await hosts.expire(expired, T0 + HOUR)).toBe(100);
    // A content change in the same stretch of the log.
    await t.ingest([{ ...records()[1]!, timestamp: T0 + 49 * HOUR, hostnames: ['renamed.example.com'] }]);
    await running.refresh();

    const fresh = new IndexSync(hosts);
    await fresh.build();
    expect(running.index.size).toBe(200);
    expect(fresh.index.size).toBe(200);
    const request = { sort: 'timestamp' as const, order: 'desc' as const, offset: 0, limit: 300 };
    for (const params of QUERIES) {
      const expected = fresh.index.page(parseHostQuery(typedFilters(params)), request);
      const got = running.index.page(parseHostQuery(typedFilters(params)), request);
      expect({ total: got.total, ids: got.ids }, JSON.stringify(params)).toEqual({
        total: expected.total,
        ids: expected.ids,
      });
    }
  });
});
