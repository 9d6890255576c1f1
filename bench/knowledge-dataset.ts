import { SeededRandom } from '../src/ingest/demo/random.js';
import { Zipf } from './zipf.js';

/**
 * The synthetic vulnerability knowledge of the knowledge benchmark: deterministic for a seed, with
 * realistic skew, and streamed (nothing but the product model is held in memory).
 *
 * - Products: ~1 per 75 dictionary names (20,000 at 1.5M names), ranked by popularity. A fixed head
 *   of well-known products (linux_kernel, http_server with its real 1.3/2.0/2.2/2.4 version list,
 *   windows_10, chrome, openssh with `p1` updates, openssl letter versions, …), then synthetic ones:
 *   ~78% applications, ~8% firmware (part o) each paired with its device (part h), ~6% operating
 *   systems; vendors drawn Zipf (a few vendors own hundreds of products), ~0.5% renamed from a
 *   former vendor (their first names deprecated in favour of the new ones).
 * - Dictionary names (NVD CPE API 2.0 product objects) are shared out 20% evenly and 80% Zipf over
 *   the products, so popular products have thousands of names; each version gives one or a few
 *   names: update variants (`rc1`, `p1`…`p3`), target_sw variants (WordPress plugins,
 *   Node.js packages) or target_hw variants (x64, x86, arm64). Versions are semver, 4-part, OpenSSL
 *   letters, `7.4` + update, or plain majors.
 * - CVEs (NVD CVE API 2.0 `cve` objects) pick their product Zipf (popular products carry most
 *   CVEs): mostly one OR node of 1–5 cpeMatch (version ranges in every NVD form, exact versions,
 *   ANY, sometimes a sibling product of the same vendor); firmware CVEs and ~5% of the others are
 *   AND configurations with a platform node (the device, or an OS; vulnerable:false), ~10% in all; ~3% are
 *   awaiting analysis (no configurations) and ~1% rejected.
 * - Fingerprint contexts (what scans present to the matcher) pick applications and firmware and
 *   their versions Zipf over the same model, some without version, some unknown to knowledge,
 *   ~40% with an OS CPE (Zipf over 40 operating systems).
 */

export type Part = 'a' | 'o' | 'h';
type VersionStyle = 'semver' | 'four-part' | 'letter' | 'two-part' | 'major' | 'hardware' | 'fixed';
/** How a version turns into dictionary names. */
type VariantProfile = 'none' | 'plain' | 'updates' | 'targets' | 'arch';

export interface KnowledgeProduct {
  /** Popularity rank. */
  index: number;
  part: Part;
  vendor: string;
  product: string;
  title: string;
  style: VersionStyle;
  profile: VariantProfile;
  /** Ascending; every one has at least one dictionary name. */
  versions: string[];
  /** Dictionary names of the product (the former vendor's deprecated ones included). */
  nameCount: number;
  /** target_sw values ('targets' profile): every name carries one. */
  targets?: string[];
  /** Firmware ↔ device. */
  pair?: number;
  /** Renamed: names under this vendor were deprecated in favour of this product's. */
  formerVendor?: string;
  formerNames?: number;
}

export interface KnowledgeModel {
  seed: number;
  names: number;
  products: KnowledgeProduct[];
  /** Products CVEs are written for (part a and o), in rank order, and their Zipf. */
  cveProducts: number[];
  cveZipf: Zipf;
  /** Operating systems used as platforms of AND configurations and as host OS CPEs. */
  platforms: number[];
  byVendor: Map<string, number[]>;
}

export interface KnowledgeStats {
  cves: number;
  withConfigurations: number;
  rejected: number;
  andConfigurations: number;
  cpeMatch: number;
  ranges: number;
  exact: number;
  any: number;
  platformCriteria: number;
  /** CVEs per product index. */
  cvesPerProduct: Int32Array;
}

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
  'forms',
  'backup',
  'commerce',
  'mail',
  'media',
  'monitor',
  'vault',
  'bridge',
  'builder',
  'desk',
];
const KNOWN_VENDORS = [
  'microsoft',
  'apache',
  'oracle',
  'cisco',
  'google',
  'ibm',
  'redhat',
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
  'intel',
  'dell',
  'hp',
  'lenovo',
  'canonical',
];
const TARGET_SW = ['wordpress', 'node.js', 'android', 'iphone_os', 'jenkins', 'python'];
const ARCH = ['x64', 'x86', 'arm64'];
const PRE_RELEASE = ['rc1', 'beta', 'rc2', 'alpha'];
const IMPACTS = [
  'execute arbitrary code',
  'read arbitrary files',
  'cause a denial of service',
  'escalate privileges',
  'bypass authentication',
  'inject arbitrary web script or HTML',
];
const WEAKNESSES = [
  'CWE-79',
  'CWE-89',
  'CWE-787',
  'CWE-20',
  'CWE-22',
  'CWE-78',
  'CWE-416',
  'CWE-352',
  'CWE-287',
  'CWE-502',
  'CWE-918',
  'CWE-400',
];
const CVSS: Array<[string, number, string, number, number]> = [
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 'CRITICAL', 3.9, 5.9],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1, 'MEDIUM', 2.8, 2.7],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', 7.5, 'HIGH', 3.9, 3.6],
  ['CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.8, 'HIGH', 1.8, 5.9],
  ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N', 6.5, 'MEDIUM', 2.8, 3.6],
];
const DAY = 86_400_000;
const FIRST_PUBLISHED = Date.UTC(2002, 0, 1);

