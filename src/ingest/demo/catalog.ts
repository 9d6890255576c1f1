/**
 * What the demo dataset is made of. Products and CVEs are real and the CVEs really affect the
 * listed versions (as a scanner would report them); organisations are labelled "(demo)" and every
 * address lies in a range reserved from the internet, so nobody mistakes the dataset for real
 * exposure (see DEMO_NETWORKS).
 */
export interface DemoService {
  port: number;
  service: string;
  weight: number;
  cpe: string;
  /** The product as the NVD CPE dictionary titles it (the version is appended). */
  product: string;
  /** CVEs that affect this version (the demo's advisory set states each of them; see advisories.ts). */
  cves: string[];
}

export const DEMO_SERVICES: DemoService[] = [
  {
    port: 80,
    service: 'http',
    weight: 14,
    cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
    product: 'Apache Software Foundation Apache HTTP Server',
    cves: ['CVE-2021-41773', 'CVE-2021-42013'],
  },
  {
    port: 80,
    service: 'http',
    weight: 10,
    cpe: 'cpe:2.3:a:apache:http_server:2.4.50:*:*:*:*:*:*:*',
    product: 'Apache Software Foundation Apache HTTP Server',
    cves: ['CVE-2021-42013'],
  },
  {
    port: 443,
    service: 'https',
    weight: 22,
    cpe: 'cpe:2.3:a:apache:http_server:2.4.58:*:*:*:*:*:*:*',
    product: 'Apache Software Foundation Apache HTTP Server',
    cves: [],
  },
  {
    port: 443,
    service: 'https',
    weight: 14,
    cpe: 'cpe:2.3:a:f5:nginx:1.20.0:*:*:*:*:*:*:*',
    product: 'F5 Nginx',
    cves: ['CVE-2021-23017'],
  },
  {
    port: 443,
    service: 'https',
    weight: 20,
    cpe: 'cpe:2.3:a:f5:nginx:1.24.0:*:*:*:*:*:*:*',
    product: 'F5 Nginx',
    cves: [],
  },
  {
    // As nmap names nginx: the NVD CPE dictionary renamed igor_sysoev:nginx to nginx:nginx and that
    // to f5:nginx, and matching follows the renames to the CVEs published under f5:nginx.
    port: 80,
    service: 'http',
    weight: 4,
    cpe: 'cpe:2.3:a:igor_sysoev:nginx:1.18.0:*:*:*:*:*:*:*',
    product: 'Igor Sysoev Nginx',
    cves: ['CVE-2021-23017'],
  },
  {
    port: 443,
    service: 'https',
    weight: 6,
    cpe: 'cpe:2.3:a:openssl:openssl:1.0.1f:*:*:*:*:*:*:*',
    product: 'OpenSSL Project OpenSSL',
    cves: ['CVE-2014-0160'],
  },
  {
    port: 22,
    service: 'ssh',
    weight: 18,
    cpe: 'cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*',
    product: 'OpenBSD OpenSSH',
    cves: ['CVE-2024-6387'],
  },
  {
    port: 22,
    service: 'ssh',
    weight: 16,
    cpe: 'cpe:2.3:a:openbsd:openssh:9.8:p1:*:*:*:*:*:*',
    product: 'OpenBSD OpenSSH',
    cves: [],
  },
  {
    port: 8080,
    service: 'http-proxy',
    weight: 8,
    cpe: 'cpe:2.3:a:apache:tomcat:9.0.30:*:*:*:*:*:*:*',
    product: 'Apache Software Foundation Tomcat',
    cves: ['CVE-2020-1938'],
  },
  {
    port: 8080,
    service: 'http',
    weight: 5,
    cpe: 'cpe:2.3:a:jenkins:jenkins:2.441:*:*:*:*:*:*:*',
    product: 'Jenkins',
    cves: ['CVE-2024-23897'],
  },
  {
    port: 8090,
    service: 'http',
    weight: 4,
    cpe: 'cpe:2.3:a:atlassian:confluence_server:7.13.0:*:*:*:*:*:*:*',
    product: 'Atlassian Confluence Server',
    cves: ['CVE-2022-26134'],
  },
  {
    port: 25,
    service: 'smtp',
    weight: 6,
    cpe: 'cpe:2.3:a:exim:exim:4.91:*:*:*:*:*:*:*',
    product: 'Exim',
    cves: ['CVE-2019-10149'],
  },
  {
    port: 21,
    service: 'ftp',
    weight: 3,
    cpe: 'cpe:2.3:a:vsftpd_project:vsftpd:2.3.4:*:*:*:*:*:*:*',
    product: 'vsftpd Project vsftpd',
    cves: ['CVE-2011-2523'],
  },
  {
    port: 21,
    service: 'ftp',
    weight: 3,
    cpe: 'cpe:2.3:a:proftpd:proftpd:1.3.5:*:*:*:*:*:*:*',
    product: 'ProFTPD',
    cves: ['CVE-2015-3306'],
  },
  {
    port: 443,
    service: 'https',
    weight: 4,
    cpe: 'cpe:2.3:o:fortinet:fortios:6.0.4:*:*:*:*:*:*:*',
    product: 'Fortinet FortiOS',
    cves: ['CVE-2018-13379'],
  },
  {
    // The standard edition (sw_edition "-"): Citrix fixed the FIPS and NDcPP editions in other builds.
    port: 443,
    service: 'https',
    weight: 3,
    cpe: 'cpe:2.3:a:citrix:netscaler_application_delivery_controller:13.1-49.13:*:*:*:-:*:*:*',
    product: 'Citrix NetScaler Application Delivery Controller',
    cves: ['CVE-2023-4966'],
  },
  {
    port: 443,
    service: 'https',
    weight: 8,
    cpe: 'cpe:2.3:a:microsoft:internet_information_services:10.0:*:*:*:*:*:*:*',
    product: 'Microsoft Internet Information Services',
    cves: [],
  },
  {
    port: 5432,
    service: 'postgresql',
    weight: 4,
    cpe: 'cpe:2.3:a:postgresql:postgresql:15.4:*:*:*:*:*:*:*',
    product: 'PostgreSQL',
    cves: [],
  },
  {
    port: 6379,
    service: 'redis',
    weight: 4,
    cpe: 'cpe:2.3:a:redis:redis:7.0.11:*:*:*:*:*:*:*',
    product: 'Redis',
    cves: [],
  },
  {
    port: 3306,
    service: 'mysql',
    weight: 4,
    cpe: 'cpe:2.3:a:oracle:mysql:8.0.33:*:*:*:*:*:*:*',
    product: 'Oracle MySQL',
    cves: [],
  },
];

