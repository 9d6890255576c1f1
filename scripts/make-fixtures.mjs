// Writes test/fixtures/ from the public data set (default ../shared/data): small files copied,
// large ones trimmed to what the tests use, and the Shodan samples and IP lists generated (their
// origin or licence is not known well enough to redistribute them). Usage: node scripts/make-fixtures.mjs [SOURCE_DIR]
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = path.resolve(process.argv[2] ?? path.join(root, '..', 'shared', 'data'));
const contract = path.resolve(source, '..', 'contract');
const target = path.join(root, 'test', 'fixtures');

/** CVE 5 records that tests pick by id beyond the first VULNRICHMENT_HEAD lines. */
const VULNRICHMENT_HEAD = 2000;
const VULNRICHMENT_PICKED = [
  'CVE-1999-0006',
  'CVE-2006-20001',
  'CVE-2019-25161',
  'CVE-2020-8907',
  'CVE-2023-41027',
  'CVE-2022-38106',
  'CVE-2020-15778',
  'CVE-2022-3996',
  'CVE-2022-26916',
  'CVE-2023-27522',
  'CVE-2024-39894',
  'CVE-2019-25162',
  'CVE-2022-41335',
  'CVE-2020-7924',
  'CVE-2020-11053',
  'CVE-2020-5245',
  'CVE-2016-8318',
  'CVE-2018-0824',
  'CVE-2022-40705',
];

