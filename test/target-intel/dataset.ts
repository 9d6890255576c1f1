/**
 * The hand-built target-intel dataset shared by the tests of this folder: 21 observations that
 * become 20 records (R1 is scanned twice). Every record has a label (R1…R21, no R13) so tests can
 * state exact expected sets. Times are fixed UTC instants around `NOW` (expiry is off in these
 * tests: startTestApp uses VULNSCOPE_RETENTION_DAYS=0 by default).
 */
import type { Observation } from '../../src/core/observation.js';
import type { TestApp } from '../support/app.js';

export const TI = '/v3/index/target-intel';

/** The fixed "now" of the dataset: every observation lies in the ten days before it. */
export const NOW = Date.parse('2025-06-11T00:00:00Z');
export const at = (iso: string) => Date.parse(iso);

export type Label =
  | 'R1'
  | 'R2'
  | 'R3'
  | 'R4'
  | 'R5'
  | 'R6'
  | 'R7'
  | 'R8'
  | 'R9'
  | 'R10'
  | 'R11'
  | 'R12'
  | 'R14'
  | 'R15'
  | 'R16'
  | 'R17'
  | 'R18'
  | 'R19'
  | 'R20'
  | 'R21';

type Obs = Partial<Observation> & { ip: string; port: number };

const cpe = (vendor: string, product: string, version: string, update = '*') =>
  `cpe:2.3:a:${vendor}:${product}:${version}:${update}:*:*:*:*:*:*`;

const APACHE_2449 = cpe('apache', 'http_server', '2.4.49');
const OPENSSL_111K = cpe('openssl', 'openssl', '1.1.1k');
const OPENSSH_89P1 = cpe('openbsd', 'openssh', '8.9', 'p1');

const us = { asn: 'AS64500', asName: 'Example Net', country: 'United States', countryCode: 'US' };
const de = { asn: 'AS64501', asName: 'Beispiel GmbH', country: 'Germany', countryCode: 'DE' };
const nl = { asn: 'AS64502', asName: 'Voorbeeld BV', country: 'Netherlands', countryCode: 'NL' };
const gb = { asn: 'AS64503', asName: 'Example UK', country: 'United Kingdom', countryCode: 'GB' };

