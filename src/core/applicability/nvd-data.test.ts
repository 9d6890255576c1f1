/**
 * Real NVD records (test/fixtures/nvd, 29 CVE API 2.0 `cve` objects) stored the way the advisory
 * store keeps them (the real nist-nvd2 conversion), evaluated against real-looking CPEs. Every
 * expected set below was derived by reading the records' `configurations`, not by running this code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCpe } from '../cpe.js';
import { convertNvdCve } from '../../ingest/advisories/nvd.js';
import { confirmedCves, evaluateMany } from './evaluate.js';
import { applicabilityOfRecord } from './extract.js';
import type { ContextCpe, CveApplicability } from './types.js';
import { fixture } from '../../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

const NVD_DIR = pathToFileURL(fixture('nvd/'));

function loadNvd(): CveApplicability[] {
  const files = readdirSync(NVD_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort();
  expect(files).toHaveLength(29);
  return files
    .map((name) =>
      applicabilityOfRecord(convertNvdCve(JSON.parse(readFileSync(new URL(name, NVD_DIR), 'utf8'))), 'nist-nvd2'),
    )
    .filter((app): app is CveApplicability => app !== undefined);
}

const APPS = loadNvd();

const fingerprint = (cpe: string, alias?: string): ContextCpe => ({
  cpe,
  wfn: parseCpe(alias ?? cpe),
  role: 'fingerprint',
  ...(alias ? { alias } : {}),
});
const os = (cpe: string): ContextCpe => ({ cpe, wfn: parseCpe(cpe), role: 'os' });
const fp = (short: string) => fingerprint(`cpe:2.3:${short}`);

interface Row {
  rule: string;
  context: ContextCpe[];
  /** CVEs with confirmed evidence. */
  confirmed: string[];
  /** CVEs with any evidence (confirmed or not); defaults to `confirmed`. */
  evidence?: string[];
}

