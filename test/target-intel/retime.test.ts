import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation } from '../../src/core/observation.js';
import { IndexSync } from '../../src/search/index-sync.js';
import { parseHostQuery, typedFilters } from '../../src/server/routes/target-intel/query.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 5, 1, 8);
const APACHE = 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*';
const NGINX = 'cpe:2.3:a:f5:nginx:1.20.1:*:*:*:*:*:*:*';

type Input = Partial<Observation> & { ip: string; port: number };

/** 200 records: half with a fingerprint, some with hostnames and scanner CVEs. */
function firstRound(): Input[] {
  return Array.from({ length: 200 }, (_, i) => ({
    ip: `10.20.${i >> 6}.${i & 63}`,
    port: i % 3 === 0 ? 80 : 443,
    timestamp: T0,
    fingerprints: i % 2 === 0 ? [{ cpe: i % 4 === 0 ? APACHE : NGINX }] : [],
    hostnames: i % 5 === 0 ? [`host${i}.example.com`] : [],
    cves: i % 7 === 0 ? ['CVE-2021-41773'] : [],
  }));
}

/**
 * The same records again: i % 4 = 0 with a new hostname (content changed), 1 and 3 unchanged but
 * observed later (only their time moves, by 2 and by 30 hours), 2 exactly as before (no change).
 */
function secondRound(first: Input[]): Input[] {
  return first.map((o, i) => {
    if (i % 4 === 0) return { ...o, timestamp: T0 + HOUR, hostnames: [`renamed${i}.example.com`] };
    if (i % 4 === 1) return { ...o, timestamp: T0 + 2 * HOUR };
    if (i % 4 === 3) return { ...o, timestamp: T0 + 30 * HOUR };
    return o;
  });
}

const QUERIES: Array<Record<string, string>> = [
  {},
  { updatedAtStartDate: '2025-06-01T09:30:00Z' },
  { updatedAtEndDate: '2025-06-01T09:30:00Z' },
  { updatedAtStartDate: '2025-06-02T00:00:00Z' },
  { updatedAtStartDate: '2025-06-01T08:30:00Z', updatedAtEndDate: '2025-06-01T10:30:00Z' },
  { hostname: 'renamed' },
  { hostname: 'host' },
  { cve: 'CVE-2021-41773', updatedAtStartDate: '2025-06-01T09:00:00Z' },
  { port: '443', updatedAtEndDate: '2025-06-01T12:00:00Z' },
];

describe.each(engineCases())('records observed again with nothing else changed on $name', (engine) => {
  let t: TestApp;
  let seqAfterFirst = 0;
  let first: Input[];
  let second: Input[];

  beforeAll(async () => {
    t = await startTestApp(engine);
    first = firstRound();
    second = secondRound(first);
    await t.ingest(first);
    seqAfterFirst = await t.storage.hosts.latestChangeSeq();
    // Batches of 64: records of a port land in different batches of the two rounds.
    expect(await t.ingest(second, { batchSize: 64 })).toMatchObject({
      inserted: 0,
      updated: 150,
      unchanged: 50,
      superseded: 0,
    });
  });
  afterAll(async () => t?.close());

  it('are logged with their new time; a content change is logged without one', async () => {
    const changes = await t.storage.hosts.changesSince(seqAfterFirst, 10_000);
    const retimed = changes.filter((change) => change.observedAt !== undefined);
    expect(retimed).toHaveLength(100);
    expect(changes.filter((change) => change.observedAt === undefined && !change.deleted)).toHaveLength(50);
    const stored = await t.storage.hosts.getByIds(retimed.map((change) => change.hostId));
    const timeOf = new Map(stored.map((record) => [record.id, record.observedAt]));
    for (const change of retimed) expect(change.observedAt).toBe(timeOf.get(change.hostId));
  });

  it('are stored and served with their new time and everything else as before', async () => {
    const byKey = new Map<string, any>();
    for (const page of [1, 2]) {
      const response = await t.get(`/v3/index/target-intel?cidr=10.20.0.0/16&limit=100&page=${page}&sort=ip&order=asc`);
      expect(response.status).toBe(200);
      for (const r of response.body.data) byKey.set(`${r.ip}:${r.port}`, r);
    }
    expect(byKey.size).toBe(200);
    second.forEach((o, i) => {
      const served: any = byKey.get(`${o.ip}:${o.port}`);
      expect(served.timestamp, `record ${i}`).toBe(new Date(o.timestamp as number).toISOString());
      expect(served.date_added, `record ${i}`).toBe(new Date(T0).toISOString());
      expect(served.hostname, `record ${i}`).toBe(o.hostnames?.[0] ?? '');
    });
  });

  it('leave the running index equal to one built from scratch (totals and pages of time, hostname and term filters)', async () => {
    const fresh = new IndexSync(t.storage.hosts);
    await fresh.build();
    const running = t.context.hostIndex.index;
    expect(running.size).toBe(fresh.index.size);
    for (const params of QUERIES) {
      const query = parseHostQuery(typedFilters(params));
      for (const sort of ['timestamp', 'ip'] as const) {
        const request = { sort, order: 'desc' as const, offset: 0, limit: 300 };
        const expected = fresh.index.page(query, request);
        const got = running.page(query, request);
        expect({ total: got.total, ids: got.ids }, JSON.stringify(params)).toEqual({
          total: expected.total,
          ids: expected.ids,
        });
      }
    }
    // The filters above must discriminate: the retimed hours hold what the first round did not.
    expect(
      fresh.index.page(parseHostQuery(typedFilters({ updatedAtStartDate: '2025-06-02T00:00:00Z' })), {
        sort: 'timestamp',
        order: 'desc',
        offset: 0,
        limit: 1,
      }).total,
    ).toBe(50);
  });
});