/** Label → the observation(s) that produce it, in ingest order. */
export const DATASET: Array<[Label, Obs]> = [
  // Apache httpd 2.4.49 beside OpenSSL 1.1.1k; first seen on 06-01, re-scanned (same key) on 06-05.
  [
    'R1',
    {
      ip: '192.0.2.10',
      port: 443,
      hostnames: ['www.example.com'],
      timestamp: at('2025-06-01T10:00:00Z'),
      fingerprints: [{ cpe: APACHE_2449 }, { cpe: OPENSSL_111K }],
      cves: ['CVE-2021-41773'],
      ...us,
    },
  ],
  [
    'R2',
    {
      ip: '192.0.2.11',
      port: 80,
      hostnames: ['api.example.com'],
      timestamp: at('2025-06-02T08:00:00Z'),
      fingerprints: [{ cpe: cpe('f5', 'nginx', '1.25.3') }],
      ...us,
    },
  ],
  ['R18', { ip: '192.0.2.13', port: 8080, timestamp: at('2025-06-02T08:00:00Z') }],
  [
    'R19',
    {
      ip: '192.0.2.14',
      port: 443,
      timestamp: at('2025-06-02T08:00:00Z'),
      fingerprints: [{ cpe: 'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*' }],
    },
  ],
  [
    'R3',
    {
      ip: '192.0.2.12',
      port: 22,
      timestamp: at('2025-06-03T09:30:00Z'),
      fingerprints: [{ cpe: OPENSSH_89P1, banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3' }],
      cves: ['CVE-2023-38408'],
      ...us,
    },
  ],
  [
    'R21',
    {
      ip: '192.0.2.9',
      port: 443,
      hostnames: ['cdn.example.com'],
      timestamp: at('2025-06-03T12:00:00Z'),
      classifications: ['cdn'],
    },
  ],
  [
    'R4',
    {
      ip: '198.51.100.5',
      port: 8443,
      hostnames: ['badexample.com'],
      timestamp: at('2025-06-04T00:00:00Z'),
      fingerprints: [{ cpe: cpe('apache', 'http_server', '2.4.57') }, { cpe: cpe('openssl', 'openssl', '3.0.2') }],
      classifications: ['cdn:cloudflare'],
      ...de,
    },
  ],
  [
    'R5',
    {
      ip: '198.51.100.6',
      port: 443,
      hostnames: ['mail.corp.example.org'],
      timestamp: at('2025-06-04T23:59:59Z'),
      fingerprints: [{ vendor: 'Microsoft', product: 'Internet Information Services', version: '10.0' }],
      ...de,
    },
  ],
  [
    'R1',
    {
      ip: '192.0.2.10',
      port: 443,
      hostnames: ['www.example.com'],
      timestamp: at('2025-06-05T10:00:00Z'),
      fingerprints: [{ cpe: APACHE_2449 }, { cpe: OPENSSL_111K }],
      cves: ['CVE-2021-41773', 'CVE-2021-3711'],
      ...us,
    },
  ],
  [
    'R6',
    {
      ip: '203.0.113.7',
      port: 50050,
      timestamp: at('2025-06-06T12:00:00Z'),
      classifications: ['c2:cobalt_strike'],
      ...nl,
    },
  ],
  [
    'R7',
    {
      ip: '203.0.113.8',
      port: 443,
      timestamp: at('2025-06-06T13:00:00Z'),
      fingerprints: [{ cpe: cpe('f5', 'nginx', '1.18.0') }],
      cves: ['CVE-2021-23017'],
      classifications: ['c2'],
      ...nl,
    },
  ],
  [
    'R8',
    {
      ip: '203.0.113.9',
      port: 53,
      protocol: 'udp',
      timestamp: at('2025-06-07T00:00:00Z'),
      fingerprints: [{ cpe: cpe('isc', 'bind', '9.16.1') }],
      cves: ['CVE-2020-8625'],
      classifications: ['scanner'],
      ...nl,
    },
  ],
  [
    'R20',
    {
      ip: '203.0.113.9',
      port: 53,
      protocol: 'tcp',
      timestamp: at('2025-06-07T01:00:00Z'),
      fingerprints: [{ cpe: cpe('isc', 'bind', '9.16.1') }],
      ...nl,
    },
  ],
  [
    'R9',
    {
      ip: '2001:db8::10',
      port: 443,
      hostnames: ['v6.example.com'],
      timestamp: at('2025-06-08T06:00:00Z'),
      fingerprints: [{ cpe: APACHE_2449 }],
      cves: ['CVE-2021-41773'],
      ...us,
    },
  ],
  // Written non-canonically on purpose: the record's ip is the RFC 5952 form 2001:db8::11.
  [
    'R10',
    {
      ip: '2001:DB8:0:0::0011',
      port: 22,
      timestamp: at('2025-06-08T07:00:00Z'),
      fingerprints: [{ cpe: cpe('openbsd', 'openssh', '9.6', 'p1') }],
      classifications: ['honeypot:cowrie'],
    },
  ],
  [
    'R11',
    { ip: '2001:db8:1::5', port: 8080, hostnames: ['WWW.Upper.Example.NET'], timestamp: at('2025-06-09T10:00:00Z') },
  ],
  [
    'R12',
    {
      ip: '192.0.2.10',
      port: 22,
      hostnames: ['www.example.com'],
      timestamp: at('2025-06-09T11:00:00Z'),
      fingerprints: [{ cpe: OPENSSH_89P1 }],
      cves: ['CVE-2023-38408'],
      ...us,
    },
  ],
  [
    'R14',
    {
      ip: '10.1.2.3',
      port: 3306,
      timestamp: at('2025-06-10T00:00:00Z'),
      fingerprints: [{ cpe: cpe('oracle', 'mysql', '8.0.32') }],
      ...gb,
    },
  ],
  // A CPE 2.2 URI as input: stored as the CPE 2.3 formatted string.
  [
    'R15',
    {
      ip: '10.1.2.4',
      port: 443,
      timestamp: at('2025-06-10T05:00:00Z'),
      fingerprints: [{ cpe: 'cpe:/a:apache:http_server:2.4.49' }],
      cves: ['cve-2021-42013', 'CVE-2021-41773'],
    },
  ],
  [
    'R16',
    {
      ip: '10.1.2.5',
      port: 8080,
      hostnames: ['tomcat.internal'],
      timestamp: at('2025-06-10T06:00:00Z'),
      fingerprints: [{ cpe: cpe('apache', 'tomcat', '9.0.1') }],
    },
  ],
  [
    'R17',
    {
      ip: '10.1.2.6',
      port: 9000,
      timestamp: at('2025-06-10T07:00:00Z'),
      fingerprints: [{ vendor: 'Example Corp', product: 'Widget Server', version: '1.0 beta' }],
      classifications: ['proxy:squid'],
    },
  ],
];

export interface RecordId {
  ip: string;
  port: number;
  protocol: 'tcp' | 'udp';
}

/** Where each label lives (canonical ip). */
export const WHERE: Record<Label, RecordId> = {
  R1: { ip: '192.0.2.10', port: 443, protocol: 'tcp' },
  R2: { ip: '192.0.2.11', port: 80, protocol: 'tcp' },
  R3: { ip: '192.0.2.12', port: 22, protocol: 'tcp' },
  R4: { ip: '198.51.100.5', port: 8443, protocol: 'tcp' },
  R5: { ip: '198.51.100.6', port: 443, protocol: 'tcp' },
  R6: { ip: '203.0.113.7', port: 50050, protocol: 'tcp' },
  R7: { ip: '203.0.113.8', port: 443, protocol: 'tcp' },
  R8: { ip: '203.0.113.9', port: 53, protocol: 'udp' },
  R9: { ip: '2001:db8::10', port: 443, protocol: 'tcp' },
  R10: { ip: '2001:db8::11', port: 22, protocol: 'tcp' },
  R11: { ip: '2001:db8:1::5', port: 8080, protocol: 'tcp' },
  R12: { ip: '192.0.2.10', port: 22, protocol: 'tcp' },
  R14: { ip: '10.1.2.3', port: 3306, protocol: 'tcp' },
  R15: { ip: '10.1.2.4', port: 443, protocol: 'tcp' },
  R16: { ip: '10.1.2.5', port: 8080, protocol: 'tcp' },
  R17: { ip: '10.1.2.6', port: 9000, protocol: 'tcp' },
  R18: { ip: '192.0.2.13', port: 8080, protocol: 'tcp' },
  R19: { ip: '192.0.2.14', port: 443, protocol: 'tcp' },
  R20: { ip: '203.0.113.9', port: 53, protocol: 'tcp' },
  R21: { ip: '192.0.2.9', port: 443, protocol: 'tcp' },
};

export const ALL_LABELS = Object.keys(WHERE).sort(byLabel) as Label[];

const idKey = (r: { ip: string; port: number; protocol: string }) => `${r.ip} ${r.port}/${r.protocol}`;
const LABEL_BY_KEY = new Map(Object.entries(WHERE).map(([label, where]) => [idKey(where), label]));

/** The label of a served record (its `ip port/protocol`, when not one of the dataset's). */
export function labelOf(record: { ip: string; port: number; protocol: string }): string {
  return LABEL_BY_KEY.get(idKey(record)) ?? idKey(record);
}

/** Labels of a response's records, in response order. */
export function labelsInOrder(body: { data: Array<{ ip: string; port: number; protocol: string }> }): string[] {
  return body.data.map(labelOf);
}

export function byLabel(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1)) || a.localeCompare(b);
}