describe('real NVD configurations: exact CVE sets for real CPEs', () => {
  it('loads 28 records with configurations (CVE-2024-38476 is awaiting analysis, without any)', () => {
    expect(APPS).toHaveLength(28);
    expect(APPS.map((app) => app.cveId)).not.toContain('CVE-2024-38476');
  });

  const rows: Row[] = [
    // OpenSSH: CVE-2021-41617 is >= 6.2, < 8.8 on openbsd:openssh; the update p1 is folded into the version.
    {
      rule: 'openssh 8.5 p1 lies in CVE-2021-41617 [6.2, 8.8)',
      context: [fp('a:openbsd:openssh:8.5:p1:*:*:*:*:*:*')],
      confirmed: ['CVE-2021-41617'],
    },
    {
      rule: 'openssh 8.8 p1 is past versionEndExcluding 8.8',
      context: [fp('a:openbsd:openssh:8.8:p1:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'openssh 6.2 (no update) is at versionStartIncluding',
      context: [fp('a:openbsd:openssh:6.2:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2021-41617'],
    },
    // Apache httpd: no record here has an apache:http_server criterion (CVE-2024-38476 has no configurations; oracle:http_server is another product).
    {
      rule: 'apache http_server 2.4.49: no NVD criterion in this set',
      context: [fp('a:apache:http_server:2.4.49:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    // nginx: CVE-2013-2028 >= 1.3.9, <= 1.4.0; CVE-2021-23017 >= 0.6.18, < 1.20.1 (both f5:nginx).
    {
      rule: 'nginx 1.20.0: CVE-2021-23017 only',
      context: [fp('a:f5:nginx:1.20.0:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2021-23017'],
    },
    {
      rule: 'nginx 1.4.0: at CVE-2013-2028 versionEndIncluding, and inside CVE-2021-23017',
      context: [fp('a:f5:nginx:1.4.0:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2013-2028', 'CVE-2021-23017'],
    },
    {
      rule: 'nginx 1.20.1: at CVE-2021-23017 versionEndExcluding',
      context: [fp('a:f5:nginx:1.20.1:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'nginx under its old vendor name matches nothing by itself',
      context: [fp('a:igor_sysoev:nginx:1.4.0:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'nginx under its old vendor name, followed through the rename',
      context: [
        fingerprint('cpe:2.3:a:igor_sysoev:nginx:1.4.0:*:*:*:*:*:*:*', 'cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*'),
      ],
      confirmed: ['CVE-2013-2028', 'CVE-2021-23017'],
    },
    // OpenSSL: CVE-2022-3602 is >= 3.0.0, < 3.0.7. NVD's match-criteria data
    // (cpe/nvd_cpematch_api2_samples.jsonl) expands this criterion to 3.0.0:alpha1 … 3.0.0:beta2 as
    // well, but §3.3 orders a pre-release before its release (3.0.0-beta1 < 3.0.0), so we follow the
    // version ordering: the 3.0.0 alphas and betas are outside [3.0.0, 3.0.7).
    {
      rule: 'OpenSSL 3.0.6 lies in CVE-2022-3602 [3.0.0, 3.0.7)',
      context: [fp('a:openssl:openssl:3.0.6:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2022-3602'],
    },
    {
      rule: 'OpenSSL 3.0.0 with update NA is the release 3.0.0: inside',
      context: [fp('a:openssl:openssl:3.0.0:-:*:*:*:*:*:*')],
      confirmed: ['CVE-2022-3602'],
    },
    {
      rule: 'OpenSSL 3.0.7 is at versionEndExcluding',
      context: [fp('a:openssl:openssl:3.0.7:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: "OpenSSL 3.0.0 beta1 sorts before 3.0.0: outside (unlike NVD's expansion)",
      context: [fp('a:openssl:openssl:3.0.0:beta1:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'OpenSSL 3.0.0-alpha17 (pre-release in the version) sorts before 3.0.0: outside',
      context: [fp('a:openssl:openssl:3.0.0-alpha17:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    // FortiOS: CVE-2018-13379 [5.4.6,5.4.13) [5.6.3,5.6.8) [6.0.0,6.0.5); CVE-2022-40684 [7.0.0,7.0.7) [7.2.0,7.2.2);
    // CVE-2024-23113 [7.0.0,7.0.13] [7.2.0,7.2.6] [7.4.0,7.4.2].
    {
      rule: 'FortiOS 7.2.0',
      context: [fp('o:fortinet:fortios:7.2.0:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2022-40684', 'CVE-2024-23113'],
    },
    {
      rule: 'FortiOS 7.2.2: past CVE-2022-40684, inside CVE-2024-23113',
      context: [fp('o:fortinet:fortios:7.2.2:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2024-23113'],
    },
    {
      rule: 'FortiOS 7.0.13: at CVE-2024-23113 versionEndIncluding',
      context: [fp('o:fortinet:fortios:7.0.13:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2024-23113'],
    },
    {
      rule: 'FortiOS 7.0.14: past every range',
      context: [fp('o:fortinet:fortios:7.0.14:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'FortiOS 6.0.4: CVE-2018-13379',
      context: [fp('o:fortinet:fortios:6.0.4:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2018-13379'],
    },
    // NetScaler ADC: CVE-2023-3519 sw_edition "-" [13.1, 13.1-49.13), CVE-2023-4966 sw_edition "-" [13.1, 13.1-49.15);
    // the fips/ndcpp editions have their own ranges. netscaler_gateway criteria have sw_edition ANY.
    {
      rule: 'NetScaler ADC 13.1-49.13 (standard edition): at CVE-2023-3519 versionEndExcluding, inside CVE-2023-4966',
      context: [fp('a:citrix:netscaler_application_delivery_controller:13.1-49.13:*:*:*:-:*:*:*')],
      confirmed: ['CVE-2023-4966'],
    },
    {
      rule: 'NetScaler ADC 13.1-49.12 (standard edition): both',
      context: [fp('a:citrix:netscaler_application_delivery_controller:13.1-49.12:*:*:*:-:*:*:*')],
      confirmed: ['CVE-2023-3519', 'CVE-2023-4966'],
    },
    {
      rule: 'NetScaler ADC 13.1-49.12 FIPS: past the fips ranges (13.1-37.159 / 13.1-37.164)',
      context: [fp('a:citrix:netscaler_application_delivery_controller:13.1-49.12:*:*:*:fips:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'NetScaler ADC 13.1-49.12 with the edition unknown: possible, not confirmed',
      context: [fp('a:citrix:netscaler_application_delivery_controller:13.1-49.12:*:*:*:*:*:*:*')],
      confirmed: [],
      evidence: ['CVE-2023-3519', 'CVE-2023-4966'],
    },
    {
      rule: 'NetScaler Gateway 13.1-49.12: both',
      context: [fp('a:citrix:netscaler_gateway:13.1-49.12:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2023-3519', 'CVE-2023-4966'],
    },
    {
      rule: 'NetScaler Gateway 14.1-8.50: at CVE-2023-4966 versionEndExcluding',
      context: [fp('a:citrix:netscaler_gateway:14.1-8.50:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'NetScaler Gateway 14.1-8.49',
      context: [fp('a:citrix:netscaler_gateway:14.1-8.49:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2023-4966'],
    },
    // AND configuration of CVE-2021-41617: AND[OR[h:netapp:aff_a250:- platform], OR[o:netapp:aff_a250_firmware:- vulnerable]].
    {
      rule: 'AND: the firmware without its hardware platform in the context is conditional',
      context: [fp('o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*')],
      confirmed: [],
      evidence: ['CVE-2021-41617'],
    },
    {
      rule: 'AND: the firmware with its hardware platform is satisfied',
      context: [fp('o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*'), fp('h:netapp:aff_a250:-:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2021-41617'],
    },
    {
      rule: 'AND: another hardware model is not the platform',
      context: [fp('o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*'), fp('h:netapp:aff_500f:-:*:*:*:*:*:*:*')],
      confirmed: [],
      evidence: ['CVE-2021-41617'],
    },
    {
      rule: 'AND: the hardware platform alone is not vulnerable',
      context: [fp('h:netapp:aff_a250:-:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    // Exchange: CVE-2021-26855 (2013 cu21–23, 2016 cu8–19, 2019 "-" and cu1–8), CVE-2021-34473 (2013 cu23, 2016 cu19–20,
    // 2019 cu8–9), CVE-2022-41082 (2013 cu23, 2016 cu22–23, 2019 cu11–12).
    {
      rule: 'Exchange 2016 CU19',
      context: [fp('a:microsoft:exchange_server:2016:cumulative_update_19:*:*:*:*:*:*')],
      confirmed: ['CVE-2021-26855', 'CVE-2021-34473'],
    },
    {
      rule: 'Exchange 2013 CU23',
      context: [fp('a:microsoft:exchange_server:2013:cumulative_update_23:*:*:*:*:*:*')],
      confirmed: ['CVE-2021-26855', 'CVE-2021-34473', 'CVE-2022-41082'],
    },
    {
      rule: 'Exchange 2019 RTM (update NA)',
      context: [fp('a:microsoft:exchange_server:2019:-:*:*:*:*:*:*')],
      confirmed: ['CVE-2021-26855'],
    },
    {
      rule: 'Exchange 2016 with the CU unknown: possible only',
      context: [fp('a:microsoft:exchange_server:2016:*:*:*:*:*:*:*')],
      confirmed: [],
      evidence: ['CVE-2021-26855', 'CVE-2021-34473', 'CVE-2022-41082'],
    },
    // log4j CVE-2021-44832: [2.0.1,2.3.2) [2.4,2.12.4) [2.13.0,2.17.1), 2.0:-, 2.0:beta7–9, 2.0:rc1–2.
    {
      rule: 'log4j 2.0 beta9 (listed)',
      context: [fp('a:apache:log4j:2.0:beta9:*:*:*:*:*:*')],
      confirmed: ['CVE-2021-44832'],
    },
    { rule: 'log4j 2.17.0', context: [fp('a:apache:log4j:2.17.0:*:*:*:*:*:*:*')], confirmed: ['CVE-2021-44832'] },
    {
      rule: 'log4j 2.3.2: at versionEndExcluding, below the next range',
      context: [fp('a:apache:log4j:2.3.2:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'log4j 2.0 with the update unknown: every 2.0 criterion names an update, so possible only',
      context: [fp('a:apache:log4j:2.0:*:*:*:*:*:*:*')],
      confirmed: [],
      evidence: ['CVE-2021-44832'],
    },
    // Tomcat CVE-2025-24813: [9.0.1,9.0.99) [10.1.1,10.1.35) [11.0.1,11.0.3), and milestones of 9.0.0, 10.1.0, 11.0.0.
    { rule: 'Tomcat 9.0.98', context: [fp('a:apache:tomcat:9.0.98:*:*:*:*:*:*:*')], confirmed: ['CVE-2025-24813'] },
    { rule: 'Tomcat 9.0.99', context: [fp('a:apache:tomcat:9.0.99:*:*:*:*:*:*:*')], confirmed: [] },
    {
      rule: 'Tomcat 9.0.0 milestone5 (listed update)',
      context: [fp('a:apache:tomcat:9.0.0:milestone5:*:*:*:*:*:*')],
      confirmed: ['CVE-2025-24813'],
    },
    // Ivanti CVE-2025-0282: connect_secure 22.7 r2, r2.1–r2.4.
    {
      rule: 'Ivanti Connect Secure 22.7R2.3',
      context: [fp('a:ivanti:connect_secure:22.7:r2.3:*:*:*:*:*:*')],
      confirmed: ['CVE-2025-0282'],
    },
    {
      rule: 'Ivanti Connect Secure 22.7R2.5 is not listed',
      context: [fp('a:ivanti:connect_secure:22.7:r2.5:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'Ivanti Connect Secure written 22.7r2.4 in the version',
      context: [fp('a:ivanti:connect_secure:22.7r2.4:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2025-0282'],
    },
    // Jenkins CVE-2024-23897: sw_edition lts < 2.426.3, sw_edition "-" < 2.442.
    {
      rule: 'Jenkins LTS 2.426.2',
      context: [fp('a:jenkins:jenkins:2.426.2:*:*:*:lts:*:*:*')],
      confirmed: ['CVE-2024-23897'],
    },
    { rule: 'Jenkins weekly 2.442', context: [fp('a:jenkins:jenkins:2.442:*:*:*:-:*:*:*')], confirmed: [] },
    // MySQL CVE-2012-2122: exact versions incl. 5.1.52 and 5.1.52:sp1.
    { rule: 'MySQL 5.1.52 sp1', context: [fp('a:oracle:mysql:5.1.52:sp1:*:*:*:*:*:*')], confirmed: ['CVE-2012-2122'] },
    { rule: 'MySQL 5.1.50 is not listed', context: [fp('a:oracle:mysql:5.1.50:*:*:*:*:*:*:*')], confirmed: [] },
    // Confluence: CVE-2022-26134, CVE-2023-22515 [8.5.0,8.5.2), CVE-2023-22527 [8.0.0,8.5.4) and data center 8.7.0.
    {
      rule: 'Confluence Server 8.5.1',
      context: [fp('a:atlassian:confluence_server:8.5.1:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2023-22515', 'CVE-2023-22527'],
    },
    {
      rule: 'Confluence Data Center 8.7.0 (exact criterion)',
      context: [fp('a:atlassian:confluence_data_center:8.7.0:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2023-22527'],
    },
    // Distribution OS CPEs are vulnerable criteria in NVD's analysis: they count when a service reports them.
    {
      rule: 'Debian 9 (criteria say 9.0; 9 == 9.0)',
      context: [fp('o:debian:debian_linux:9:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2011-2523', 'CVE-2019-10149', 'CVE-2021-44832'],
    },
    {
      rule: "Debian 9 as the host's OS guess adds no CVE to a service",
      context: [os('cpe:2.3:o:debian:debian_linux:9:*:*:*:*:*:*:*')],
      confirmed: [],
    },
    {
      rule: 'the firmware on the port, its hardware from the OS guess: satisfied',
      context: [fp('o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*'), os('cpe:2.3:h:netapp:aff_a250:-:*:*:*:*:*:*:*')],
      confirmed: ['CVE-2021-41617'],
    },
    {
      // Fedora 34's own CVE (CVE-2021-44832) is not the services' CVE.
      rule: 'a host: openssh 8.5p1 and nginx 1.20.0 on Fedora 34',
      context: [
        fp('a:openbsd:openssh:8.5:p1:*:*:*:*:*:*'),
        fp('a:f5:nginx:1.20.0:*:*:*:*:*:*:*'),
        os('cpe:2.3:o:fedoraproject:fedora:34:*:*:*:*:*:*:*'),
      ],
      confirmed: ['CVE-2021-23017', 'CVE-2021-41617'],
    },
  ];

  it.each(rows)('$rule', ({ context, confirmed, evidence }) => {
    const byCve = evaluateMany(APPS, context);
    expect(confirmedCves(byCve)).toEqual(confirmed);
    expect([...byCve.keys()]).toEqual(evidence ?? confirmed);
  });

  it('CVE-2023-3519 evidence for an unknown edition names the gap', () => {
    const byCve = evaluateMany(APPS, [
      fp('a:citrix:netscaler_application_delivery_controller:13.1-49.12:*:*:*:*:*:*:*'),
    ]);
    expect(byCve.get('CVE-2023-3519')).toEqual([
      expect.objectContaining({
        criterion: 'cpe:2.3:a:citrix:netscaler_application_delivery_controller:*:*:*:*:-:*:*:*',
        range: '>= 13.1, < 13.1-49.13',
        kind: 'version_range',
        configuration: 'conditional',
        confidence: 'low',
        confirmed: false,
        unknownAttributes: ['sw_edition'],
      }),
    ]);
  });
});