/**
 * The demo's organisations: documentation ASNs (RFC 5398) with labelled names, spread over real
 * countries, in address ranges that are never routed on the internet — the three IPv4
 * documentation /24s of RFC 5737 and the IPv6 documentation prefix of RFC 3849. Six IPv4
 * organisations need more room than those three /24s (762 addresses) hold, so three of them use
 * blocks of 198.18.0.0/15, which RFC 2544 reserves for benchmarking.
 */
export const DEMO_NETWORKS = [
  { asn: 'AS64496', name: 'Demo Cloud Hosting (demo)', country: 'US', cidr: '198.51.100.0/24' }, // RFC 5737
  { asn: 'AS64497', name: 'Demo Telecom Europe (demo)', country: 'DE', cidr: '203.0.113.0/24' }, // RFC 5737
  { asn: 'AS64498', name: 'Demo Broadband (demo)', country: 'FR', cidr: '192.0.2.0/24' }, // RFC 5737
  { asn: 'AS64499', name: 'Demo Datacenter Asia (demo)', country: 'JP', cidr: '198.18.0.0/16' }, // RFC 2544
  { asn: 'AS64500', name: 'Demo University Network (demo)', country: 'GB', cidr: '198.19.0.0/17' }, // RFC 2544
  { asn: 'AS64501', name: 'Demo Mobile Carrier (demo)', country: 'BR', cidr: '198.19.128.0/17' }, // RFC 2544
  { asn: 'AS64502', name: 'Demo Cloud Hosting IPv6 (demo)', country: 'NL', cidr: '2001:db8:64::/48' }, // RFC 3849
] as const;

/** Every range demo addresses may come from (RFC 5737, RFC 3849, RFC 2544). */
export const DEMO_RANGES = ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '198.18.0.0/15', '2001:db8::/32'];

export const DEMO_CLASSIFICATIONS: ReadonlyArray<readonly [string, number]> = [
  ['c2:cobalt_strike', 3],
  ['c2:sliver', 2],
  ['proxy:tor', 3],
  ['scanner', 2],
  ['honeypot:cowrie', 1],
  ['attack-infrastructure:interactsh', 1],
];
