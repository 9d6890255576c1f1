import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation } from '../../src/core/observation.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { at, TI } from './dataset.js';
import { walk } from './helpers.js';

type Obs = Partial<Observation> & { ip: string; port: number };

/** Identity of a served record: its key as far as the API shows it (ip, port, protocol, fingerprints). */
const identity = (r: any) =>
  `${r.ip} ${r.port}/${r.protocol} ${JSON.stringify(r.fingerprints.map((f: any) => [f.cpe, f.vendor, f.product, f.version]))}`;

/**
 * More records than the index sorts directly (4096): pages are cut by walking the sort buckets
 * (hours, /24 and /48 blocks, ports). 4500 IPv4 records in many /24 blocks and 500 IPv6 ones in
 * 500 /48 blocks, each with a distinct timestamp in a different order from the addresses.
 */
const LARGE_V4 = 4500;
const LARGE_V6 = 500;
const BASE = at('2025-05-01T00:00:00Z');
const v4 = (i: number) => {
  const n = 0x0a000000 + i * 53;
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
};
const v6 = (k: number) => `2001:db8:${(k + 1).toString(16)}::${(k * 7 + 1).toString(16)}`;
/** Timestamp rank (a permutation of 0..4999, unrelated to address order). */
const rank = (i: number) => (i * 7919) % (LARGE_V4 + LARGE_V6);
interface Large {
  key: string;
  ts: number;
  port: number;
}
const LARGE: Large[] = [
  ...Array.from({ length: LARGE_V4 }, (_, i) => ({
    key: `${v4(i)} ${1000 + (i % 37)}/tcp`,
    ts: BASE + rank(i) * 61_000,
    port: 1000 + (i % 37),
  })),
  ...Array.from({ length: LARGE_V6 }, (_, k) => ({
    key: `${v6(k)} 443/tcp`,
    ts: BASE + rank(LARGE_V4 + k) * 61_000,
    port: 443,
  })),
];
const largeObservations = (): Obs[] =>
  LARGE.map((r, i) => ({
    ip: r.key.split(' ')[0]!,
    port: r.port,
    timestamp: r.ts,
    fingerprints: [{ cpe: `cpe:2.3:a:acme:p${i % 5}:${i % 11}.0:*:*:*:*:*:*:*` }],
    cves: i % 3 === 0 ? ['CVE-2024-0001'] : [],
  }));
const keyOf = (r: any) => `${r.ip} ${r.port}/${r.protocol}`;
const BY_TS_DESC = [...LARGE].sort((a, b) => b.ts - a.ts).map((r) => r.key);
const BY_IP_ASC = LARGE.map((r) => r.key); // generated in address order

