import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedLoadSummary } from '../../src/ingest/feeds/load.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeErrors, validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';
import { ADVISORY, ADVISORY_SCHEMA, loadRealFeeds, RECORD_SCHEMA, REAL_FEEDS, type RealFeed } from './support.js';

/**
 * Every filter of /v4/advisory, alone and combined, over real feeds (subsets of vulnrichment, the
 * NVD records, KEV, Go, PyPA and RustSec OSV). Expected results come from a plain scan of every
 * served record (an oracle written independently of the store), so each filter is checked for
 * exactly the records it should return, in the served order.
 */

type Json = Record<string, any>;
interface Served {
  feed: string;
  record: Json;
}

const lower = (value: unknown) =>
  typeof value === 'string' ? value.trim().toLowerCase().replace(/\s+/g, ' ') : undefined;
const containers = (record: Json): Json[] => [record.containers.cna, ...(record.containers.adp ?? [])];
const affected = (record: Json): Json[] => containers(record).flatMap((c) => c.affected ?? []);
const criteria = (record: Json): string[] =>
  containers(record).flatMap((c) =>
    (c.cpeApplicability ?? []).flatMap((item: Json) =>
      (item.mcpeapplicability?.nodes ?? []).flatMap((node: Json) =>
        (node.cpeMatch ?? []).filter((m: Json) => m.vulnerable !== false).map((m: Json) => m.criteria as string),
      ),
    ),
  );
const cpeParts = (cpe: string) => cpe.split(':');
const references = (record: Json): Json[] => containers(record).flatMap((c) => c.references ?? []);

/** The update time the filters use: dateUpdated, else datePublished, else dateReserved (NaN: none). */
const updateTime = (record: Json) => {
  const { dateUpdated, datePublished, dateReserved } = record.cveMetadata;
  return Date.parse(dateUpdated ?? datePublished ?? dateReserved);
};

const key = (served: Served) => `${served.feed}/${served.record.cveMetadata.cveId}`;

