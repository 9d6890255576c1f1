import { SeededRandom } from '../src/ingest/demo/random.js';
import type { AdvisoryRecord } from '../src/ingest/advisories/types.js';
import { Zipf } from './zipf.js';

/**
 * The synthetic advisory feed of the advisory benchmark: deterministic for a seed (and `now`),
 * CVE-record shaped (CVE JSON 5) with realistic skew — ~3,000 vendor:product pairs drawn Zipf (a
 * few products carry most advisories), 5–40 versions per product in semver or vendor styles
 * (`1.2.3.4`, `1.0.2k`, `7.4p1`), `affected[].versions` as lessThan / lessThanOrEqual ranges, exact
 * versions and ranges with `changes`, CPEs in `affected[].cpes`, ~15% package products (npm, PyPI,
 * Go) with `collectionURL` + `packageName` and often a `packageURL`, 1–6 references tagged
 * patch / vendor-advisory / exploit / …, descriptions in English (some also es or ja), and
 * `dateUpdated` spread over the 3 years before `now`. Some records name a second product.
 */

const PRODUCT_COUNT = 3000;
const DAY = 86_400_000;
const SPAN_MS = 3 * 365 * DAY;
const KNOWN_VENDORS = [
  'microsoft',
  'apache',
  'oracle',
  'cisco',
  'google',
  'ibm',
  'redhat',
  'linux',
  'adobe',
  'apple',
  'fortinet',
  'vmware',
  'citrix',
  'juniper',
  'paloaltonetworks',
  'atlassian',
  'jenkins',
  'gitlab',
  'elastic',
  'wordpress',
  'php',
  'python',
  'nodejs',
  'openssl',
  'mozilla',
  'qualcomm',
  'samsung',
  'huawei',
  'siemens',
  'schneider-electric',
  'zyxel',
  'netgear',
  'tp-link',
  'd-link',
  'hikvision',
  'synology',
  'qnap',
  'sonicwall',
  'f5',
  'sap',
];
const WORDS = [
  'server',
  'gateway',
  'manager',
  'portal',
  'agent',
  'studio',
  'connect',
  'cloud',
  'router',
  'firewall',
  'suite',
  'engine',
  'framework',
  'plugin',
  'client',
  'console',
  'proxy',
  'director',
  'analytics',
  'core',
];
const WEAKNESSES = [
  ['CWE-79', 'cross-site scripting (XSS)'],
  ['CWE-89', 'SQL injection'],
  ['CWE-787', 'out-of-bounds write'],
  ['CWE-20', 'improper input validation'],
  ['CWE-22', 'path traversal'],
  ['CWE-78', 'OS command injection'],
  ['CWE-416', 'use-after-free'],
  ['CWE-352', 'cross-site request forgery (CSRF)'],
  ['CWE-287', 'improper authentication'],
  ['CWE-502', 'deserialization of untrusted data'],
  ['CWE-918', 'server-side request forgery (SSRF)'],
  ['CWE-400', 'uncontrolled resource consumption'],
] as const;
const IMPACTS = [
  'execute arbitrary code',
  'read arbitrary files',
  'cause a denial of service',
  'escalate privileges',
  'bypass authentication',
  'inject arbitrary web script or HTML',
];
const ES =
  'Una vulnerabilidad en el producto permite a un atacante remoto ejecutar código arbitrario mediante una solicitud manipulada.';
const JA = '細工されたリクエストにより、リモートの攻撃者が任意のコードを実行できる脆弱性が存在します。';
/** Reference tags and the share of records carrying each. */
const TAGS: Array<[string, number]> = [
  ['vendor-advisory', 0.6],
  ['patch', 0.4],
  ['third-party-advisory', 0.3],
  ['exploit', 0.125],
  ['mitigation', 0.08],
  ['technical-description', 0.05],
  ['issue-tracking', 0.15],
];
const REGISTRIES = {
  npm: 'https://registry.npmjs.org',
  pypi: 'https://pypi.org',
  golang: 'https://pkg.go.dev',
} as const;
type Ecosystem = keyof typeof REGISTRIES;

type VersionStyle = 'semver' | 'four-part' | 'letter' | 'patchlevel';

