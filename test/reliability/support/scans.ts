import { seededRandom } from './figures.js';

const PRODUCTS = [
  ['apache', 'http_server', ['2.4.49', '2.4.50', '2.4.58']],
  ['nginx', 'nginx', ['1.18.0', '1.25.3']],
  ['openbsd', 'openssh', ['8.9', '9.6']],
  ['microsoft', 'iis', ['10.0']],
  ['postgresql', 'postgresql', ['14.2', '16.1']],
] as const;
const COUNTRIES = [
  ['US', 'United States'],
  ['DE', 'Germany'],
  ['JP', 'Japan'],
  ['BR', 'Brazil'],
] as const;
const PORTS = [22, 80, 443, 5432, 8080, 8443];
const CLASSIFICATIONS = ['c2', 'honeypot', 'proxy:tor'];

export interface ScanLine {
  ip: string;
  port: number;
  protocol: 'tcp' | 'udp';
  timestamp: number;
  fingerprints: Array<{ cpe: string }>;
  cves: string[];
  classifications: string[];
  asn: string;
  country: string;
  country_code: string;
  hostnames: string[];
}

/**
 * `count` observations in Vulnscope NDJSON from a seeded generator: repeated keys (so upserts and
 * supersession happen), skewed products, CVEs, countries, ASNs and classifications, all in
 * documentation or benchmarking ranges. The same seed gives the same lines.
 */
export function scanLines(seed: number, count: number, now = Date.now()): ScanLine[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * random() * items.length)]!;
  const hosts = Math.max(1, Math.floor(count / 3));
  const lines: ScanLine[] = [];
  for (let i = 0; i < count; i++) {
    const host = Math.floor(random() * hosts);
    const [vendor, product, versions] = pick(PRODUCTS);
    const version = pick(versions);
    const [code, country] = pick(COUNTRIES);
    lines.push({
      ip: `198.18.${(host >> 8) & 0xff}.${host & 0xff}`,
      port: pick(PORTS),
      protocol: random() < 0.9 ? 'tcp' : 'udp',
      // Within the last day, so no retention window drops them; in input order, so reruns agree.
      timestamp: now - 86_400_000 + i * 1000,
      fingerprints: [{ cpe: `cpe:2.3:a:${vendor}:${product}:${version}:*:*:*:*:*:*:*` }],
      cves: random() < 0.4 ? [`CVE-2024-${String(1000 + Math.floor(random() * 40)).padStart(4, '0')}`] : [],
      classifications: random() < 0.05 ? [pick(CLASSIFICATIONS)] : [],
      asn: `AS${64500 + Math.floor(random() * 8)}`,
      country,
      country_code: code,
      hostnames: random() < 0.3 ? [`h${host}.example.com`] : [],
    });
  }
  return lines;
}

export const toNdjson = (lines: ScanLine[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;

/** The observation a scan line becomes (what the NDJSON reader would produce), for in-process ingests. */
export function asObservation(line: ScanLine) {
  const { country_code: countryCode, ...rest } = line;
  return { ...rest, countryCode };
}