/**
 * The head of the ranking: well-known products. The rank orders dictionary names and scan
 * popularity; `cveRank` moves a product down the CVE ranking (http_server is everywhere in scans
 * but has a few hundred CVEs, not thousands).
 */
const HEAD: Array<{
  part: Part;
  vendor: string;
  product: string;
  title: string;
  style: VersionStyle;
  profile: VariantProfile;
  cveRank?: number;
}> = [
  { part: 'o', vendor: 'linux', product: 'linux_kernel', title: 'Linux Kernel', style: 'semver', profile: 'arch' },
  {
    part: 'a',
    vendor: 'apache',
    product: 'http_server',
    title: 'Apache HTTP Server',
    style: 'fixed',
    profile: 'none',
    cveRank: 100,
  },
  {
    part: 'o',
    vendor: 'microsoft',
    product: 'windows_10',
    title: 'Microsoft Windows 10',
    style: 'four-part',
    profile: 'arch',
  },
  { part: 'a', vendor: 'google', product: 'chrome', title: 'Google Chrome', style: 'four-part', profile: 'plain' },
  { part: 'a', vendor: 'mozilla', product: 'firefox', title: 'Mozilla Firefox', style: 'semver', profile: 'plain' },
  { part: 'a', vendor: 'oracle', product: 'mysql', title: 'Oracle MySQL', style: 'semver', profile: 'plain' },
  {
    part: 'a',
    vendor: 'openbsd',
    product: 'openssh',
    title: 'OpenBSD OpenSSH',
    style: 'two-part',
    profile: 'updates',
    cveRank: 200,
  },
  {
    part: 'a',
    vendor: 'openssl',
    product: 'openssl',
    title: 'OpenSSL',
    style: 'letter',
    profile: 'plain',
    cveRank: 80,
  },
  { part: 'a', vendor: 'php', product: 'php', title: 'PHP', style: 'semver', profile: 'plain' },
  {
    part: 'o',
    vendor: 'microsoft',
    product: 'windows_server_2019',
    title: 'Microsoft Windows Server 2019',
    style: 'four-part',
    profile: 'arch',
  },
  { part: 'o', vendor: 'debian', product: 'debian_linux', title: 'Debian Linux', style: 'two-part', profile: 'plain' },
  {
    part: 'a',
    vendor: 'wordpress',
    product: 'wordpress',
    title: 'WordPress',
    style: 'semver',
    profile: 'plain',
    cveRank: 60,
  },
  { part: 'a', vendor: 'jenkins', product: 'jenkins', title: 'Jenkins', style: 'semver', profile: 'plain' },
  { part: 'o', vendor: 'apple', product: 'macos', title: 'Apple macOS', style: 'semver', profile: 'plain' },
  { part: 'a', vendor: 'f5', product: 'nginx', title: 'F5 Nginx', style: 'semver', profile: 'plain', cveRank: 400 },
  { part: 'o', vendor: 'google', product: 'android', title: 'Google Android', style: 'two-part', profile: 'plain' },
  { part: 'a', vendor: 'microsoft', product: 'office', title: 'Microsoft Office', style: 'four-part', profile: 'arch' },
  { part: 'o', vendor: 'apple', product: 'iphone_os', title: 'Apple iOS', style: 'semver', profile: 'plain' },
  {
    part: 'a',
    vendor: 'atlassian',
    product: 'jira_server',
    title: 'Atlassian Jira Server',
    style: 'semver',
    profile: 'plain',
  },
  {
    part: 'a',
    vendor: 'nodejs',
    product: 'node.js',
    title: 'Node.js',
    style: 'semver',
    profile: 'plain',
    cveRank: 120,
  },
  { part: 'a', vendor: 'python', product: 'python', title: 'Python', style: 'semver', profile: 'plain', cveRank: 130 },
  { part: 'o', vendor: 'fedoraproject', product: 'fedora', title: 'Fedora', style: 'major', profile: 'none' },
  { part: 'o', vendor: 'fortinet', product: 'fortios', title: 'Fortinet FortiOS', style: 'semver', profile: 'plain' },
  {
    part: 'a',
    vendor: 'elastic',
    product: 'elasticsearch',
    title: 'Elasticsearch',
    style: 'semver',
    profile: 'plain',
    cveRank: 250,
  },
  {
    part: 'a',
    vendor: 'vmware',
    product: 'vcenter_server',
    title: 'VMware vCenter Server',
    style: 'semver',
    profile: 'updates',
  },
  {
    part: 'o',
    vendor: 'canonical',
    product: 'ubuntu_linux',
    title: 'Canonical Ubuntu Linux',
    style: 'two-part',
    profile: 'plain',
  },
  { part: 'a', vendor: 'gitlab', product: 'gitlab', title: 'GitLab', style: 'semver', profile: 'plain' },
  { part: 'o', vendor: 'cisco', product: 'ios_xe', title: 'Cisco IOS XE', style: 'semver', profile: 'plain' },
];