/** Labels of a response's records, sorted (for set comparison). */
export function labelSet(body: { data: Array<{ ip: string; port: number; protocol: string }> }): string[] {
  return labelsInOrder(body).sort(byLabel);
}

/**
 * Ingests the dataset as two scans: every observation but R1's re-scan, then that re-scan (so
 * R1's date_added is its first scan, 06-01, and its timestamp the re-scan, 06-05). Returns the
 * two ingest summaries added up.
 */
export async function loadDataset(t: TestApp) {
  const rescan = DATASET.map(([label]) => label).lastIndexOf('R1');
  const first = await t.ingest(DATASET.filter((_, i) => i !== rescan).map(([, obs]) => obs));
  const second = await t.ingest([DATASET[rescan]![1]]);
  const sum = { ...first };
  for (const key of ['read', 'inserted', 'updated', 'unchanged', 'superseded', 'expired', 'rejected'] as const) {
    sum[key] = first[key] + second[key];
  }
  return sum;
}

/** The database id of a labelled record. */
export async function idOf(t: TestApp, label: Label): Promise<number> {
  const where = WHERE[label];
  const row = await t.storage.db.get<{ id: number | string }>(
    `SELECT id FROM hosts WHERE ip = ? AND port = ? AND protocol = ?`,
    [where.ip, where.port, where.protocol],
  );
  if (!row) throw new Error(`no record for ${label}`);
  return Number(row.id);
}

/**
 * Sort keys of the dataset: timestamp (last observation) and date_added (first observation),
 * in ms, per label.
 */
export const TIMES: Record<Label, { timestamp: number; dateAdded: number }> = Object.fromEntries(
  ALL_LABELS.map((label) => {
    const times = DATASET.filter(([l]) => l === label).map(([, o]) => o.timestamp!);
    return [label, { timestamp: Math.max(...times), dateAdded: Math.min(...times) }];
  }),
) as Record<Label, { timestamp: number; dateAdded: number }>;