const write = (relative, content) => {
  const file = path.join(target, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
};
const copy = (relative) => {
  mkdirSync(path.dirname(path.join(target, relative)), { recursive: true });
  copyFileSync(path.join(source, relative), path.join(target, relative));
};
const copyDirectory = (relative, keep = () => true) => {
  for (const name of readdirSync(path.join(source, relative)).filter(keep).sort()) copy(path.join(relative, name));
};
const gzip = (text) => gzipSync(text, { level: 9, mtime: 0 });

copyDirectory('nvd');
copyDirectory('cpe');
copyDirectory('cve5-examples');
copyDirectory('scans', (name) => !name.startsWith('shodan_'));
for (const feed of ['golang_vulndb_osv', 'pypa_advisory_database_osv', 'rustsec_advisory_db_osv'])
  copy(`feeds/${feed}.jsonl.gz`);
write(
  'feeds/cisa_kev_known_exploited_vulnerabilities.json.gz',
  gzip(readFileSync(path.join(source, 'feeds/cisa_kev_known_exploited_vulnerabilities.json'))),
);
write(
  'vendor/apache_httpd_cna_cve_json.jsonl.gz',
  gzip(readFileSync(path.join(source, 'vendor/apache_httpd_cna_cve_json.jsonl'))),
);
mkdirSync(path.join(target, 'contract'), { recursive: true });
for (const file of ['vulncheck-openapi.subset.json', 'vulncheck-openapi.lookups.json'])
  copyFileSync(path.join(contract, file), path.join(target, 'contract', file));

const vulnrichment = gunzipSync(readFileSync(path.join(source, 'cve5-vulnrichment.dev.ndjson.gz')))
  .toString('utf8')
  .split('\n')
  .filter(Boolean);
const head = vulnrichment.slice(0, VULNRICHMENT_HEAD);
const idOf = (line) => JSON.parse(line).cveMetadata.cveId;
const inHead = new Set(head.map(idOf));
const picked = vulnrichment.slice(VULNRICHMENT_HEAD).filter((line) => {
  const id = idOf(line);
  return VULNRICHMENT_PICKED.includes(id) && !inHead.has(id);
});
const missing = VULNRICHMENT_PICKED.filter((id) => !inHead.has(id) && !picked.some((line) => idOf(line) === id));
if (missing.length > 0) throw new Error(`not in the vulnrichment dump: ${missing.join(', ')}`);
write('cve5-vulnrichment.sample.ndjson.gz', gzip(`${[...head, ...picked].join('\n')}\n`));

writeShodanSamples();
writeIpLists();
console.log(`fixtures written to ${path.relative(root, target)} from ${source}`);

/** Two Shodan host-API objects in the shapes the reader must handle, with documentation addresses. */
function writeShodanSamples() {
  const dnsLocation = {
    city: null,
    region_code: null,
    area_code: null,
    longitude: -97.822,
    country_code3: null,
    country_name: 'United States',
    postal_code: null,
    dma_code: null,
    country_code: 'US',
    latitude: 37.751,
  };
  const dnsBanner = {
    _shodan: {
      id: '00000000-0000-4000-8000-000000000053',
      options: {},
      ptr: true,
      module: 'dns-udp',
      crawler: '0000000000000000000000000000000000000001',
    },
    hash: -553166942,
    os: null,
    opts: { raw: '34ef818200010000000000000776657273696f6e0462696e640000100003' },
    ip: 3221225994,
    isp: 'Example DNS',
    port: 53,
    hostnames: ['dns.example.net'],
    location: dnsLocation,
    dns: { resolver_hostname: null, recursive: true, resolver_id: null, software: null },
    timestamp: '2021-01-22T08:49:35.190817',
    domains: ['example.net'],
    org: 'Example DNS',
    data: 'Recursion: enabled',
    asn: 'AS64496',
    transport: 'udp',
    ip_str: '192.0.2.10',
  };
  const dnsHost = {
    region_code: null,
    ip: 3221225994,
    postal_code: null,
    country_code: 'US',
    city: null,
    dma_code: null,
    last_update: '2021-01-22T08:49:35.190817',
    latitude: 37.751,
    tags: [],
    area_code: null,
    country_name: 'United States',
    hostnames: ['dns.example.net'],
    org: 'Example DNS',
    data: [dnsBanner],
    asn: 'AS64496',
    isp: 'Example DNS',
    longitude: -97.822,
    country_code3: null,
    domains: ['example.net'],
    ip_str: '192.0.2.10',
    os: null,
    ports: [53],
  };
  write('scans/shodan_host_dns_sample.json', `${JSON.stringify(dnsHost, null, 2)}\n`);

  const nginxBanner = {
    hash: 4674193,
    _shodan: {
      region: 'eu',
      ptr: true,
      module: 'http',
      id: '00000000-0000-4000-8000-000000000080',
      options: {},
      crawler: '0000000000000000000000000000000000000002',
    },
    product: 'nginx',
    http: {
      status: 301,
      robots_hash: null,
      redirects: [],
      securitytxt: null,
      title: '301 Moved Permanently',
      sitemap_hash: null,
      robots: null,
      server: 'nginx/1.9.4',
      headers_hash: 1258854265,
      host: '198.51.100.80',
      location: '/',
      components: {},
      html_hash: -1755514192,
      sitemap: null,
      securitytxt_hash: null,
    },
    os: null,
    timestamp: '2023-05-16T13:23:58.464783',
    isp: 'Example Hosting',
    cpe23: ['cpe:2.3:a:igor_sysoev:nginx:1.9.4'],
    cpe: ['cpe:/a:igor_sysoev:nginx:1.9.4'],
    transport: 'tcp',
    asn: 'AS64511',
    hostnames: ['www.example.org'],
    location: {
      city: 'Nürnberg',
      region_code: 'BY',
      area_code: null,
      longitude: 11.07752,
      latitude: 49.45421,
      country_code: 'DE',
      country_name: 'Germany',
    },
    version: '1.9.4',
    ip: 3325256784,
    domains: ['example.org'],
    org: 'Example Hosting',
    port: 80,
    opts: {},
    ip_str: '198.51.100.80',
  };
  write('scans/shodan_host_cropped_nginx_sample.json', `${JSON.stringify({ data: [nginxBanner] }, null, 2)}\n`);
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A Tor exit list (IPv4, then IPv6 partly written in full form) and a C2 list tagged by family, in
 * the layouts of the public lists, with addresses from the benchmarking and documentation ranges.
 */
function writeIpLists() {
  const next = random(20240227);
  const ipv4 = (block) => `198.${18 + block}.${Math.floor(next() * 256)}.${1 + Math.floor(next() * 254)}`;
  const hex = () => Math.floor(next() * 0x10000).toString(16);
  const unique = (make, count) => {
    const seen = new Set();
    while (seen.size < count) seen.add(make());
    return [...seen];
  };
  const torV4 = unique(() => ipv4(0), 400);
  const torV6 = unique(() => `2001:db8:${hex()}:${hex()}::${hex()}`, 200).map((address, i) =>
    i % 4 === 0 ? expandIpv6(address) : address,
  );
  write('ip-lists/tor_exit_nodes.lst', `${[...torV4, ...torV6].join('\n')}\n`);

  // The public list's families, largest first.
  const families = [
    'Metasploit Framework C2 IPs',
    'Sliver C2 IPs',
    'Viper C2 IPs',
    'GoPhish IPs',
    'Cobalt Strike C2 IPs',
    'PANDA C2 IPs',
    'BurpSuite IPs',
    'Hak5 Cloud C2 IPs',
    'Mythic C2 IPs',
    'Supershell C2 IPs',
    'XMRig Monero Cryptominer IPs',
    'Havoc C2 IPs',
    'Sectop RAT IPs',
    'XtremeRAT Trojan IPs',
    'Unam Web Panel IPs',
    'ShadowPad IPs',
    'AsyncRAT IPs',
    'RedGuard C2 IPs',
    'Quasar RAT IPs',
    'DarkComet Trojan IPs',
    'Mozi Botnet IPs',
    'NanoCore RAT Trojan IPs',
    'Gh0st RAT Trojan IPs',
    'Brute Ratel C4 IPs',
    'Villain C2 IPs',
    'Remcos RAT IPs',
    'NimPlant C2 IPs',
    'NetBus Trojan IPs',
    'MobSF IPs',
    'Hookbot IPs',
    'DcRAT IPs',
    'Covenant C2 IPs',
    'Caldera C2 IPs',
    'njRAT Trojan IPs',
    'Vshell C2 IPs',
    'Orcus RAT Trojan IPs',
    'Ares RAT C2 IPs',
  ];
  const c2Addresses = unique(() => ipv4(1), 600);
  const rows = [];
  let taken = 0;
  families.forEach((family, rank) => {
    // Family sizes fall off with rank, as in the public list (a few large frameworks, many small ones).
    const size = Math.max(2, Math.round(120 / (rank + 1)));
    for (let i = 0; i < size; i++) rows.push([c2Addresses[taken++], family]);
  });
  rows.push([rows.find(([, family]) => family === 'GoPhish IPs')[0], 'Hak5 Cloud C2 IPs']);
  rows.push(['2001:db8:c2::1', 'BurpSuite IPs'], ['2001:db8:c2::2', 'Sliver C2 IPs']);
  const csv = rows.map(([ip, family]) => `${ip},${family},data/${family}.txt`);
  write('ip-lists/c2_tracker_ip_tags.csv', `ip,tag,source_file\n${csv.join('\n')}\n`);
  write('ip-lists/c2_tracker_all.txt', `${[...new Set(rows.map(([ip]) => ip))].join('\n')}\n`);
}

/** "2001:db8:1:2::3" written out in full, with leading zeros, as some published lists do. */
function expandIpv6(address) {
  const [head, tail] = address.split('::');
  const left = head.split(':');
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => group.padStart(4, '0')).join(':');
}
