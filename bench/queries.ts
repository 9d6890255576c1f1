import type { DatasetStats } from './dataset.js';

export interface QueryClass {
  name: string;
  /** Query string for /v3/index/target-intel (filters only). */
  params: Record<string, string>;
  /** When set, the class is `GET /v3/index/target-intel/facets` with this `fields`. */
  facets?: string;
  /** When set, the class is this C2 list (path and query), whose body is the whole list. */
  list?: { path: string; kind: 'addresses' | 'hostnames'; format: 'text' | 'json' };
  /** Expected hits from the generator's counts (before supersession/collisions). */
  expected: number;
  /** A SQL predicate over `hosts` that a naive full scan would evaluate. */
  naive: { where: string; args: Array<string | number> };
}

/** The facets class's fields: two single-valued, two multi-valued and one numeric. */
export const FACET_CLASS_FIELDS = 'country_code,port,product,cve,asn';

/** The columns a table scan can group by directly (the facets class's full-scan figure: a lower bound). */
export const FACET_SCAN_COLUMNS = ['country_code', 'port', 'asn'];

/** The request path of a query class. */
export function pathOf(query: QueryClass): string {
  if (query.list) return `${query.list.path}?format=${query.list.format}`;
  const params = new URLSearchParams(query.params);
  if (query.facets === undefined) return `/v3/index/target-intel?${params}`;
  params.set('fields', query.facets);
  return `/v3/index/target-intel/facets?${params}`;
}

const top = <K>(map: Map<K, number>): [K, number] => [...map.entries()].reduce((a, b) => (b[1] > a[1] ? b : a));

function ipKeyRange(first: number, last: number): [string, string] {
  const key = (n: number) => `4${n.toString(16).padStart(8, '0')}`;
  return [key(first), key(last)];
}

const ip4 = (n: number) => `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

/** The query classes of the benchmark, with values picked from the generated data. */
export function pickQueries(stats: DatasetStats): QueryClass[] {
  const cves = [...stats.cveCounts.entries()];
  const rare =
    cves.filter(([, n]) => n >= 1 && n <= 20).sort((a, b) => b[1] - a[1])[0] ?? cves.sort((a, b) => a[1] - b[1])[0]!;
  const popular = top(stats.cveCounts);
  const [vpv, vpvCount] = top(stats.vpvCounts);
  const [vendor, product, version] = vpv.split('|');
  const [block24, block24Count] = top(stats.blockCounts24);
  const [block16, block16Count] = top(stats.blockCounts16);
  const [country, countryCount] = top(stats.countryCveCounts);
  const [asnPort, asnPortCount] = top(stats.asnPortCounts);
  const [asn, port] = asnPort.split('|');
  const [word, wordCount] = top(stats.hostnameWordCounts);
  const range24 = ipKeyRange(block24 * 256, block24 * 256 + 255);
  const range16 = ipKeyRange(block16 * 65536, block16 * 65536 + 65535);
  return [
    {
      name: 'rare CVE',
      params: { cve: rare[0] },
      expected: rare[1],
      naive: { where: `cves LIKE ?`, args: [`%"${rare[0]}"%`] },
    },
    {
      name: 'popular CVE',
      params: { cve: popular[0] },
      expected: popular[1],
      naive: { where: `cves LIKE ?`, args: [`%"${popular[0]}"%`] },
    },
    {
      name: 'vendor=apache',
      params: { vendor: 'apache' },
      expected: stats.vendorCounts.get('apache') ?? 0,
      naive: { where: `fingerprints LIKE ?`, args: ['%"vendor":"apache"%'] },
    },
    {
      name: 'vendor+product+version',
      params: { vendor: vendor!, product: product!, version: version! },
      expected: vpvCount,
      naive: {
        where: `fingerprints LIKE ?`,
        args: [`%"vendor":"${vendor}","product":"${product}","version":"${version}"%`],
      },
    },
    {
      name: 'cidr /24',
      params: { cidr: `${ip4(block24 * 256)}/24` },
      expected: block24Count,
      naive: { where: `ip_key || '' BETWEEN ? AND ?`, args: range24 },
    },
    {
      name: 'cidr /16',
      params: { cidr: `${ip4(block16 * 65536)}/16` },
      expected: block16Count,
      naive: { where: `ip_key || '' BETWEEN ? AND ?`, args: range16 },
    },
    {
      name: 'single IP',
      params: { cidr: stats.sampleIp },
      expected: 1,
      naive: { where: `ip || '' = ?`, args: [stats.sampleIp] },
    },
    {
      name: 'contains_cve + country_code',
      params: { contains_cve: 'true', country_code: country },
      expected: countryCount,
      naive: { where: `cves <> '[]' AND country_code || '' = ?`, args: [country] },
    },
    {
      name: 'classifications=c2',
      params: { classifications: 'c2' },
      expected: stats.c2,
      naive: { where: `classifications LIKE ?`, args: ['%"c2%'] },
    },
    {
      name: 'C2 list: tags (text)',
      params: {},
      list: { path: '/v3/tags/vulncheck-c2', kind: 'addresses', format: 'text' },
      expected: stats.c2,
      naive: { where: `classifications LIKE ?`, args: ['%"c2%'] },
    },
    {
      name: 'C2 list: pdns (json)',
      params: {},
      list: { path: '/v3/pdns/vulncheck-c2', kind: 'hostnames', format: 'json' },
      expected: stats.c2,
      naive: { where: `classifications LIKE ? AND hostname <> ''`, args: ['%"c2%'] },
    },
    {
      name: 'asn + port',
      params: { asn: asn!, port: port! },
      expected: asnPortCount,
      naive: { where: `asn || '' = ? AND port + 0 = ?`, args: [asn!, Number(port)] },
    },
    {
      name: 'facets: 5 fields, contains_cve',
      params: { contains_cve: 'true' },
      facets: FACET_CLASS_FIELDS,
      expected: [...stats.countryCveCounts.values()].reduce((a, b) => a + b, 0),
      naive: { where: `cves <> '[]'`, args: [] },
    },
    {
      name: 'hostname substring',
      params: { hostname: `${word}-` },
      expected: wordCount,
      naive: { where: `hostname LIKE ?`, args: [`%${word}-%`] },
    },
  ];
}

/** A filter whose result is closest to `size` records, for the cursor walk. */
export function pickWalk(stats: DatasetStats, size: number): { params: Record<string, string>; expected: number } {
  const candidates: Array<{ params: Record<string, string>; expected: number }> = [
    ...[...stats.countryCveCounts].map(([country, n]) => ({
      params: { contains_cve: 'true', country_code: country },
      expected: n,
    })),
    ...[...stats.vendorCounts].map(([vendor, n]) => ({ params: { vendor }, expected: n })),
    ...[...stats.hostnameWordCounts].map(([word, n]) => ({ params: { hostname: `${word}-` }, expected: n })),
  ];
  return candidates.reduce((a, b) => (Math.abs(b.expected - size) < Math.abs(a.expected - size) ? b : a));
}
