import fs from 'node:fs';
import { once } from 'node:events';
import { SeededRandom } from '../src/ingest/demo/random.js';
import { Zipf } from './zipf.js';

/**
 * The synthetic reference dataset: deterministic for a seed, with realistic skew — ~60k ASNs of
 * Zipf sizes with IPs clustered in per-ASN blocks, ~40 countries, ports Zipf over ~200 values,
 * ~3,000 vendor:product pairs with 1–40 versions, ~40,000 CVEs attached per (product, version) so
 * popular products carry popular CVEs, ~30% of records with CVEs, ~1% classified, half with
 * hostnames, timestamps spread over the last 30 days. Written as Vulnscope observation NDJSON.
 */

const ASN_COUNT = 60_000;
const PRODUCT_COUNT = 3000;
const CVE_COUNT = 40_000;
const HEAD_PORTS = [
  80, 443, 22, 8080, 21, 25, 3389, 8443, 53, 110, 143, 3306, 5432, 6379, 445, 993, 995, 587, 8000, 8888,
];
const COUNTRIES = [
  'US',
  'CN',
  'DE',
  'GB',
  'FR',
  'JP',
  'NL',
  'RU',
  'BR',
  'IN',
  'KR',
  'CA',
  'SG',
  'IT',
  'AU',
  'ES',
  'SE',
  'PL',
  'HK',
  'TW',
  'VN',
  'ID',
  'UA',
  'TR',
  'MX',
  'CH',
  'FI',
  'IR',
  'AR',
  'ZA',
  'TH',
  'RO',
  'CZ',
  'AT',
  'BE',
  'NO',
  'DK',
  'IE',
  'IL',
  'CL',
];
const VENDORS = [
  'apache',
  'microsoft',
  'f5',
  'openbsd',
  'oracle',
  'cisco',
  'fortinet',
  'ibm',
  'google',
  'redhat',
  'vmware',
  'citrix',
  'juniper',
  'paloaltonetworks',
  'atlassian',
  'jenkins',
  'gitlab',
  'elastic',
  'postgresql',
  'mysql',
  'redis',
  'mongodb',
  'isc',
  'exim',
  'proftpd',
  'openssl',
  'php',
  'python',
  'nodejs',
  'zyxel',
  'netgear',
  'tp-link',
  'd-link',
  'hikvision',
  'dahua',
  'synology',
  'qnap',
  'ubiquiti',
  'mikrotik',
  'sonicwall',
];
const HOST_WORDS = [
  'www',
  'mail',
  'vpn',
  'api',
  'dev',
  'shop',
  'portal',
  'remote',
  'git',
  'cdn',
  'app',
  'admin',
  'smtp',
  'ns1',
  'ftp',
];
const CLASSIFICATIONS = [
  'c2:cobalt_strike',
  'c2:sliver',
  'c2:mythic',
  'proxy:tor',
  'scanner',
  'honeypot:cowrie',
  'attack-infrastructure:interactsh',
  'cdn',
];

export interface DatasetStats {
  records: number;
  cveCounts: Map<string, number>;
  blockCounts24: Map<number, number>;
  blockCounts16: Map<number, number>;
  asnPortCounts: Map<string, number>;
  countryCveCounts: Map<string, number>;
  sampleIp: string;
  vendorCounts: Map<string, number>;
  vpvCounts: Map<string, number>;
  hostnameWordCounts: Map<string, number>;
  c2: number;
  oldestMs: number;
  newestMs: number;
}

interface Product {
  vendor: string;
  product: string;
  versions: string[];
  /** CVEs per version index (empty = not vulnerable). */
  cves: string[][];
}

export interface DatasetModel {
  products: Product[];
  productZipf: Zipf;
  asnZipf: Zipf;
  portZipf: Zipf;
  ports: number[];
  asnRegions: Float64Array;
  asnSizes: Float64Array;
  asnCountries: string[];
}

export function buildModel(records: number, seed: number): DatasetModel {
  const random = new SeededRandom(seed);
  const productZipf = new Zipf(PRODUCT_COUNT, 1.0);
  const products: Product[] = [];
  const cvePool = new Zipf(CVE_COUNT, 0.8);
  for (let i = 0; i < PRODUCT_COUNT; i++) {
    const vendor = i === 0 || i % 11 === 3 ? 'apache' : VENDORS[(i * 7 + 3) % VENDORS.length]!;
    const product = i === 0 ? 'http_server' : `${vendor === 'apache' ? 'module' : 'product'}_${i}`;
    const versionCount = 1 + ((i * 13 + 5) % 40);
    const major = 1 + (i % 9);
    const versions = Array.from(
      { length: versionCount },
      (_, v) => `${major}.${Math.floor(v / 10)}.${v % 10}${i % 17 === 0 ? 'p1' : ''}`,
    );
    const cves = versions.map(() => {
      if (!random.chance(0.3)) return [];
      const k = 1 + Math.floor(random.next() * 6);
      // Popular products draw popular CVEs: offset the pool rank by product rank.
      return Array.from({ length: k }, () => {
        const rank = (cvePool.sample(random) + i * 13) % CVE_COUNT;
        return `CVE-${2015 + (rank % 10)}-${String(10000 + rank).padStart(5, '0')}`;
      });
    });
    products.push({ vendor, product, versions, cves });
  }
  const ports = [...HEAD_PORTS];
  for (let p = 1024; ports.length < 200; p += 37) if (!ports.includes(p)) ports.push(p);
  const asnZipf = new Zipf(ASN_COUNT, 1.05);
  const asnRegions = new Float64Array(ASN_COUNT);
  const asnSizes = new Float64Array(ASN_COUNT);
  const asnCountries: string[] = [];
  const countryZipf = new Zipf(COUNTRIES.length, 1.1);
  let next = 0x01000000; // 1.0.0.0
  for (let a = 0; a < ASN_COUNT; a++) {
    const expected = Math.max(1, asnZipf.share(a) * records);
    // Twice as many addresses as expected records, rounded to a power of two (a CIDR block).
    const size = Math.max(256, 2 ** Math.ceil(Math.log2(expected * 2)));
    next = Math.ceil(next / size) * size;
    asnRegions[a] = next;
    asnSizes[a] = size;
    next += size;
    asnCountries.push(COUNTRIES[countryZipf.sample(random)]!);
  }
  return {
    products,
    productZipf,
    asnZipf,
    portZipf: new Zipf(ports.length, 1.2),
    ports,
    asnRegions,
    asnSizes,
    asnCountries,
  };
}

