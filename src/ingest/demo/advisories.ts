/**
 * The demo's advisory knowledge, generated: NVD CVE API 2.0 `cve` objects with CPE configurations
 * and CVE Record 5.x records for the CVEs of the demo's products (DEMO_SERVICES), plus NVD CPE
 * dictionary products for every demo product version. `vulnscope demo` loads them through the real
 * adapters' conversions and the feed loader, so knowledge is derived from them as from real feeds,
 * before the demo hosts are ingested and matched.
 *
 * The facts are real: each CVE affects the versions its configurations name, as NVD, the CNA and
 * the vendor advisories state (ranges as the advisories give them, trimmed to the products here);
 * descriptions, CWEs, CVSS 3.1 vectors and CISA KEV dates are the published ones. What is
 * simplified: each record carries only some of its references, `published` is the publication
 * day (NVD's exact time where the record is copied from NVD) and `lastModified` equals it.
 */
import { convertCveRecord } from '../advisories/cve5.js';
import { parseCvssVector } from '../advisories/cvss.js';
import { convertNvdValue } from '../advisories/nvd.js';
import type { AdvisoryItem, JsonObject } from '../advisories/types.js';
import { DEMO_SERVICES } from './catalog.js';

/** Version bounds of a range criterion, in NVD's names. */
interface Bounds {
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
}

type Criterion = string | [criteria: string, bounds: Bounds];

interface DemoCve {
  id: string;
  /** The CNA, as NVD's `sourceIdentifier`. */
  source: string;
  published: string;
  description: string;
  cwe?: string;
  /** NVD's primary CVSS 3.1 vector (the score is computed from it). */
  cvss31?: string;
  /** Each configuration is one OR node of vulnerable criteria. */
  configurations: Criterion[][];
  references: Array<[url: string, ...tags: string[]]>;
  /** CISA KEV: date added, due date, required action, name. */
  kev?: [added: string, due: string, action: string, name: string];
}

const range = (product: string, bounds: Bounds): Criterion => [`cpe:2.3:${product}:*:*:*:*:*:*:*:*`, bounds];
const APPLY_UPDATES = 'Apply updates per vendor instructions.';
const NETSCALER = 'a:citrix:netscaler_application_delivery_controller';