describe.each(engineCases())('/v4/advisory filters on real feeds ($name)', (engine) => {
  let t: TestApp;
  let loaded: Record<RealFeed, FeedLoadSummary>;
  const all: Served[] = [];

  /** Every record of the query, following the cursor to the end. */
  async function walk(query: string, limit = 100): Promise<Served[]> {
    const served: Served[] = [];
    let response = await t.get(`${ADVISORY}?start_cursor=true&limit=${limit}${query ? `&${query}` : ''}`);
    for (let guard = 0; ; guard++) {
      expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(200);
      expect(describeErrors(validateAgainst(ADVISORY_SCHEMA, response.body))).toEqual([]);
      const names = new URLSearchParams(query).get('name');
      for (const record of response.body.data) served.push({ feed: names ?? feedOf(record), record });
      if (response.body._meta.next_cursor === undefined) break;
      if (guard > 1000) throw new Error('cursor walk does not end');
      response = await t.get(`${ADVISORY}?cursor=${encodeURIComponent(response.body._meta.next_cursor)}`);
    }
    return served;
  }

  /** Which feed served a record: the feeds are disjoint in their record shapes' provenance. */
  const feedIndex = new Map<unknown, string>();
  const feedOf = (record: Json) => feedIndex.get(JSON.stringify(record)) ?? '?';

  beforeAll(async () => {
    t = await startTestApp(engine);
    loaded = await loadRealFeeds(t.storage);
    for (const feed of (Object.keys(REAL_FEEDS) as RealFeed[]).sort()) {
      const records = await walk(`name=${feed}`);
      for (const served of records) feedIndex.set(JSON.stringify(served.record), feed);
      all.push(...records);
    }
  }, 600_000);
  afterAll(async () => {
    await t?.close();
  });

  it('loads every subset completely', () => {
    expect(Object.fromEntries(Object.entries(loaded).map(([feed, s]) => [feed, [s.records, s.rejected]]))).toEqual({
      'mitre-cvelist-v5': [2000, 0],
      'nist-nvd2': [29, 0],
      'cisa-kev': [1404, 0],
      'go-vulndb': [300, 0],
      pypa: [200, 0],
      rustsec: [200, 0],
    });
    expect(all.length).toBe(2000 + 29 + 1404 + 300 + 200 + 200);
  });

  it('serves every record of every feed valid against advisory.MitreCVEListV5Ref, in (feed, cveId) order', () => {
    const problems = all.flatMap((served) =>
      describeErrors(validateAgainst(RECORD_SCHEMA, served.record)).map((e) => `${key(served)} ${e}`),
    );
    expect(problems.slice(0, 20)).toEqual([]);
    const order = all.map((s) => [s.feed, s.record.cveMetadata.cveId as string] as const);
    const sorted = [...order].sort((a, b) =>
      a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0,
    );
    expect(order).toEqual(sorted);
  });

  it('without a name, serves the feeds one after another in name order', async () => {
    expect((await walk('')).map(key)).toEqual(all.map(key));
  });

  it('counts: total is every record of the feeds queried, filtered the matches, pages = ceil(filtered / limit)', async () => {
    const everything = await t.get(`${ADVISORY}?limit=7`);
    expect(everything.body._meta).toEqual({
      total: all.length,
      filtered: all.length,
      page: 1,
      pages: Math.ceil(all.length / 7),
      limit: 7,
    });
    const kev = await t.get(`${ADVISORY}?name=cisa-kev&vendor=microsoft`);
    const expected = all.filter(
      (s) => s.feed === 'cisa-kev' && affected(s.record).some((a) => lower(a.vendor) === 'microsoft'),
    );
    expect(expected.length).toBeGreaterThan(10);
    expect(kev.body._meta).toEqual({
      total: 1404,
      filtered: expected.length,
      page: 1,
      pages: Math.ceil(expected.length / 10),
      limit: 10,
    });
    expect(kev.body.data).toHaveLength(10);
  });

  const vendorIs = (vendor: string) => (s: Served) =>
    affected(s.record).some((a) => lower(a.vendor) === vendor) ||
    criteria(s.record).some((c) => cpeParts(c)[3] === vendor);
  const productIs = (product: string) => (s: Served) =>
    affected(s.record).some((a) => lower(a.product) === product) ||
    criteria(s.record).some((c) => cpeParts(c)[4] === product);

  const cases: Array<[string, string, (s: Served) => boolean]> = [
    ['name', 'name=nist-nvd2', (s) => s.feed === 'nist-nvd2'],
    ['cve_id (several feeds)', 'cve_id=CVE-2021-44228', (s) => s.record.cveMetadata.cveId === 'CVE-2021-44228'],
    ['cve_id, lower-case', 'cve_id=cve-2023-22515', (s) => s.record.cveMetadata.cveId === 'CVE-2023-22515'],
    [
      'cve_id, an OSV record without a CVE',
      'cve_id=GO-2022-0363',
      (s) => s.record.cveMetadata.cveId === 'GO-2022-0363',
    ],
    ['vendor, case-insensitive', 'vendor=MicroSoft', vendorIs('microsoft')],
    ['vendor with spaces', 'vendor=Oracle%20Corporation', vendorIs('oracle corporation')],
    ['product', 'product=MySQL%20Server', productIs('mysql server')],
    [
      'platform',
      'platform=x64-based%20Systems',
      (s) => affected(s.record).some((a) => (a.platforms ?? []).some((p: string) => lower(p) === 'x64-based systems')),
    ],
    ['package_name', 'package_name=ansible', (s) => affected(s.record).some((a) => lower(a.packageName) === 'ansible')],
    [
      'reference_url',
      `reference_url=${encodeURIComponent('http://www.oracle.com/technetwork/security-advisory/cpujul2017-3236622.html')}`,
      (s) =>
        references(s.record).some(
          (r) => r.url === 'http://www.oracle.com/technetwork/security-advisory/cpujul2017-3236622.html',
        ),
    ],
    [
      'reference_tag',
      'reference_tag=Vendor-Advisory',
      (s) => references(s.record).some((r) => (r.tags ?? []).some((tag: string) => lower(tag) === 'vendor-advisory')),
    ],
    [
      'description_lang, a prefix of en-US',
      'description_lang=en',
      (s) => containers(s.record).some((c) => (c.descriptions ?? []).some((d: Json) => /^en($|[-_])/i.test(d.lang))),
    ],
    [
      'description_lang, exact region',
      'description_lang=en-US',
      (s) => containers(s.record).some((c) => (c.descriptions ?? []).some((d: Json) => /^en[-_]us$/i.test(d.lang))),
    ],
    [
      'description_lang, German',
      'description_lang=de',
      (s) => containers(s.record).some((c) => (c.descriptions ?? []).some((d: Json) => /^de($|[-_])/i.test(d.lang))),
    ],
    [
      'updatedAfter (RFC 3339, exclusive)',
      'updatedAfter=2024-10-01T00:00:00Z',
      (s) => updateTime(s.record) > Date.parse('2024-10-01T00:00:00Z'),
    ],
    [
      'updatedBefore (day)',
      'updatedBefore=2022-01-01',
      (s) => updateTime(s.record) < Date.parse('2022-01-01T00:00:00Z'),
    ],
    [
      'vendor + product hold for the same entry',
      'vendor=microsoft&product=windows',
      (s) => affected(s.record).some((a) => lower(a.vendor) === 'microsoft' && lower(a.product) === 'windows'),
    ],
    ['name + vendor', 'name=cisa-kev&vendor=apple', (s) => s.feed === 'cisa-kev' && vendorIs('apple')(s)],
    [
      'reference_tag + description_lang + updatedAfter',
      'reference_tag=patch&description_lang=en&updatedAfter=2024-06-01T00:00:00Z',
      (s) =>
        references(s.record).some((r) => (r.tags ?? []).includes('patch')) &&
        containers(s.record).some((c) => (c.descriptions ?? []).some((d: Json) => /^en/i.test(d.lang))) &&
        updateTime(s.record) > Date.parse('2024-06-01T00:00:00Z'),
    ],
    [
      'updatedAfter + updatedBefore',
      'updatedAfter=2021-01-01&updatedBefore=2022-06-01',
      (s) => updateTime(s.record) > Date.parse('2021-01-01') && updateTime(s.record) < Date.parse('2022-06-01'),
    ],
    [
      'package_name + name',
      'package_name=stdlib&name=go-vulndb',
      (s) => s.feed === 'go-vulndb' && affected(s.record).some((a) => a.packageName === 'stdlib'),
    ],
  ];

  it.each(cases)('%s', async (_label, query, predicate) => {
    const expected = all.filter(predicate).map(key);
    expect(expected.length, 'the case must select something').toBeGreaterThan(0);
    expect(expected.length, 'the case must not select everything').toBeLessThan(all.length);
    expect((await walk(query)).map(key)).toEqual(expected);
    const first = await t.get(`${ADVISORY}?${query}&limit=5`);
    expect(first.body._meta.filtered).toBe(expected.length);
  });

  it.each<[string, string, string[]]>([
    // NVD configurations: log4j 2.0.1 ≤ v < 2.3.2 and further ranges; 2.17.1 is the fix of CVE-2021-44832.
    ['cpe inside the NVD bounds', 'name=nist-nvd2&cpe=cpe:2.3:a:apache:log4j:2.14.1', ['CVE-2021-44832']],
    ['cpe at the fixed version', 'name=nist-nvd2&cpe=cpe:2.3:a:apache:log4j:2.17.1', []],
    ['cpe 2.2 URI form', 'name=nist-nvd2&cpe=cpe:/a:apache:log4j:2.14.1', ['CVE-2021-44832']],
    ['cpe OpenSSL 3.0.5 (3.0.0 ≤ v < 3.0.7)', 'name=nist-nvd2&cpe=cpe:2.3:a:openssl:openssl:3.0.5', ['CVE-2022-3602']],
    ['cpe OpenSSL 3.0.7', 'name=nist-nvd2&cpe=cpe:2.3:a:openssl:openssl:3.0.7', []],
    [
      'cpe without version: every record naming the product',
      'name=nist-nvd2&cpe=cpe:2.3:a:apache:log4j:*',
      ['CVE-2021-44832'],
    ],
    [
      'version with vendor/product through NVD ranges',
      'name=nist-nvd2&vendor=apache&product=log4j&version=2.14.1',
      ['CVE-2021-44832'],
    ],
    [
      'purl with version (Go, SemVer)',
      'name=go-vulndb&purl=pkg:golang/github.com/gin-gonic/gin@1.5.0',
      ['CVE-2020-28483', 'CVE-2020-36567'],
    ],
    ['purl at the fixed version', 'name=go-vulndb&purl=pkg:golang/github.com/gin-gonic/gin@1.6.0', ['CVE-2020-28483']],
    [
      'purl without version',
      'name=go-vulndb&purl=pkg:golang/github.com/gin-gonic/gin',
      ['CVE-2020-28483', 'CVE-2020-36567'],
    ],
  ])('%s', async (_label, query, expected) => {
    const response = await t.get(`${ADVISORY}?${query}&limit=100`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.map((r: Json) => r.cveMetadata.cveId)).toEqual(expected);
    expect(response.body._meta.filtered).toBe(expected.length);
  });

  it('a version alone: records whose entries say it is affected, in every feed', async () => {
    const response = await t.get(`${ADVISORY}?version=1.5.0&limit=100`);
    expect(response.status).toBe(200);
    expect(response.body._meta.filtered).toBeGreaterThan(0);
    expect(response.body.data.map((r: Json) => r.cveMetadata.cveId)).toContain('CVE-2020-36567');
    expect(describeErrors(validateAgainst(ADVISORY_SCHEMA, response.body))).toEqual([]);
  });
});