describe.each(engineCases())('target-intel paging over 5000 records on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    const summary = await t.ingest(largeObservations());
    expect(summary.inserted).toBe(5000);
  });
  afterAll(async () => t?.close());

  const walkKeys = async (query: string) => {
    const pages = await walk(t, query);
    return { pages, keys: pages.flatMap((p) => p.data.map(keyOf)) };
  };

  it('cursor walk, sort=timestamp desc, limit 1000', async () => {
    const { pages, keys } = await walkKeys('start_cursor=true&limit=1000');
    expect(pages.map((p) => p.data.length)).toEqual([1000, 1000, 1000, 1000, 1000]);
    expect(pages.at(-1)._meta).not.toHaveProperty('next_cursor');
    expect(pages.every((p) => p._meta.total_documents === 5000)).toBe(true);
    expect(keys).toEqual(BY_TS_DESC);
  });

  it('cursor walk, sort=date_added asc, limit 1500', async () => {
    const { keys } = await walkKeys('start_cursor=true&limit=1500&sort=date_added&order=asc');
    expect(keys).toEqual([...BY_TS_DESC].reverse());
  });

  it('cursor walk, sort=ip asc, limit 700 (IPv4 blocks, then IPv6 blocks)', async () => {
    const { pages, keys } = await walkKeys('start_cursor=true&limit=700&sort=ip&order=asc');
    expect(pages.map((p) => p.data.length)).toEqual([700, 700, 700, 700, 700, 700, 700, 100]);
    expect(keys).toEqual(BY_IP_ASC);
  });

  it('cursor walk, sort=ip desc, limit 2000', async () => {
    const { keys } = await walkKeys('start_cursor=true&limit=2000&sort=ip&order=desc');
    expect(keys).toEqual([...BY_IP_ASC].reverse());
  });

  it.each(['asc', 'desc'])('cursor walk, sort=port %s, limit 999, equals offset paging', async (order) => {
    const { keys } = await walkKeys(`start_cursor=true&limit=999&sort=port&order=${order}`);
    expect(new Set(keys).size).toBe(5000);
    const ports = keys.map((k) => Number(k.split(' ')[1]!.split('/')[0]));
    const sorted = [...ports].sort((a, b) => (order === 'asc' ? a - b : b - a));
    expect(ports).toEqual(sorted);
    const offset: string[] = [];
    for (let page = 1; page <= 50; page++) {
      const response = await t.get(`${TI}?sort=port&order=${order}&limit=100&page=${page}`);
      offset.push(...response.body.data.map(keyOf));
    }
    expect(offset).toEqual(keys);
  });

  it('filtered cursor walk (cidr=10.0.0.0/8, 4500 matches), sort=timestamp asc', async () => {
    const { keys } = await walkKeys('start_cursor=true&limit=1000&sort=timestamp&order=asc&cidr=10.0.0.0/8');
    expect(keys).toEqual([...BY_TS_DESC].reverse().filter((k) => k.startsWith('10.')));
  });

  it.each([
    ['sort=timestamp&order=desc&limit=100&page=37', BY_TS_DESC.slice(3600, 3700)],
    ['sort=ip&order=asc&limit=100&page=45', BY_IP_ASC.slice(4400, 4500)],
    ['sort=ip&order=asc&limit=100&page=46', BY_IP_ASC.slice(4500, 4600)],
    ['sort=ip&order=asc&limit=33&page=137', BY_IP_ASC.slice(4488, 4521)],
    ['sort=ip&order=desc&limit=90&page=6', [...BY_IP_ASC].reverse().slice(450, 540)],
    ['sort=timestamp&order=asc&limit=100&page=50', [...BY_TS_DESC].reverse().slice(4900, 5000)],
  ])('deep offset page %s', async (query, expected) => {
    const response = await t.get(`${TI}?${query}`);
    expect(response.status).toBe(200);
    expect(response.body.data.map(keyOf)).toEqual(expected);
    expect(response.body._meta.total_documents).toBe(5000);
  });

  it('offset paging past the large result is empty', async () => {
    const response = await t.get(`${TI}?limit=100&page=51`);
    expect(response.body.data).toEqual([]);
    expect(response.body._meta).toMatchObject({ total_pages: 50, max_pages: 50, total_documents: 5000 });
  });

  // Last: it changes the data the tests above read.
  it('a cursor walk while records change: no duplicates, every unchanged record exactly once', async () => {
    const all = largeObservations();
    const changed = new Set<string>();
    let round = 0;
    const pages = await walk(t, 'start_cursor=true&limit=1200&sort=timestamp&order=desc', async () => {
      round += 1;
      const updates: Obs[] = [];
      // Re-scan 100 records spread over the whole order (some served, some not), newer.
      for (let j = 0; j < 100; j++) {
        const i = (round * 997 + j * 43) % LARGE_V4;
        updates.push({ ...all[i]!, timestamp: BASE + 6000 * 61_000 + round * 1000 + j });
        changed.add(LARGE[i]!.key);
      }
      // Supersede 20 records with a new fingerprint.
      for (let j = 0; j < 20; j++) {
        const i = (round * 1301 + j * 211 + 7) % LARGE_V4;
        updates.push({
          ...all[i]!,
          timestamp: BASE + 7000 * 61_000 + round * 1000 + j,
          fingerprints: [{ cpe: 'cpe:2.3:a:acme:upgraded:9.9:*:*:*:*:*:*:*' }],
        });
        changed.add(LARGE[i]!.key);
      }
      // Insert 50 new records with timestamps inside the walk's range.
      for (let j = 0; j < 50; j++) {
        updates.push({
          ip: `172.16.${round}.${j}`,
          port: 80,
          timestamp: BASE + (((round * 50 + j) * 97) % 5000) * 61_000 + 30_000,
        });
      }
      await t.ingest(updates);
    });
    expect(round).toBeGreaterThanOrEqual(3);
    const records = pages.flatMap((p) => p.data);
    const identities = records.map(identity);
    expect(identities.length).toBe(new Set(identities).size);
    const keys = records.map(keyOf);
    expect(keys.length).toBe(new Set(keys).size);
    const servedCount = new Map<string, number>();
    for (const key of keys) servedCount.set(key, (servedCount.get(key) ?? 0) + 1);
    const missing = LARGE.filter((r) => !changed.has(r.key) && servedCount.get(r.key) !== 1).map((r) => r.key);
    expect(missing).toEqual([]);
    expect(keys.some((k) => k.startsWith('172.16.'))).toBe(false);
  });
});