const ipv4 = (n: number) => `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Streams `records` observations to `file`; returns what the harness needs to pick queries. */
export async function writeDataset(
  file: string,
  records: number,
  options: { seed?: number; now: number },
): Promise<DatasetStats> {
  const seed = options.seed ?? 42;
  const model = buildModel(records, seed);
  const random = new SeededRandom(seed + 1);
  const out = fs.createWriteStream(file);
  const asnCounters = new Float64Array(ASN_COUNT);
  const stats: DatasetStats = {
    records,
    cveCounts: new Map(),
    blockCounts24: new Map(),
    blockCounts16: new Map(),
    asnPortCounts: new Map(),
    countryCveCounts: new Map(),
    sampleIp: '',
    vendorCounts: new Map(),
    vpvCounts: new Map(),
    hostnameWordCounts: new Map(),
    c2: 0,
    oldestMs: Infinity,
    newestMs: -Infinity,
  };
  const windowMs = 30 * 86_400_000;
  let buffer = '';
  for (let i = 0; i < records; i++) {
    const asn = model.asnZipf.sample(random);
    const counter = asnCounters[asn]!++;
    const size = model.asnSizes[asn]!;
    // An odd stride walks the whole block before an address repeats.
    const ipNumber = model.asnRegions[asn]! + ((counter * 2654435761) % size);
    const ip = ipv4(ipNumber);
    const port = model.ports[model.portZipf.sample(random)]!;
    const p = model.products[model.productZipf.sample(random)]!;
    const versionIndex = Math.min(p.versions.length - 1, Math.floor(random.next() ** 2 * p.versions.length));
    const version = p.versions[versionIndex]!;
    const cves = p.cves[versionIndex]!;
    const timestamp = options.now - Math.floor(random.next() * windowMs);
    const fingerprints: Array<Record<string, string>> = [
      {
        vendor: p.vendor,
        product: p.product,
        version,
        cpe: `cpe:2.3:a:${p.vendor}:${p.product}:${version}:*:*:*:*:*:*:*`,
      },
    ];
    if (p.vendor === 'apache' && random.chance(0.3)) {
      fingerprints.push({
        vendor: 'openssl',
        product: 'openssl',
        version: '1.1.1k',
        cpe: 'cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*',
      });
    }
    const country = model.asnCountries[asn]!;
    const hostWord = random.chance(0.5) ? HOST_WORDS[random.int(0, HOST_WORDS.length - 1)]! : undefined;
    const classification = random.chance(0.01)
      ? CLASSIFICATIONS[random.int(0, CLASSIFICATIONS.length - 1)]!
      : undefined;
    const line = {
      ip,
      port,
      protocol: random.chance(0.95) ? 'tcp' : 'udp',
      ...(hostWord ? { hostname: `${hostWord}-${counter}.as${asn + 1000}.example` } : {}),
      timestamp: new Date(timestamp).toISOString(),
      fingerprints,
      cves,
      asn: `AS${asn + 1000}`,
      as_name: `Synthetic Network ${asn + 1000}`,
      country_code: country,
      ...(classification ? { classifications: [classification] } : {}),
    };
    buffer += `${JSON.stringify(line)}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
    for (const cve of cves) bump(stats.cveCounts, cve);
    bump(stats.blockCounts24, ipNumber >>> 8);
    bump(stats.blockCounts16, ipNumber >>> 16);
    bump(stats.asnPortCounts, `AS${asn + 1000}|${port}`);
    if (cves.length) bump(stats.countryCveCounts, country);
    bump(stats.vendorCounts, p.vendor);
    bump(stats.vpvCounts, `${p.vendor}|${p.product}|${version}`);
    if (hostWord) bump(stats.hostnameWordCounts, hostWord);
    if (classification?.startsWith('c2')) stats.c2++;
    if (i === Math.floor(records / 2)) stats.sampleIp = ip;
    stats.oldestMs = Math.min(stats.oldestMs, timestamp);
    stats.newestMs = Math.max(stats.newestMs, timestamp);
  }
  out.end(buffer);
  await once(out, 'finish');
  return stats;
}
