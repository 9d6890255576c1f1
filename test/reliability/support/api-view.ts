import type { HostRecord } from '../../../src/core/host-record.js';

/** What identifies a record on the API and in storage alike: key, time, CPEs and CVEs. */
export function recordLine(record: {
  ip: string;
  port: number;
  protocol: string;
  timestamp: string;
  cpe: string[];
  cve: string[] | null;
}): string {
  return [
    record.ip,
    record.port,
    record.protocol,
    record.timestamp,
    record.cpe.join(' '),
    (record.cve ?? []).join(' '),
  ].join('|');
}

export function storedLine(record: HostRecord): string {
  return recordLine({
    ip: record.ip,
    port: record.port,
    protocol: record.protocol,
    timestamp: new Date(record.observedAt).toISOString(),
    cpe: record.fingerprints.map((f) => f.cpe).filter((cpe): cpe is string => Boolean(cpe)),
    cve: record.cves.length ? record.cves : null,
  });
}

const cpePart = (cpe: string | undefined, index: number) => cpe?.split(':')[index];

/** One query per filter class, with the same filter evaluated directly over stored records. */
export const FILTER_CLASSES: Array<{ query: string; matches: (record: HostRecord) => boolean }> = [
  { query: 'port=443', matches: (r) => r.port === 443 },
  { query: 'protocol=udp', matches: (r) => r.protocol === 'udp' },
  { query: 'country_code=US', matches: (r) => r.countryCode === 'US' },
  { query: 'asn=AS64500', matches: (r) => r.asn === 'AS64500' },
  { query: 'cve=CVE-2024-1001', matches: (r) => r.cves.includes('CVE-2024-1001') },
  { query: 'contains_cve=true', matches: (r) => r.cves.length > 0 },
  { query: 'vendor=apache', matches: (r) => r.fingerprints.some((f) => cpePart(f.cpe, 3) === 'apache') },
  {
    query: 'product=openssh&version=9.6',
    matches: (r) => r.fingerprints.some((f) => cpePart(f.cpe, 4) === 'openssh' && cpePart(f.cpe, 5) === '9.6'),
  },
  { query: 'classifications=c2', matches: (r) => r.classifications.some((c) => c === 'c2' || c.startsWith('c2:')) },
  { query: 'cidr=198.18.0.0/24', matches: (r) => r.ip.startsWith('198.18.0.') },
  {
    query: 'port=22&country_code=DE&contains_cve=true',
    matches: (r) => r.port === 22 && r.countryCode === 'DE' && r.cves.length > 0,
  },
];

type Get = (url: string) => Promise<{ status: number; body: any }>;

/** Every record the API serves, by a cursor walk of 2,000 a page. */
export async function walkApi(get: Get): Promise<string[]> {
  const lines: string[] = [];
  let url = '/v3/index/target-intel?start_cursor=true&limit=2000';
  for (;;) {
    const page = await get(url);
    if (page.status !== 200) throw new Error(`cursor walk: ${page.status} ${JSON.stringify(page.body)}`);
    for (const record of page.body.data) lines.push(recordLine(record));
    const next = page.body._meta.next_cursor;
    if (!next || page.body.data.length === 0) return lines;
    url = `/v3/index/target-intel?cursor=${encodeURIComponent(next)}`;
  }
}

/** Differences between the API and storage: the walk, then each filter class's total. */
export async function indexDifferences(get: Get, records: HostRecord[]): Promise<string[]> {
  const differences: string[] = [];
  const served = (await walkApi(get)).sort();
  const stored = records.map(storedLine).sort();
  if (served.join('\n') !== stored.join('\n')) {
    const servedSet = new Set(served);
    const storedSet = new Set(stored);
    const missing = stored.filter((line) => !servedSet.has(line));
    const extra = served.filter((line) => !storedSet.has(line));
    differences.push(
      `walk: ${served.length} served, ${stored.length} stored; missing ${missing.slice(0, 3).join(', ')}; extra ${extra.slice(0, 3).join(', ')}`,
    );
  }
  for (const filter of FILTER_CLASSES) {
    const answer = await get(`/v3/index/target-intel?${filter.query}&limit=1`);
    const expected = records.filter(filter.matches).length;
    if (answer.status !== 200 || answer.body._meta.total_documents !== expected) {
      differences.push(
        `${filter.query}: API ${answer.status} ${answer.body?._meta?.total_documents}, storage ${expected}`,
      );
    }
  }
  return differences;
}