/** Real Apache HTTP Server releases: the version-prefix query (`2.4.*`) has a realistic answer. */
const HTTP_SERVER_VERSIONS = [
  ...range(0, 42).map((p) => `1.3.${p}`),
  ...range(35, 65).map((p) => `2.0.${p}`),
  ...range(0, 34).map((p) => `2.2.${p}`),
  ...range(0, 62).map((p) => `2.4.${p}`),
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** A 32-bit integer hash (lowbias32). */
function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

/** A deterministic value in [0, 1) for (seed, a, b): lets the dictionary stream recompute the model's choices. */
function hash01(seed: number, a: number, b: number): number {
  return mix(mix(mix(seed) ^ a) ^ Math.imul(b, 0x9e3779b1)) / 4294967296;
}

/** A deterministic UUID-shaped id (cpeNameId, matchCriteriaId). */
export function uuidOf(kind: number, n: number): string {
  const hex = (x: number) => x.toString(16).padStart(8, '0');
  const a = hex(mix(kind * 7919 + n));
  const b = hex(mix(n ^ 0x5bd1e995));
  const c = hex(mix(n + kind));
  const d = hex(mix(n * 31 + 17));
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${(8 + (mix(n) % 4)).toString(16)}${c.slice(1, 4)}-${c.slice(4)}${d}`;
}

/** The variants of a product's version: [update, target_sw, target_hw] per dictionary name. */
function variantsOf(seed: number, product: KnowledgeProduct, versionIndex: number): Array<[string, string, string]> {
  const h = hash01(seed, product.index, versionIndex);
  switch (product.profile) {
    case 'none':
      return [['*', '*', '*']];
    case 'plain':
      return h < 0.25
        ? [
            ['*', '*', '*'],
            [PRE_RELEASE[Math.floor(h * 16)]!, '*', '*'],
          ]
        : [['*', '*', '*']];
    case 'updates': {
      const count = 1 + Math.floor(h * 3);
      return [['*', '*', '*'], ...range(1, count).map((k): [string, string, string] => [`p${k}`, '*', '*'])];
    }
    case 'targets':
      return product.targets!.map((target): [string, string, string] => ['*', target, '*']);
    case 'arch':
      return h < 0.7
        ? [
            ['*', '*', '*'],
            ['*', '*', ARCH[0]!],
            ['*', '*', ARCH[h < 0.35 ? 1 : 2]!],
          ]
        : [['*', '*', '*']];
  }
}

/** Successive versions of a style, strictly ascending. */
class VersionWalk {
  private major: number;
  private minor: number;
  private patch: number;
  private build: number;
  private level: number;

  constructor(
    private readonly random: SeededRandom,
    private readonly style: VersionStyle,
  ) {
    this.major = style === 'major' ? random.int(10, 20) : random.int(0, 9);
    this.minor = random.int(0, 9);
    this.patch = random.int(0, 5);
    this.build = random.int(100, 2000);
    this.level = random.int(1, 3);
  }

  next(): string {
    const { random } = this;
    let version: string;
    switch (this.style) {
      case 'four-part':
        version = `${this.major}.${this.minor}.${this.patch}.${this.build}`;
        break;
      case 'letter':
        // OpenSSL style: 1.0.2, 1.0.2a … 1.0.2y, then 1.0.3.
        version = `${this.major}.${this.minor}.${this.patch}${this.level === 0 ? '' : String.fromCharCode(96 + this.level)}`;
        break;
      case 'two-part':
        version = `${this.major}.${this.minor}`;
        break;
      case 'major':
        version = String(this.major);
        break;
      default:
        version = `${this.major}.${this.minor}.${this.patch}`;
    }
    const step = random.next();
    if (this.style === 'letter') {
      if (this.level < 25 && step < 0.85) this.level += 1;
      else [this.patch, this.level] = [this.patch + 1, 0];
    } else if (this.style === 'two-part') {
      if (step < 0.85) this.minor += 1;
      else [this.major, this.minor] = [this.major + 1, 0];
    } else if (this.style === 'major') {
      this.major += 1;
    } else if (step < 0.7) {
      this.patch += random.int(1, 3);
      this.build += random.int(1, 400);
    } else if (step < 0.95) {
      [this.minor, this.patch] = [this.minor + 1, 0];
      this.build += random.int(500, 3000);
    } else {
      [this.major, this.minor, this.patch] = [this.major + 1, 0, 0];
      this.build += random.int(1000, 5000);
    }
    return version;
  }
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * The product model for `names` dictionary names: exactly `names` names are generated (the
 * product count follows the size: one product per ~75 names, 60 at least, 20,000 at most).
 */
export function buildKnowledgeModel(names: number, seed: number): KnowledgeModel {
  const random = new SeededRandom(seed);
  const productTotal = Math.max(60, Math.min(20_000, Math.round(names / 75)));
  const vendorTotal = Math.max(KNOWN_VENDORS.length, Math.round(productTotal / 4));
  const vendors = [...KNOWN_VENDORS];
  for (let i = vendors.length; i < vendorTotal; i++) vendors.push(`vendor${i}`);
  const vendorZipf = new Zipf(vendors.length, 0.75);

  type Draft = Omit<KnowledgeProduct, 'versions' | 'nameCount'> & { fixedNames?: number; cveRank?: number };
  const drafts: Draft[] = HEAD.slice(0, Math.min(HEAD.length, Math.floor(productTotal / 2))).map((head, index) => ({
    ...head,
    index,
  }));
  const taken = new Set(drafts.map((d) => `${d.vendor}:${d.product}`));
  for (let i = drafts.length; drafts.length < productTotal; i++) {
    const vendor = vendors[vendorZipf.sample(random)]!;
    const roll = random.next();
    if (roll < 0.085 && drafts.length + 2 <= productTotal) {
      // A device and its firmware, side by side in the ranking.
      const model = `${random.pick(['rt', 'nas', 'cam', 'sw', 'ap', 'fw'])}_${random.pick(['ax', 'ds', 'ip', 'gs', 'nx'])}${100 + i}`;
      if (taken.has(`${vendor}:${model}`)) continue;
      taken.add(`${vendor}:${model}`);
      const firmware = drafts.length;
      const style: VersionStyle = random.chance(0.5) ? 'semver' : 'four-part';
      drafts.push({
        index: firmware,
        part: 'o',
        vendor,
        product: `${model}_firmware`,
        title: `${capitalise(vendor)} ${model.toUpperCase()} Firmware`,
        style,
        profile: 'plain',
        pair: firmware + 1,
      });
      drafts.push({
        index: firmware + 1,
        part: 'h',
        vendor,
        product: model,
        title: `${capitalise(vendor)} ${model.toUpperCase()}`,
        style: 'hardware',
        profile: 'none',
        pair: firmware,
        fixedNames: random.int(1, 3),
      });
      continue;
    }
    const part: Part = roll < 0.145 ? 'o' : 'a';
    const product = part === 'o' ? `${random.pick(WORDS)}_os_${i}` : `${random.pick(WORDS)}_${random.pick(WORDS)}_${i}`;
    if (taken.has(`${vendor}:${product}`)) continue;
    taken.add(`${vendor}:${product}`);
    const styleRoll = random.next();
    const style: VersionStyle =
      styleRoll < 0.55
        ? 'semver'
        : styleRoll < 0.75
          ? 'four-part'
          : styleRoll < 0.85
            ? 'two-part'
            : styleRoll < 0.93
              ? 'letter'
              : 'major';
    const profileRoll = random.next();
    const profile: VariantProfile =
      part === 'o'
        ? profileRoll < 0.4
          ? 'arch'
          : 'plain'
        : style === 'two-part' && profileRoll < 0.6
          ? 'updates'
          : profileRoll < 0.12
            ? 'targets'
            : profileRoll < 0.2
              ? 'arch'
              : profileRoll < 0.3
                ? 'none'
                : 'plain';
    const draft: Draft = {
      index: drafts.length,
      part,
      vendor,
      product,
      title: `${capitalise(vendor)} ${product.split('_').map(capitalise).join(' ')}`,
      style,
      profile,
    };
    if (profile === 'targets') {
      const first = random.int(0, TARGET_SW.length - 1);
      draft.targets = random.chance(0.3)
        ? [TARGET_SW[first]!, TARGET_SW[(first + 1) % TARGET_SW.length]!]
        : [TARGET_SW[first]!];
    }
    if (part === 'a' && drafts.length > HEAD.length && random.chance(0.005)) draft.formerVendor = `former_${vendor}`;
    drafts.push(draft);
  }

  // Names: fixed for devices and the real http_server list; the rest shared out 20% evenly, 80% Zipf.
  const counts = new Float64Array(drafts.length);
  let fixed = 0;
  for (const draft of drafts) {
    if (draft.fixedNames !== undefined) counts[draft.index] = draft.fixedNames;
    else if (draft.style === 'fixed') counts[draft.index] = HTTP_SERVER_VERSIONS.length;
    else continue;
    fixed += counts[draft.index]!;
  }
  const shared = drafts.filter((d) => counts[d.index] === 0);
  const zipf = new Zipf(shared.length, 0.6);
  const remaining = Math.max(shared.length, names - fixed);
  const exact = shared.map((_, rank) => remaining * (0.2 / shared.length + 0.8 * zipf.share(rank)));
  const floors = exact.map((x) => Math.max(1, Math.floor(x)));
  let left = remaining - floors.reduce((s, x) => s + x, 0);
  // Largest remainders first; then take back from the largest if the floors of 1 overshot.
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) floors[order[k]![1]]! += 1;
  for (let i = 0; left < 0; i = (i + 1) % floors.length) {
    if (floors[i]! > 1) {
      floors[i]! -= 1;
      left++;
    }
  }
  for (let rank = 0; rank < shared.length; rank++) counts[shared[rank]!.index] = floors[rank]!;

  const products: KnowledgeProduct[] = drafts.map((draft) => {
    const nameCount = counts[draft.index]!;
    const { fixedNames: _fixed, cveRank: _rank, ...rest } = draft;
    const product: KnowledgeProduct = { ...rest, versions: [], nameCount };
    if (draft.style === 'fixed') {
      product.versions = [...HTTP_SERVER_VERSIONS];
      return product;
    }
    if (draft.style === 'hardware') {
      product.versions = ['-', 'v2', 'v3'].slice(0, nameCount);
      return product;
    }
    if (product.formerVendor) product.formerNames = Math.min(3, Math.floor(nameCount / 4));
    const walk = new VersionWalk(new SeededRandom(mix(seed) ^ mix(draft.index + 1)), draft.style);
    let emitted = product.formerNames ?? 0;
    for (let v = 0; emitted < nameCount; v++) {
      product.versions.push(walk.next());
      emitted += variantsOf(seed, product, v).length;
    }
    return product;
  });

  const cveProducts = products.filter((p) => p.part !== 'h').map((p) => p.index);
  for (const draft of drafts) {
    if (draft.cveRank === undefined) continue;
    cveProducts.splice(cveProducts.indexOf(draft.index), 1);
    cveProducts.splice(Math.min(draft.cveRank, cveProducts.length), 0, draft.index);
  }
  const platforms = products
    .filter((p) => p.part === 'o' && p.pair === undefined)
    .map((p) => p.index)
    .slice(0, 40);
  const byVendor = new Map<string, number[]>();
  for (const p of products) {
    if (p.part === 'h') continue;
    const list = byVendor.get(p.vendor) ?? [];
    list.push(p.index);
    byVendor.set(p.vendor, list);
  }
  return { seed, names, products, cveProducts, cveZipf: new Zipf(cveProducts.length, 0.85), platforms, byVendor };
}

/** A CPE 2.3 formatted string (values are generated CPE-safe: no escaping needed). */
export function cpeOf(
  part: string,
  vendor: string,
  product: string,
  version: string,
  update = '*',
  targetSw = '*',
  targetHw = '*',
): string {
  return `cpe:2.3:${part}:${vendor}:${product}:${version}:${update}:*:*:*:${targetSw}:${targetHw}:*`;
}

/** Names per part and per vendor, as the dictionary stream will produce them. */
export function dictionaryCounts(model: KnowledgeModel): {
  byPart: Map<string, number>;
  byVendor: Map<string, number>;
} {
  const byPart = new Map<string, number>();
  const byVendor = new Map<string, number>();
  for (const p of model.products) {
    byPart.set(p.part, (byPart.get(p.part) ?? 0) + p.nameCount);
    byVendor.set(p.vendor, (byVendor.get(p.vendor) ?? 0) + p.nameCount - (p.formerNames ?? 0));
    if (p.formerVendor) byVendor.set(p.formerVendor, (byVendor.get(p.formerVendor) ?? 0) + (p.formerNames ?? 0));
  }
  return { byPart, byVendor };
}

/** NVD CPE API 2.0 product objects (`{cpe: {...}}`), exactly `model.names` of them, product by product. */
export function* generateDictionary(model: KnowledgeModel, now: number): Generator<{ cpe: Record<string, unknown> }> {
  const { seed } = model;
  let n = 0;
  const stamp = (k: number) =>
    new Date(FIRST_PUBLISHED + Math.floor(hash01(seed, 77, k) * (now - FIRST_PUBLISHED))).toISOString().slice(0, 23);
  for (const product of model.products) {
    let left = product.nameCount;
    const formerNames = product.formerNames ?? 0;
    for (let v = 0; v < formerNames && left > 0; v++, left--) {
      const version = product.versions[v]!;
      const cpeName = cpeOf(product.part, product.formerVendor!, product.product, version);
      const created = stamp(n);
      n++;
      yield {
        cpe: {
          deprecated: true,
          cpeName,
          cpeNameId: uuidOf(1, n),
          lastModified: created,
          created,
          titles: [{ title: `${product.title} ${version}`, lang: 'en' }],
          deprecatedBy: [
            { cpeName: cpeOf(product.part, product.vendor, product.product, version), cpeNameId: uuidOf(2, n) },
          ],
        },
      };
    }
    for (let v = 0; v < product.versions.length && left > 0; v++) {
      const version = product.versions[v]!;
      for (const [update, targetSw, targetHw] of variantsOf(seed, product, v)) {
        if (left === 0) break;
        left--;
        const created = stamp(n);
        n++;
        const suffix = [update, targetSw, targetHw].filter((x) => x !== '*').join(' ');
        yield {
          cpe: {
            deprecated: false,
            cpeName: cpeOf(product.part, product.vendor, product.product, version, update, targetSw, targetHw),
            cpeNameId: uuidOf(1, n),
            lastModified: created,
            created,
            titles: [
              {
                title: `${product.title} ${version === '-' ? '' : version}${suffix ? ` ${suffix}` : ''}`.trim(),
                lang: 'en',
              },
            ],
          },
        };
      }
    }
  }
}

export function emptyKnowledgeStats(model: KnowledgeModel): KnowledgeStats {
  return {
    cves: 0,
    withConfigurations: 0,
    rejected: 0,
    andConfigurations: 0,
    cpeMatch: 0,
    ranges: 0,
    exact: 0,
    any: 0,
    platformCriteria: 0,
    cvesPerProduct: new Int32Array(model.products.length),
  };
}

type CpeMatch = Record<string, unknown>;

/** NVD CVE API 2.0 `cve` objects, `count` of them, oldest first; `stats` is filled as they go. */
export function* generateCves(
  model: KnowledgeModel,
  count: number,
  options: { seed: number; now: number },
  stats?: KnowledgeStats,
): Generator<Record<string, unknown>> {
  const random = new SeededRandom(options.seed);
  const perYear = new Map<number, number>();
  const span = options.now - 30 * DAY - FIRST_PUBLISHED;
  let matchIds = 0;
  const { products } = model;

  const criterionFor = (product: KnowledgeProduct, vulnerable: boolean): CpeMatch => {
    const versions = product.versions;
    const targetSw = product.targets ? product.targets[0]! : '*';
    const match: CpeMatch = { vulnerable, criteria: '', matchCriteriaId: uuidOf(3, ++matchIds) };
    const roll = random.next();
    if (stats) stats.cpeMatch++;
    if (versions.length === 1 || product.part === 'h' || roll < 0.03) {
      const version = product.part === 'h' ? versions[0]! : '*';
      match.criteria = cpeOf(product.part, product.vendor, product.product, version, '*', targetSw);
      if (stats) product.part === 'h' ? stats.exact++ : stats.any++;
      return match;
    }
    if (roll < 0.25) {
      const version = versions[random.int(0, versions.length - 1)]!;
      const update = product.profile === 'updates' && random.chance(0.5) ? `p${random.int(1, 2)}` : '*';
      match.criteria = cpeOf(product.part, product.vendor, product.product, version, update, targetSw);
      if (stats) stats.exact++;
      return match;
    }
    // A branch: ends at a fixed version (newer ones likelier), spanning up to a third of the list.
    const end = Math.max(1, versions.length - 1 - Math.floor(random.next() ** 2 * (versions.length - 1)));
    const start = Math.max(0, end - 1 - Math.floor(random.next() ** 2 * (versions.length / 3)));
    match.criteria = cpeOf(product.part, product.vendor, product.product, '*', '*', targetSw);
    const shape = random.next();
    if (shape < 0.4)
      Object.assign(match, { versionStartIncluding: versions[start], versionEndExcluding: versions[end] });
    else if (shape < 0.7) Object.assign(match, { versionEndExcluding: versions[end] });
    else if (shape < 0.85) Object.assign(match, { versionEndIncluding: versions[end - 1] });
    else if (shape < 0.95)
      Object.assign(match, { versionStartIncluding: versions[start], versionEndIncluding: versions[end - 1] });
    else if (shape < 0.98)
      Object.assign(match, { versionStartExcluding: versions[start], versionEndExcluding: versions[end] });
    else Object.assign(match, { versionStartIncluding: versions[start] });
    if (stats) stats.ranges++;
    return match;
  };

  for (let i = 0; i < count; i++) {
    const published = FIRST_PUBLISHED + Math.floor(Math.sqrt((i + random.next()) / count) * span);
    const year = new Date(published).getUTCFullYear();
    const seq = (perYear.get(year) ?? 0) + 1;
    perYear.set(year, seq);
    const id = `CVE-${year}-${String(999 + seq).padStart(4, '0')}`;
    const lastModified = published + Math.floor(random.next() ** 3 * (options.now - published));
    const product = products[model.cveProducts[model.cveZipf.sample(random)]!]!;
    const statusRoll = random.next();
    const vulnStatus =
      statusRoll < 0.01
        ? 'Rejected'
        : statusRoll < 0.04
          ? 'Awaiting Analysis'
          : statusRoll < 0.64
            ? 'Analyzed'
            : 'Modified';
    const impact = random.pick(IMPACTS);
    const cve: Record<string, unknown> = {
      id,
      sourceIdentifier: random.chance(0.5) ? 'cve@mitre.org' : `psirt@${product.vendor}.example`,
      published: new Date(published).toISOString().slice(0, 23),
      lastModified: new Date(lastModified).toISOString().slice(0, 23),
      vulnStatus,
      cveTags: [],
      descriptions: [
        {
          lang: 'en',
          value:
            vulnStatus === 'Rejected'
              ? 'Rejected reason: This CVE ID has been rejected or withdrawn by its CVE Numbering Authority.'
              : `A vulnerability in ${product.title} allows a remote attacker to ${impact} via a crafted request.`,
        },
        ...(random.chance(0.1)
          ? [{ lang: 'es', value: `Una vulnerabilidad en ${product.title} permite a un atacante remoto ${impact}.` }]
          : []),
      ],
      references: Array.from({ length: random.int(1, 4) }, (_, k) => ({
        url: `https://${product.vendor}.example/security/${id.toLowerCase()}/${k}`,
        source: 'cve@mitre.org',
        ...(random.chance(0.6)
          ? { tags: [random.pick(['Vendor Advisory', 'Patch', 'Third Party Advisory', 'Exploit', 'Issue Tracking'])] }
          : {}),
      })),
    };
    if (stats) {
      stats.cves++;
      if (vulnStatus === 'Rejected') stats.rejected++;
    }
    if (vulnStatus === 'Rejected' || vulnStatus === 'Awaiting Analysis') {
      yield cve;
      continue;
    }
    const [vector, score, severity, exploitability, impactScore] = random.pick(CVSS);
    cve.metrics = {
      cvssMetricV31: [
        {
          source: 'nvd@nist.gov',
          type: 'Primary',
          cvssData: { version: '3.1', vectorString: vector, baseScore: score, baseSeverity: severity },
          exploitabilityScore: exploitability,
          impactScore,
        },
      ],
    };
    cve.weaknesses = [
      { source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: random.pick(WEAKNESSES) }] },
    ];

    const size = random.weighted([
      [1, 45],
      [2, 25],
      [3, 15],
      [4, 10],
      [5, 5],
    ] as const);
    const siblings = model.byVendor.get(product.vendor) ?? [product.index];
    const vulnerableMatches: CpeMatch[] = [];
    for (let k = 0; k < size; k++) {
      const target = k > 0 && siblings.length > 1 && random.chance(0.15) ? products[random.pick(siblings)]! : product;
      vulnerableMatches.push(criterionFor(target, true));
    }
    const firmware = product.pair !== undefined;
    const and = firmware ? random.chance(0.9) : random.chance(0.05) && model.platforms.length > 0;
    if (and) {
      const platformMatches: CpeMatch[] = [];
      if (firmware) platformMatches.push(criterionFor(products[product.pair!]!, false));
      else {
        const distinct = new Set(Array.from({ length: random.int(1, 3) }, () => random.pick(model.platforms)));
        for (const platform of distinct) {
          const os = products[platform]!;
          platformMatches.push({
            vulnerable: false,
            criteria: cpeOf('o', os.vendor, os.product, '*'),
            matchCriteriaId: uuidOf(3, ++matchIds),
          });
          if (stats) {
            stats.cpeMatch++;
            stats.any++;
          }
        }
      }
      if (stats) {
        stats.andConfigurations++;
        stats.platformCriteria += platformMatches.length;
      }
      cve.configurations = [
        {
          operator: 'AND',
          nodes: [
            { operator: 'OR', negate: false, cpeMatch: vulnerableMatches },
            { operator: 'OR', negate: false, cpeMatch: platformMatches },
          ],
        },
      ];
    } else {
      cve.configurations = [{ nodes: [{ operator: 'OR', negate: false, cpeMatch: vulnerableMatches }] }];
    }
    if (stats) {
      stats.withConfigurations++;
      stats.cvesPerProduct[product.index]!++;
    }
    yield cve;
  }
}