/** The CVEs of the demo's products, as NVD publishes them (configurations trimmed to those products). */
export const DEMO_NVD_CVES: DemoCve[] = [
  {
    id: 'CVE-2021-41773',
    source: 'security@apache.org',
    published: '2021-10-05T00:00:00.000',
    description:
      'A flaw was found in a change made to path normalization in Apache HTTP Server 2.4.49. An attacker could use a path traversal attack to map URLs to files outside the directories configured by Alias-like directives. If files outside of these directories are not protected by the usual default configuration "require all denied", these requests can succeed. If CGI scripts are also enabled for these aliased pathes, this could allow for remote code execution. This issue is known to be exploited in the wild. This issue only affects Apache 2.4.49 and not earlier versions. The fix in Apache HTTP Server 2.4.50 was found to be incomplete, see CVE-2021-42013.',
    cwe: 'CWE-22',
    cvss31: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    configurations: [['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*']],
    references: [['https://httpd.apache.org/security/vulnerabilities_24.html', 'Vendor Advisory']],
    kev: ['2021-11-03', '2021-11-17', APPLY_UPDATES, 'Apache HTTP Server Path Traversal Vulnerability'],
  },
  {
    id: 'CVE-2021-42013',
    source: 'security@apache.org',
    published: '2021-10-07T00:00:00.000',
    description:
      'It was found that the fix for CVE-2021-41773 in Apache HTTP Server 2.4.50 was insufficient. An attacker could use a path traversal attack to map URLs to files outside the directories configured by Alias-like directives. If files outside of these directories are not protected by the usual default configuration "require all denied", these requests can succeed. If CGI scripts are also enabled for these aliased pathes, this could allow for remote code execution. This issue only affects Apache 2.4.49 and Apache 2.4.50 and not earlier versions.',
    cwe: 'CWE-22',
    cvss31: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    configurations: [
      ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', 'cpe:2.3:a:apache:http_server:2.4.50:*:*:*:*:*:*:*'],
    ],
    references: [['https://httpd.apache.org/security/vulnerabilities_24.html', 'Vendor Advisory']],
    kev: ['2021-11-03', '2021-11-17', APPLY_UPDATES, 'Apache HTTP Server Path Traversal Vulnerability'],
  },
  {
    id: 'CVE-2021-23017',
    source: 'f5sirt@f5.com',
    published: '2021-06-01T13:15:07.853',
    description:
      'A security issue in nginx resolver was identified, which might allow an attacker who is able to forge UDP packets from the DNS server to cause 1-byte memory overwrite, resulting in worker process crash or potential other impact.',
    cwe: 'CWE-193',
    cvss31: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:L',
    configurations: [
      [range('a:f5:nginx', { versionStartIncluding: '0.6.18', versionEndExcluding: '1.20.1' })],
      [range('a:openresty:openresty', { versionEndExcluding: '1.19.3.2' })],
    ],
    references: [['http://mailman.nginx.org/pipermail/nginx-announce/2021/000300.html', 'Mailing List', 'Patch']],
  },
  {
    id: 'CVE-2014-0160',
    source: 'secalert@redhat.com',
    published: '2014-04-07T00:00:00.000',
    description:
      'The (1) TLS and (2) DTLS implementations in OpenSSL 1.0.1 before 1.0.1g do not properly handle Heartbeat Extension packets, which allows remote attackers to obtain sensitive information from process memory via crafted packets that trigger a buffer over-read, as demonstrated by reading private keys, related to d1_both.c and t1_lib.c, aka the Heartbleed bug.',
    cwe: 'CWE-125',
    cvss31: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    configurations: [
      ['1.0.1', '1.0.1a', '1.0.1b', '1.0.1c', '1.0.1d', '1.0.1e', '1.0.1f'].map(
        (version) => `cpe:2.3:a:openssl:openssl:${version}:*:*:*:*:*:*:*`,
      ),
    ],
    references: [
      ['https://www.openssl.org/news/secadv/20140407.txt', 'Vendor Advisory'],
      ['http://heartbleed.com/', 'Third Party Advisory'],
    ],
    kev: ['2022-05-04', '2022-05-25', APPLY_UPDATES, 'OpenSSL Information Disclosure Vulnerability'],
  },
  {
    id: 'CVE-2024-6387',
    source: 'secalert@redhat.com',
    published: '2024-07-01T00:00:00.000',
    description:
      "A security regression (CVE-2006-5051) was discovered in OpenSSH's server (sshd). There is a race condition which can lead sshd to handle some signals in an unsafe manner. An unauthenticated, remote attacker may be able to trigger it by failing to authenticate within a set time period.",
    cwe: 'CWE-364',
    cvss31: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H',
    // Qualys' advisory: 8.5p1 <= OpenSSH < 9.8p1 is vulnerable (the regression's range).
    configurations: [[range('a:openbsd:openssh', { versionStartIncluding: '8.5', versionEndExcluding: '9.8' })]],
    references: [
      ['https://www.openssh.com/txt/release-9.8', 'Release Notes'],
      ['https://www.qualys.com/2024/07/01/cve-2024-6387/regresshion.txt', 'Third Party Advisory'],
    ],
  },
  {
    id: 'CVE-2020-1938',
    source: 'security@apache.org',
    published: '2020-02-24T00:00:00.000',
    description:
      'When using the Apache JServ Protocol (AJP), care must be taken when trusting incoming connections to Apache Tomcat. Tomcat treats AJP connections as having higher trust than, for example, a similar HTTP connection. If such connections are available to an attacker, they can be exploited in ways that may be surprising. In Apache Tomcat 9.0.0.M1 to 9.0.0.30, 8.5.0 to 8.5.50 and 7.0.0 to 7.0.99, Tomcat shipped with an AJP Connector enabled by default that listened on all configured IP addresses. It was expected (and recommended in the security guide) that this Connector would be disabled if not required.',
    cvss31: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    configurations: [
      [
        range('a:apache:tomcat', { versionStartIncluding: '7.0.0', versionEndIncluding: '7.0.99' }),
        range('a:apache:tomcat', { versionStartIncluding: '8.5.0', versionEndIncluding: '8.5.50' }),
        range('a:apache:tomcat', { versionStartIncluding: '9.0.0', versionEndIncluding: '9.0.30' }),
      ],
    ],
    references: [['https://tomcat.apache.org/security-9.html', 'Vendor Advisory']],
    kev: ['2022-03-03', '2022-03-17', APPLY_UPDATES, 'Apache Tomcat Improper Privilege Management Vulnerability'],
  },
  {
    id: 'CVE-2022-26134',
    source: 'security@atlassian.com',
    published: '2022-06-03T22:15:07.717',
    description:
      'In affected versions of Confluence Server and Data Center, an OGNL injection vulnerability exists that would allow an unauthenticated attacker to execute arbitrary code on a Confluence Server or Data Center instance. The affected versions are from 1.3.0 before 7.4.17, from 7.13.0 before 7.13.7, from 7.14.0 before 7.14.3, from 7.15.0 before 7.15.2, from 7.16.0 before 7.16.4, from 7.17.0 before 7.17.4, and from 7.18.0 before 7.18.1.',
    cwe: 'CWE-917',
    cvss31: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    configurations: [
      ['a:atlassian:confluence_data_center', 'a:atlassian:confluence_server'].flatMap((product) => [
        range(product, { versionStartIncluding: '1.3', versionEndExcluding: '7.4.17' }),
        range(product, { versionStartIncluding: '7.13.0', versionEndExcluding: '7.13.7' }),
        range(product, { versionStartIncluding: '7.14.0', versionEndExcluding: '7.14.3' }),
        range(product, { versionStartIncluding: '7.15.0', versionEndExcluding: '7.15.2' }),
        range(product, { versionStartIncluding: '7.16.0', versionEndExcluding: '7.16.4' }),
        range(product, { versionStartIncluding: '7.17.0', versionEndExcluding: '7.17.4' }),
        `cpe:2.3:${product}:7.18.0:*:*:*:*:*:*:*`,
      ]),
    ],
    references: [
      [
        'https://confluence.atlassian.com/doc/confluence-security-advisory-2022-06-02-1130377146.html',
        'Vendor Advisory',
      ],
    ],
    kev: [
      '2022-06-02',
      '2022-06-06',
      'Immediately block all internet traffic to and from affected products AND apply the update per vendor instructions [https://confluence.atlassian.com/doc/confluence-security-advisory-2022-06-02-1130377146.html] OR remove the affected products by the due date on the right. Note: Once the update is successfully deployed, agencies can reassess the internet blocking rules.',
      'Atlassian Confluence Server and Data Center Remote Code Execution Vulnerability',
    ],
  },
  {
    id: 'CVE-2019-10149',
    source: 'secalert@redhat.com',
    published: '2019-06-05T14:29:11.293',
    description:
      'A flaw was found in Exim versions 4.87 to 4.91 (inclusive). Improper validation of recipient address in deliver_message() function in /src/deliver.c may lead to remote command execution.',
    cwe: 'CWE-78',
    cvss31: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    configurations: [[range('a:exim:exim', { versionStartIncluding: '4.87', versionEndIncluding: '4.91' })]],
    references: [
      [
        'http://packetstormsecurity.com/files/153218/Exim-4.9.1-Remote-Command-Execution.html',
        'Exploit',
        'Third Party Advisory',
        'VDB Entry',
      ],
    ],
    kev: ['2022-01-10', '2022-07-10', APPLY_UPDATES, 'Exim Mail Transfer Agent (MTA) Improper Input Validation'],
  },
  {
    id: 'CVE-2011-2523',
    source: 'secalert@redhat.com',
    published: '2019-11-27T21:15:12.387',
    description:
      'vsftpd 2.3.4 downloaded between 20110630 and 20110703 contains a backdoor which opens a shell on port 6200/tcp.',
    cwe: 'CWE-78',
    cvss31: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    configurations: [['cpe:2.3:a:vsftpd_project:vsftpd:2.3.4:*:*:*:*:*:*:*']],
    references: [['https://access.redhat.com/security/cve/cve-2011-2523', 'Third Party Advisory']],
  },
  {
    id: 'CVE-2015-3306',
    source: 'cve@mitre.org',
    published: '2015-05-18T15:59:10.743',
    description:
      'The mod_copy module in ProFTPD 1.3.5 allows remote attackers to read and write to arbitrary files via the site cpfr and site cpto commands.',
    cwe: 'CWE-284',
    configurations: [['cpe:2.3:a:proftpd:proftpd:1.3.5:*:*:*:*:*:*:*']],
    references: [['http://bugs.proftpd.org/show_bug.cgi?id=4169']],
  },
  {
    id: 'CVE-2018-13379',
    source: 'psirt@fortinet.com',
    published: '2019-06-04T21:29:00.233',
    description:
      'An Improper Limitation of a Pathname to a Restricted Directory ("Path Traversal") in Fortinet FortiOS 6.0.0 to 6.0.4, 5.6.3 to 5.6.7 and 5.4.6 to 5.4.12 and FortiProxy 2.0.0, 1.2.0 to 1.2.8, 1.1.0 to 1.1.6, 1.0.0 to 1.0.7 under SSL VPN web portal allows an unauthenticated attacker to download system files via special crafted HTTP resource requests.',
    cwe: 'CWE-22',
    cvss31: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    configurations: [
      [
        range('a:fortinet:fortiproxy', { versionEndExcluding: '1.2.9' }),
        'cpe:2.3:a:fortinet:fortiproxy:2.0.0:*:*:*:*:*:*:*',
        range('o:fortinet:fortios', { versionStartIncluding: '5.4.6', versionEndExcluding: '5.4.13' }),
        range('o:fortinet:fortios', { versionStartIncluding: '5.6.3', versionEndExcluding: '5.6.8' }),
        range('o:fortinet:fortios', { versionStartIncluding: '6.0.0', versionEndExcluding: '6.0.5' }),
      ],
    ],
    references: [['https://fortiguard.com/advisory/FG-IR-18-384', 'Mitigation', 'Vendor Advisory']],
    kev: ['2021-11-03', '2022-05-03', APPLY_UPDATES, 'Fortinet FortiOS SSL VPN Path Traversal Vulnerability'],
  },
  {
    id: 'CVE-2023-4966',
    source: 'secure@citrix.com',
    published: '2023-10-10T00:00:00.000',
    description:
      'Sensitive information disclosure in NetScaler ADC and NetScaler Gateway when configured as a Gateway (VPN virtual server, ICA Proxy, CVPN, RDP Proxy) or AAA virtual server.',
    cwe: 'CWE-119',
    cvss31: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    // Citrix' bulletin: 14.1 before 14.1-8.50, 13.1 before 13.1-49.15, 13.0 before 13.0-92.19;
    // 13.1-FIPS before 13.1-37.164; 12.1-FIPS and 12.1-NDcPP before 12.1-55.300.
    configurations: [
      [
        [`cpe:2.3:${NETSCALER}:*:*:*:*:-:*:*:*`, { versionStartIncluding: '13.0', versionEndExcluding: '13.0-92.19' }],
        [`cpe:2.3:${NETSCALER}:*:*:*:*:-:*:*:*`, { versionStartIncluding: '13.1', versionEndExcluding: '13.1-49.15' }],
        [`cpe:2.3:${NETSCALER}:*:*:*:*:-:*:*:*`, { versionStartIncluding: '14.1', versionEndExcluding: '14.1-8.50' }],
        [
          `cpe:2.3:${NETSCALER}:*:*:*:*:fips:*:*:*`,
          { versionStartIncluding: '13.1', versionEndExcluding: '13.1-37.164' },
        ],
        [
          `cpe:2.3:${NETSCALER}:*:*:*:*:fips:*:*:*`,
          { versionStartIncluding: '12.1', versionEndExcluding: '12.1-55.300' },
        ],
        [
          `cpe:2.3:${NETSCALER}:*:*:*:*:ndcpp:*:*:*`,
          { versionStartIncluding: '12.1', versionEndExcluding: '12.1-55.300' },
        ],
        range('a:citrix:netscaler_gateway', { versionStartIncluding: '13.0', versionEndExcluding: '13.0-92.19' }),
        range('a:citrix:netscaler_gateway', { versionStartIncluding: '13.1', versionEndExcluding: '13.1-49.15' }),
        range('a:citrix:netscaler_gateway', { versionStartIncluding: '14.1', versionEndExcluding: '14.1-8.50' }),
      ],
    ],
    references: [['https://support.citrix.com/article/CTX579459', 'Vendor Advisory']],
    kev: [
      '2023-10-18',
      '2023-11-08',
      'Apply mitigations and kill all active and persistent sessions per vendor instructions [https://www.netscaler.com/blog/news/cve-2023-4966-critical-security-update-now-available-for-netscaler-adc-and-netscaler-gateway/] OR discontinue use of the product if mitigations are unavailable.',
      'Citrix NetScaler ADC and NetScaler Gateway Buffer Overflow Vulnerability',
    ],
  },
];