export interface AdvisoryProduct {
  vendor: string;
  product: string;
  style: VersionStyle;
  /** Ascending in the product's own scheme. */
  versions: string[];
  package?: { ecosystem: Ecosystem; name: string; purl: boolean };
}

export interface AdvisoryStats {
  records: number;
  now: number;
  products: AdvisoryProduct[];
  /** Records per vendor / per `vendor:product` / per package name / per tag / per description language. */
  vendorCounts: Map<string, number>;
  productCounts: Map<string, number>;
  packageCounts: Map<string, number>;
  tagCounts: Map<string, number>;
  langCounts: Map<string, number>;
  /** How many records were updated within the last 30 days of `now`. */
  updatedLast30d: number;
  /** A CVE id from the middle of the feed. */
  sampleCveId: string;
  /** Index of each product in {@link products}, by `vendor:product`. */
  productIndex: Map<string, number>;
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function versionList(random: SeededRandom, style: VersionStyle, count: number): string[] {
  let major = random.int(0, 12);
  let minor = random.int(0, 9);
  let patch = random.int(0, 5);
  let build = random.int(100, 2000);
  let level = random.int(1, 3);
  const versions: string[] = [];
  for (let i = 0; i < count; i++) {
    switch (style) {
      case 'semver':
        versions.push(`${major}.${minor}.${patch}`);
        break;
      case 'four-part':
        versions.push(`${major}.${minor}.${patch}.${build}`);
        break;
      case 'letter':
        // OpenSSL style: 1.0.2, 1.0.2a … 1.0.2y, then 1.0.3.
        versions.push(`${major}.${minor}.${patch}${level === 0 ? '' : String.fromCharCode(96 + level)}`);
        break;
      case 'patchlevel':
        versions.push(`${major}.${minor}p${level}`);
        break;
    }
    const step = random.next();
    if (style === 'letter') {
      if (level < 25 && step < 0.85) level += 1;
      else [patch, level] = [patch + 1, 0];
    } else if (style === 'patchlevel') {
      if (step < 0.7) level += 1;
      else [minor, level] = [minor + 1, 1];
    } else if (step < 0.7) {
      patch += random.int(1, 3);
      build += random.int(1, 400);
    } else if (step < 0.95) {
      [minor, patch] = [minor + 1, 0];
      build += random.int(500, 3000);
    } else {
      [major, minor, patch] = [major + 1, 0, 0];
      build += random.int(1000, 5000);
    }
  }
  return versions;
}

export function buildProducts(seed: number): AdvisoryProduct[] {
  const random = new SeededRandom(seed);
  const vendors = [...KNOWN_VENDORS];
  for (let i = vendors.length; i < 700; i++) vendors.push(`vendor${i}`);
  const vendorZipf = new Zipf(vendors.length, 0.9);
  const products: AdvisoryProduct[] = [];
  const taken = new Set<string>();
  for (let i = 0; products.length < PRODUCT_COUNT; i++) {
    const count = random.int(5, 40);
    if (random.chance(0.15)) {
      const ecosystem = random.pick(['npm', 'npm', 'pypi', 'golang'] as const);
      const org = `org${random.int(1, 400)}`;
      const base = `${random.pick(WORDS)}-${random.pick(WORDS)}${i}`;
      const name =
        ecosystem === 'golang'
          ? `github.com/${org}/${base}`
          : ecosystem === 'npm' && random.chance(0.3)
            ? `@${org}/${base}`
            : base;
      const product = name;
      if (taken.has(`${org}:${product}`)) continue;
      taken.add(`${org}:${product}`);
      products.push({
        vendor: org,
        product,
        style: 'semver',
        versions: versionList(random, 'semver', count),
        package: { ecosystem, name, purl: random.chance(0.6) },
      });
      continue;
    }
    const vendor = vendors[vendorZipf.sample(random)]!;
    const product = `${random.pick(WORDS)}_${random.pick(WORDS)}${i % 7 === 0 ? '' : `_${i}`}`;
    if (taken.has(`${vendor}:${product}`)) continue;
    taken.add(`${vendor}:${product}`);
    const style = random.weighted<VersionStyle>([
      ['semver', 0.55],
      ['four-part', 0.25],
      ['letter', 0.1],
      ['patchlevel', 0.1],
    ]);
    products.push({ vendor, product, style, versions: versionList(random, style, count) });
  }
  return products;
}

const versionType = (product: AdvisoryProduct) => (product.style === 'semver' ? 'semver' : 'custom');
const cpeValue = (value: string) => value.toLowerCase().replace(/[^a-z0-9_.-]/g, (c) => `\\${c}`);

function affectedVersions(random: SeededRandom, product: AdvisoryProduct): Array<Record<string, unknown>> {
  const vs = product.versions;
  const type = versionType(product);
  const end = random.int(1, vs.length - 1);
  const shape = random.next();
  if (shape < 0.45) return [{ version: '0', lessThan: vs[end]!, status: 'affected', versionType: type }];
  if (shape < 0.7) {
    const start = random.int(0, end - 1);
    return [{ version: vs[start]!, lessThanOrEqual: vs[end - 1]!, status: 'affected', versionType: type }];
  }
  if (shape < 0.85 && end >= 3) {
    // One range over two release lines: fixed in the older line, still affected above.
    const fixed = random.int(1, end - 2);
    return [
      {
        version: vs[0]!,
        lessThan: vs[end]!,
        status: 'affected',
        versionType: type,
        changes: [
          { at: vs[fixed]!, status: 'unaffected' },
          { at: vs[fixed + 1]!, status: 'affected' },
        ],
      },
    ];
  }
  // A few exact versions.
  const picked = new Set<string>();
  for (let k = random.int(1, 3); k > 0; k--) picked.add(vs[random.int(0, vs.length - 1)]!);
  return [...picked].map((version) => ({ version, status: 'affected' }));
}

function affectedEntry(random: SeededRandom, product: AdvisoryProduct): Record<string, unknown> {
  const entry: Record<string, unknown> = { vendor: product.vendor, product: product.product };
  if (product.package) {
    entry.collectionURL = REGISTRIES[product.package.ecosystem];
    entry.packageName = product.package.name;
    if (product.package.purl)
      entry.packageURL = `pkg:${product.package.ecosystem}/${product.package.name.replace('@', '%40')}`;
  } else if (random.chance(0.85)) {
    entry.cpes = [`cpe:2.3:a:${cpeValue(product.vendor)}:${cpeValue(product.product)}:*:*:*:*:*:*:*:*`];
  }
  if (random.chance(0.1)) entry.platforms = [random.pick(['Windows', 'Linux', 'MacOS', 'x86', 'ARM'])];
  entry.versions = affectedVersions(random, product);
  entry.defaultStatus = 'unaffected';
  return entry;
}

/** Yields the feed's `records` records; fills `stats` (what the harness needs to pick its queries) on the way. */
export function* generateAdvisories(
  records: number,
  options: { seed?: number; now: number },
  stats?: AdvisoryStats,
): Generator<AdvisoryRecord> {
  const seed = options.seed ?? 7;
  const products = stats?.products ?? buildProducts(seed);
  const productZipf = new Zipf(products.length, 1.0);
  const random = new SeededRandom(seed + 1);
  const perYear = new Map<number, number>();
  const iso = (ms: number) => new Date(ms).toISOString();
  for (let i = 0; i < records; i++) {
    const updated = options.now - Math.floor(random.next() * SPAN_MS);
    const published = updated - Math.floor(random.next() * random.next() * 4 * 365 * DAY);
    const year = new Date(published).getUTCFullYear();
    const seq = (perYear.get(year) ?? 999) + 1 + (random.chance(0.2) ? random.int(1, 30) : 0);
    perYear.set(year, seq);
    const cveId = `CVE-${year}-${String(seq).padStart(4, '0')}`;
    const main = products[productZipf.sample(random)]!;
    const affected = [affectedEntry(random, main)];
    if (random.chance(0.12)) {
      const other = products[productZipf.sample(random)]!;
      if (other !== main) affected.push(affectedEntry(random, other));
    }
    const [cwe, weakness] = random.pick(WEAKNESSES);
    const impact = random.pick(IMPACTS);
    const fixedIn = (
      affected[0]!.versions as Array<{ lessThan?: string; lessThanOrEqual?: string; version: string }>
    )[0]!;
    const descriptions: Array<Record<string, string>> = [
      {
        lang: random.chance(0.1) ? 'en-US' : 'en',
        value: `A ${weakness} vulnerability in ${main.vendor} ${main.product} ${fixedIn.lessThan ? `before ${fixedIn.lessThan}` : `through ${fixedIn.lessThanOrEqual ?? fixedIn.version}`} allows a remote attacker to ${impact} via a crafted request.`,
      },
    ];
    if (random.chance(0.04)) descriptions.push({ lang: 'es', value: ES });
    if (random.chance(0.03)) descriptions.push({ lang: 'ja', value: JA });
    const tagged = TAGS.filter(([, share]) => random.chance(share)).map(([tag]) => tag);
    const references: Array<Record<string, unknown>> = [];
    const refCount = Math.max(1, tagged.length, random.int(1, 4));
    for (let r = 0; r < refCount; r++) {
      const tag = tagged[r];
      const url =
        tag === 'exploit'
          ? `https://www.exploit-db.com/exploits/${40000 + ((i * 7 + r) % 20000)}`
          : tag === 'patch'
            ? `https://github.com/${main.vendor}/${main.product.replace(/[^a-z0-9_-]/gi, '-')}/commit/${((i * 2654435761) >>> 0).toString(16).padStart(8, '0')}`
            : `https://${main.vendor}.example.com/security/${cveId.toLowerCase()}${r > 0 ? `-${r}` : ''}`;
      references.push(tag ? { url, tags: [tag] } : { url });
    }
    const score = Math.round((2 + random.next() * 8) * 10) / 10;
    const record: AdvisoryRecord = {
      dataType: 'CVE_RECORD',
      dataVersion: '5.0',
      cveMetadata: {
        cveId,
        assignerOrgId: '8254265b-2729-46b6-b9e3-3dfca2d5bfca',
        assignerShortName: main.package ? 'GitHub_M' : 'mitre',
        state: 'PUBLISHED',
        dateReserved: iso(published - 30 * DAY),
        datePublished: iso(published),
        dateUpdated: iso(updated),
      },
      containers: {
        cna: {
          providerMetadata: {
            orgId: '8254265b-2729-46b6-b9e3-3dfca2d5bfca',
            shortName: main.package ? 'GitHub_M' : 'mitre',
            dateUpdated: iso(updated),
          },
          title: `${weakness} in ${main.product}`,
          descriptions,
          affected,
          problemTypes: [
            { descriptions: [{ type: 'CWE', cweId: cwe, lang: 'en', description: `${cwe}: ${weakness}` }] },
          ],
          metrics: [
            {
              cvssV3_1: {
                version: '3.1',
                baseScore: score,
                baseSeverity: score >= 9 ? 'CRITICAL' : score >= 7 ? 'HIGH' : score >= 4 ? 'MEDIUM' : 'LOW',
                vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
              },
            },
          ],
          references,
        },
      },
    };
    if (stats) {
      stats.records++;
      const vendors = new Set<string>();
      const pairs = new Set<string>();
      const packages = new Set<string>();
      for (const entry of affected) {
        vendors.add(String(entry.vendor));
        pairs.add(`${entry.vendor}:${entry.product}`);
        if (entry.packageName) packages.add(String(entry.packageName));
      }
      for (const v of vendors) bump(stats.vendorCounts, v);
      for (const p of pairs) bump(stats.productCounts, p);
      for (const p of packages) bump(stats.packageCounts, p);
      for (const t of tagged) bump(stats.tagCounts, t);
      for (const l of new Set(descriptions.map((d) => d.lang!.slice(0, 2)))) bump(stats.langCounts, l);
      if (updated > options.now - 30 * DAY) stats.updatedLast30d++;
      if (i === Math.floor(records / 2)) stats.sampleCveId = cveId;
    }
    yield record;
  }
}

export function emptyStats(now: number, seed = 7): AdvisoryStats {
  const products = buildProducts(seed);
  return {
    records: 0,
    now,
    products,
    vendorCounts: new Map(),
    productCounts: new Map(),
    packageCounts: new Map(),
    tagCounts: new Map(),
    langCounts: new Map(),
    updatedLast30d: 0,
    sampleCveId: '',
    productIndex: new Map(products.map((p, i) => [`${p.vendor}:${p.product}`, i])),
  };
}