export interface FingerprintContext {
  fingerprintCpes: string[];
  osCpes: string[];
}

/**
 * What scans present to the matcher: products Zipf over the model (applications and devices),
 * versions skewed to the newer half, ~8% without version, ~5% unknown to knowledge, ~25% with a
 * second product, ~40% with an OS CPE (devices: their hardware as the platform).
 */
export function* generateContexts(model: KnowledgeModel, count: number, seed: number): Generator<FingerprintContext> {
  const random = new SeededRandom(seed);
  // Applications and firmware; operating systems come as OS CPEs.
  const candidates = model.products.filter((p) => p.part === 'a' || p.pair !== undefined);
  const zipf = new Zipf(candidates.length, 1.0);
  const platformZipf = new Zipf(Math.max(1, model.platforms.length), 1.2);
  const firmwareOf = new Map(
    model.products.filter((p) => p.part === 'o' && p.pair !== undefined).map((p) => [`o:${p.vendor}:${p.product}`, p]),
  );
  const versionOf = (p: KnowledgeProduct) =>
    p.versions[Math.max(0, p.versions.length - 1 - Math.floor(random.next() ** 2 * p.versions.length))]!;
  const fingerprint = (): string => {
    if (random.chance(0.05))
      return cpeOf(
        'a',
        `acme${random.int(1, 500)}`,
        `internal_tool_${random.int(1, 50)}`,
        `${random.int(1, 9)}.${random.int(0, 9)}`,
      );
    const p = candidates[zipf.sample(random)]!;
    const version = random.chance(0.08) ? '*' : versionOf(p);
    const update = p.profile === 'updates' && version !== '*' && random.chance(0.5) ? `p${random.int(1, 2)}` : '*';
    return cpeOf(p.part, p.vendor, p.product, version, update, p.targets?.[0] ?? '*');
  };
  for (let i = 0; i < count; i++) {
    const fingerprintCpes = [fingerprint()];
    if (random.chance(0.25)) fingerprintCpes.push(fingerprint());
    const osCpes: string[] = [];
    const firmware = firmwareOf.get(fingerprintCpes[0]!.split(':').slice(2, 5).join(':'));
    if (firmware !== undefined) {
      // Firmware: the device is the platform.
      const device = model.products[firmware.pair!]!;
      osCpes.push(cpeOf('h', device.vendor, device.product, '-'));
    } else if (model.platforms.length > 0 && random.chance(0.4)) {
      const os = model.products[model.platforms[platformZipf.sample(random)]!]!;
      osCpes.push(cpeOf('o', os.vendor, os.product, random.chance(0.2) ? '*' : versionOf(os)));
    }
    yield { fingerprintCpes, osCpes };
  }
}