/** One demo CVE as an NVD CVE API 2.0 `cve` object. */
export function nvdCveObject(cve: DemoCve): JsonObject {
  const cvss = cve.cvss31 ? parseCvssVector(cve.cvss31) : undefined;
  return {
    id: cve.id,
    sourceIdentifier: cve.source,
    published: cve.published,
    lastModified: cve.published,
    vulnStatus: 'Analyzed',
    cveTags: [],
    descriptions: [{ lang: 'en', value: cve.description }],
    metrics: cvss
      ? {
          cvssMetricV31: [
            {
              source: 'nvd@nist.gov',
              type: 'Primary',
              cvssData: cvss.cvss,
            },
          ],
        }
      : {},
    weaknesses: cve.cwe
      ? [{ source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: cve.cwe }] }]
      : [],
    configurations: cve.configurations.map((criteria) => ({
      nodes: [
        {
          operator: 'OR',
          negate: false,
          cpeMatch: criteria.map((criterion) => {
            const [text, bounds] = typeof criterion === 'string' ? [criterion, {}] : criterion;
            return { vulnerable: true, criteria: text, ...bounds };
          }),
        },
      ],
    })),
    references: cve.references.map(([url, ...tags]) => ({
      url,
      source: cve.source,
      ...(tags.length > 0 ? { tags } : {}),
    })),
    ...(cve.kev
      ? {
          cisaExploitAdd: cve.kev[0],
          cisaActionDue: cve.kev[1],
          cisaRequiredAction: cve.kev[2],
          cisaVulnerabilityName: cve.kev[3],
        }
      : {}),
  };
}

/** The `nist-nvd2` demo feed, converted as the adapter converts NVD API pages. */
export function demoNvdItems(): AdvisoryItem[] {
  return DEMO_NVD_CVES.flatMap((cve) => convertNvdValue({ cve: nvdCveObject(cve) }, undefined));
}

/** Apache's record of its two path traversal CVEs: the affected versions, no CPEs. */
function apacheRecord(id: string, published: string, versions: string[], title: string): JsonObject {
  const nvd = DEMO_NVD_CVES.find((cve) => cve.id === id)!;
  return {
    dataType: 'CVE_RECORD',
    dataVersion: '5.1',
    cveMetadata: { cveId: id, assignerShortName: 'apache', state: 'PUBLISHED', datePublished: published },
    containers: {
      cna: {
        providerMetadata: { orgId: 'f0158376-9dc2-43b6-827c-5f631a4d8d09', shortName: 'apache' },
        title,
        descriptions: [{ lang: 'en', value: nvd.description }],
        affected: [
          {
            vendor: 'Apache Software Foundation',
            product: 'Apache HTTP Server',
            versions: versions.map((version) => ({ version, status: 'affected' })),
            defaultStatus: 'unaffected',
          },
        ],
        problemTypes: [
          { descriptions: [{ lang: 'en', type: 'CWE', cweId: 'CWE-22', description: 'CWE-22 Path Traversal' }] },
        ],
        references: [{ url: 'https://httpd.apache.org/security/vulnerabilities_24.html', tags: ['vendor-advisory'] }],
      },
    },
  };
}

/**
 * CVE Jenkins published, with CISA's ADP container (Vulnrichment) that adds the CPE, CVSS and KEV
 * data: the CVE with no NVD record here, so its knowledge comes from the CVE 5 record.
 */
const JENKINS_CVE_2024_23897: JsonObject = {
  dataType: 'CVE_RECORD',
  dataVersion: '5.1',
  cveMetadata: {
    cveId: 'CVE-2024-23897',
    assignerOrgId: '39769cd5-e6e2-4dc8-927e-97b3aa056f5b',
    assignerShortName: 'jenkins',
    state: 'PUBLISHED',
    dateReserved: '2024-01-23T12:46:51.263Z',
    datePublished: '2024-01-24T17:52:22.842Z',
    dateUpdated: '2024-08-19T16:20:22.425Z',
  },
  containers: {
    cna: {
      providerMetadata: {
        orgId: '39769cd5-e6e2-4dc8-927e-97b3aa056f5b',
        shortName: 'jenkins',
        dateUpdated: '2024-04-15T15:06:41.647Z',
      },
      descriptions: [
        {
          lang: 'en',
          value:
            "Jenkins 2.441 and earlier, LTS 2.426.2 and earlier does not disable a feature of its CLI command parser that replaces an '@' character followed by a file path in an argument with the file's contents, allowing unauthenticated attackers to read arbitrary files on the Jenkins controller file system.",
        },
      ],
      affected: [
        {
          vendor: 'Jenkins Project',
          product: 'Jenkins',
          versions: [
            { status: 'unaffected', version: '0', lessThan: '1.606', versionType: 'maven' },
            { status: 'unaffected', version: '2.442', lessThan: '*', versionType: 'maven' },
            { status: 'unaffected', version: '2.426.3', lessThan: '2.426.*', versionType: 'maven' },
            { status: 'unaffected', version: '2.440.1', lessThan: '2.440.*', versionType: 'maven' },
          ],
          defaultStatus: 'affected',
        },
      ],
      references: [
        {
          url: 'https://www.jenkins.io/security/advisory/2024-01-24/#SECURITY-3314',
          name: 'Jenkins Security Advisory 2024-01-24',
          tags: ['vendor-advisory'],
        },
      ],
    },
    adp: [
      {
        title: 'CISA ADP Vulnrichment',
        providerMetadata: {
          orgId: '134c704f-9b21-4f2e-91b3-4a467353bcc0',
          shortName: 'CISA-ADP',
          dateUpdated: '2024-08-19T13:11:17.985Z',
        },
        metrics: [
          { cvssV3_1: parseCvssVector('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')!.cvss },
          {
            other: {
              type: 'kev',
              content: {
                dateAdded: '2024-08-19',
                reference:
                  'https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search_api_fulltext=CVE-2024-23897',
              },
            },
          },
        ],
        affected: [
          {
            vendor: 'jenkins',
            product: 'jenkins',
            cpes: ['cpe:2.3:a:jenkins:jenkins:*:*:*:*:*:*:*:*'],
            versions: [
              { status: 'unaffected', version: '0', lessThan: '1.606', versionType: 'maven' },
              { status: 'unaffected', version: '2.442', lessThan: '*', versionType: 'maven' },
              { status: 'unaffected', version: '2.426.3', lessThan: '2.427', versionType: 'maven' },
              { status: 'unaffected', version: '2.440.1', lessThan: '2.441', versionType: 'maven' },
            ],
            defaultStatus: 'affected',
          },
        ],
        problemTypes: [
          {
            descriptions: [
              {
                lang: 'en',
                type: 'CWE',
                cweId: 'CWE-27',
                description: "CWE-27 Path Traversal: 'dir/../../filename'",
              },
            ],
          },
        ],
      },
    ],
  },
};

/** The `mitre-cvelist-v5` demo feed, converted as the adapter converts CVE records. */
export function demoCve5Items(): AdvisoryItem[] {
  return [
    apacheRecord(
      'CVE-2021-41773',
      '2021-10-05T00:00:00.000Z',
      ['2.4.49'],
      'Path traversal and file disclosure vulnerability in Apache HTTP Server 2.4.49',
    ),
    apacheRecord(
      'CVE-2021-42013',
      '2021-10-07T00:00:00.000Z',
      ['2.4.49', '2.4.50'],
      'Path Traversal and Remote Code Execution in Apache HTTP Server 2.4.49 and 2.4.50 (incomplete fix of CVE-2021-41773)',
    ),
    JENKINS_CVE_2024_23897,
  ].map((value) => {
    const record = convertCveRecord(value);
    return { kind: 'record' as const, record, sourceId: record.cveMetadata.cveId };
  });
}

/**
 * NVD CPE dictionary products for every demo product version (so CPE search lists versions with
 * no CVE too), and nginx's renames as the dictionary records them (igor_sysoev:nginx deprecated by
 * nginx:nginx, deprecated by f5:nginx).
 */
export function demoCpeDictionary(): JsonObject[] {
  const products: JsonObject[] = DEMO_SERVICES.map((service) => {
    const [, , , , version, update] = service.cpe.split(':');
    const shown = update && update !== '*' ? `${version} ${update}` : version;
    return {
      cpe: { cpeName: service.cpe, deprecated: false, titles: [{ title: `${service.product} ${shown}`, lang: 'en' }] },
    };
  });
  const nginx = (vendor: string, title: string, by?: string): JsonObject => ({
    cpe: {
      cpeName: `cpe:2.3:a:${vendor}:nginx:1.18.0:*:*:*:*:*:*:*`,
      deprecated: by !== undefined,
      ...(by ? { deprecatedBy: [{ cpeName: `cpe:2.3:a:${by}:nginx:1.18.0:*:*:*:*:*:*:*` }] } : {}),
      titles: [{ title: `${title} 1.18.0`, lang: 'en' }],
    },
  });
  const current = products.filter((p) => !String((p.cpe as JsonObject).cpeName).includes(':igor_sysoev:'));
  return [
    ...current,
    nginx('igor_sysoev', 'Igor Sysoev Nginx', 'nginx'),
    nginx('nginx', 'Nginx', 'f5'),
    nginx('f5', 'F5 Nginx'),
  ];
}
