import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { feedProvenance } from '../../core/advisory/provenance.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems } from '../../../test/support/contract.js';
import { collect, zipOf } from '../../../test/support/streams.js';
import { affectedFromConfigurations, nistNvd2 } from './nvd.js';
import type { AdvisoryItem, AdvisoryRecord, JsonObject } from './types.js';
import { fixture } from '../../../test/support/fixtures.js';

const NVD_FEED = feedProvenance('nist-nvd2');
const NVD_DIR = fixture('nvd');
const cna = (r: AdvisoryRecord) => r.containers.cna as JsonObject;
const records = (items: AdvisoryItem[]) => items.filter((i) => i.kind === 'record').map((i) => i.record);
const cveFiles = () => fs.readdirSync(NVD_DIR).sort();
const cveObject = (file: string) => JSON.parse(fs.readFileSync(`${NVD_DIR}/${file}`, 'utf8')) as JsonObject;

describe('nist-nvd2 on a directory of NVD CVE API 2.0 cve objects (29 files)', () => {
  let byId: Map<string, AdvisoryRecord>;
  let items: AdvisoryItem[];
  beforeAll(async () => {
    items = await collect(nistNvd2(NVD_DIR, 'nist-nvd2'));
    byId = new Map(records(items).map((r) => [r.cveMetadata.cveId, r]));
  });

  it('converts all 29, none rejected, each valid against advisory.MitreCVEListV5Ref', () => {
    expect(records(items)).toHaveLength(29);
    expect(items.filter((i) => i.kind === 'rejected')).toEqual([]);
    for (const r of records(items)) expect(contractProblems(r), r.cveMetadata.cveId).toEqual([]);
    expect(items.map((i) => i.sourceId)).toEqual(cveFiles().map((f) => f.replace('.json', '')));
  });

  it('keeps configurations verbatim (x_nvdConfigurations) and as advisory.CustomCPE (cpeApplicability)', () => {
    for (const file of cveFiles()) {
      const raw = cveObject(file);
      const c = cna(byId.get(raw.id as string)!);
      if (raw.configurations === undefined) {
        expect(c.cpeApplicability).toBeUndefined();
        expect(c.x_nvdConfigurations).toBeUndefined();
        continue;
      }
      expect(c.x_nvdConfigurations).toEqual(raw.configurations);
      expect(c.cpeApplicability).toEqual((raw.configurations as JsonObject[]).map((m) => ({ mcpeapplicability: m })));
    }
    const and = (cna(byId.get('CVE-2021-41617')!).cpeApplicability as JsonObject[])[3]!.mcpeapplicability as JsonObject;
    expect(and.operator).toBe('AND');
    expect((and.nodes as JsonObject[]).map((n) => (n.cpeMatch as JsonObject[])[0]!.vulnerable)).toEqual([false, true]);
  });

  it('CVE-2021-44832: metadata, references, CWEs, CVSS v3.1 + v2, derived affected', () => {
    const r = byId.get('CVE-2021-44832')!;
    expect(r.cveMetadata).toEqual({
      cveId: 'CVE-2021-44832',
      state: 'PUBLISHED',
      datePublished: '2021-12-28T20:15:08.400Z',
      dateUpdated: '2026-05-29T20:16:21.410Z',
      assignerOrgId: NVD_FEED.orgId,
    });
    const c = cna(r);
    expect(c.x_sourceIdentifier).toBe('security@apache.org');
    expect(c.x_vulnStatus).toBe('Modified');
    expect((c.descriptions as JsonObject[]).map((d) => d.lang)).toEqual(['en', 'es']);
    expect((c.references as JsonObject[]).length).toBe(24);
    expect(c.problemTypes).toEqual([
      {
        descriptions: [
          { lang: 'en', description: 'CWE-20', cweId: 'CWE-20', type: 'CWE' },
          { lang: 'en', description: 'CWE-74', cweId: 'CWE-74', type: 'CWE' },
        ],
        x_source: 'security@apache.org',
        x_type: 'Secondary',
      },
      {
        descriptions: [{ lang: 'en', description: 'CWE-20', cweId: 'CWE-20', type: 'CWE' }],
        x_source: 'nvd@nist.gov',
        x_type: 'Primary',
      },
    ]);
    const metrics = c.metrics as JsonObject[];
    expect(metrics.map((m) => Object.keys(m).find((k) => k.startsWith('cvss')))).toEqual([
      'cvssV3_1',
      'cvssV3_1',
      'cvssV2_0',
    ]);
    expect(metrics[0]).toMatchObject({
      format: 'CVSS',
      cvssV3_1: { version: '3.1', baseScore: 6.6, baseSeverity: 'MEDIUM', attackComplexity: 'HIGH' },
      x_nvd: { source: 'nvd@nist.gov', type: 'Primary', exploitabilityScore: 0.7, impactScore: 5.9 },
    });
    expect(metrics[2]).toMatchObject({
      cvssV2_0: { baseScore: 8.5, accessComplexity: 'MEDIUM', attackComplexity: 'MEDIUM' },
      x_nvd: { baseSeverity: 'HIGH', acInsufInfo: false },
    });
    const log4j = (c.affected as JsonObject[])[0]!;
    expect(log4j).toMatchObject({
      vendor: 'apache',
      product: 'log4j',
      defaultStatus: 'unaffected',
      x_source: 'nvd@nist.gov',
    });
    expect(log4j.versions).toEqual([
      { version: '2.0.1', status: 'affected', lessThan: '2.3.2', versionType: 'custom' },
      { version: '2.4', status: 'affected', lessThan: '2.12.4', versionType: 'custom' },
      { version: '2.13.0', status: 'affected', lessThan: '2.17.1', versionType: 'custom' },
      { version: '2.0', status: 'affected' },
      { version: '2.0-beta7', status: 'affected' },
      { version: '2.0-beta8', status: 'affected' },
      { version: '2.0-beta9', status: 'affected' },
      { version: '2.0-rc1', status: 'affected' },
      { version: '2.0-rc2', status: 'affected' },
    ]);
    expect((log4j.cpes as string[])[0]).toBe('cpe:2.3:a:apache:log4j:*:*:*:*:*:*:*:*');
  });

  it('maps reference tags to the CVE 5 vocabulary and keeps NVD tags and source', () => {
    const ref = (cna(byId.get('CVE-2021-41617')!).references as JsonObject[]).find(
      (r) => r.url === 'https://www.openssh.com/txt/release-8.8',
    );
    expect(ref).toEqual({
      url: 'https://www.openssh.com/txt/release-8.8',
      tags: ['release-notes', 'vendor-advisory'],
      x_nvdTags: ['Release Notes', 'Vendor Advisory'],
      x_source: 'cve@mitre.org',
    });
  });

  it('CISA KEV fields → x_cisaKev; cveTags → tags; SSVC → metrics other', () => {
    expect(cna(byId.get('CVE-2021-26855')!).x_cisaKev).toEqual({
      cisaExploitAdd: '2021-11-03',
      cisaActionDue: '2021-04-16',
      cisaRequiredAction: 'Apply updates per vendor instructions.',
      cisaVulnerabilityName: 'Microsoft Exchange Server Remote Code Execution Vulnerability',
    });
    expect(records(items).filter((r) => cna(r).x_cisaKev)).toHaveLength(18);
    expect(cna(byId.get('CVE-2019-9193')!).tags).toEqual(['disputed']);
    expect(cna(byId.get('CVE-2019-9193')!).x_nvdCveTags).toEqual([
      { sourceIdentifier: 'cve@mitre.org', tags: ['disputed'] },
    ]);
    expect((cna(byId.get('CVE-2015-3306')!).metrics as JsonObject[]).find((m) => m.other)).toEqual({
      other: {
        type: 'ssvc',
        content: {
          timestamp: '2026-10-08T17:40:17.854858Z',
          id: 'CVE-2015-3306',
          options: [{ exploitation: 'active' }, { automatable: 'no' }, { technicalImpact: 'total' }],
          role: 'CISA Coordinator',
          version: '2.0.3',
        },
      },
      x_nvd: { source: '134c704f-9b21-4f2e-91b3-4a467353bcc0' },
    });
  });

  it('relays the CNA affected data NVD carries, before its own CPE-derived entries', () => {
    const affected = cna(byId.get('CVE-2011-2523')!).affected as JsonObject[];
    expect(affected[0]).toEqual({
      vendor: 'vsftpd',
      product: 'vsftpd',
      versions: [{ version: '2.3.4 downloaded between 20110630 and 20110703', status: 'affected' }],
      x_source: 'secalert@redhat.com',
    });
    expect(affected.slice(1).map((a) => `${a.vendor}:${a.product}`)).toEqual([
      'vsftpd_project:vsftpd',
      'debian:debian_linux',
    ]);
  });

  it('a UUID source identifier is the assignerOrgId; an email is not a short name', () => {
    expect(byId.get('CVE-2025-0282')!.cveMetadata.assignerOrgId).toBe('3c1d8aa1-5a33-4ea4-8992-aadd6440af75');
    // The container holds NVD's analysis beside the CNA's data: its provider is the feed.
    expect(cna(byId.get('CVE-2025-0282')!).providerMetadata).toEqual({
      dateUpdated: '2025-10-24T13:54:58.783Z',
      ...NVD_FEED,
    });
    // An e-mail names no org id: the assigner is the feed.
    expect(byId.get('CVE-2021-44832')!.cveMetadata.assignerOrgId).toBe(NVD_FEED.orgId);
    expect(cna(byId.get('CVE-2021-44832')!).x_sourceIdentifier).toBe('security@apache.org');
    expect(byId.get('CVE-2021-44832')!.cveMetadata.assignerShortName).toBeUndefined();
    expect(NVD_FEED).toEqual({ orgId: 'df30bc48-3ff2-527d-8de7-1b477a9f3828', shortName: 'nist-nvd2' });
  });

  it('a record without configurations or metrics (CVE-2024-38476)', () => {
    const c = cna(byId.get('CVE-2024-38476')!);
    expect(c.metrics).toBeUndefined();
    expect(c.affected).toBeUndefined();
    expect(c.x_vulnStatus).toBe('Awaiting Analysis');
  });
});

describe('nist-nvd2 inputs and failures', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'advisory-nvd-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, data: string | Buffer) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, data);
    return file;
  };
  const page = (cves: JsonObject[]) =>
    JSON.stringify({
      resultsPerPage: cves.length,
      startIndex: 0,
      totalResults: cves.length,
      format: 'NVD_CVE',
      version: '2.0',
      timestamp: '2025-01-01T00:00:00.000',
      vulnerabilities: cves.map((cve) => ({ cve })),
    });

  it('reads a gzipped API page (streaming vulnerabilities[]) with all 29 records', async () => {
    const file = write('page.json.gz', gzipSync(page(cveFiles().map(cveObject))));
    const items = await collect(nistNvd2(file, 'nist-nvd2'));
    expect(records(items).map((r) => r.cveMetadata.cveId)).toEqual(cveFiles().map((f) => f.replace('.json', '')));
    expect(items[3]).toMatchObject({ kind: 'record', sourceId: 'CVE-2015-1427' });
  });

  it('reads JSON Lines of {cve} and a zip of cve files', async () => {
    const lines = cveFiles()
      .slice(0, 3)
      .map((f) => JSON.stringify({ cve: cveObject(f) }));
    expect(
      records(await collect(nistNvd2(write('feed.jsonl', lines.join('\n')), 'nist-nvd2'))).map(
        (r) => r.cveMetadata.cveId,
      ),
    ).toEqual(['CVE-2011-2523', 'CVE-2012-2122', 'CVE-2013-2028']);
    const zip = write(
      'nvd.zip',
      await zipOf(
        cveFiles()
          .slice(0, 2)
          .map((f) => [`CVE-2011/${f}`, JSON.stringify(cveObject(f))] as [string, string]),
      ),
    );
    expect(records(await collect(nistNvd2(zip, 'nist-nvd2'))).map((r) => r.cveMetadata.cveId)).toEqual([
      'CVE-2011-2523',
      'CVE-2012-2122',
    ]);
  });

  it('maps Rejected to REJECTED with reasons, and reports broken entries while going on', async () => {
    const rejectedCve = {
      id: 'CVE-2023-0001',
      sourceIdentifier: 'cve@mitre.org',
      published: '2023-01-01T00:00:00.000',
      lastModified: '2023-02-01T00:00:00.000',
      vulnStatus: 'Rejected',
      descriptions: [{ lang: 'en', value: 'Rejected reason: duplicate.' }],
      references: [],
      evaluatorComment: 'x',
    };
    const file = write(
      'mixed.json',
      page([
        cveObject('CVE-2011-2523.json'),
        { sourceIdentifier: 'x', descriptions: [] },
        rejectedCve,
        { id: 'CVE-2023-0002', vulnStatus: 'Analyzed', metrics: 'oops' },
      ]).replace('"vulnerabilities":[', '"vulnerabilities":[{"nope":1},'),
    );
    const items = await collect(nistNvd2(file, 'nist-nvd2'));
    expect(
      items.map((i) =>
        i.kind === 'record' ? i.sourceId : `${i.kind}:${i.sourceId}:${i.at.slice(dir.length)}:${i.reason}`,
      ),
    ).toEqual([
      `rejected::/mixed.json#/vulnerabilities/0:not an NVD CVE API 2.0 object (no cve, no id)`,
      'CVE-2011-2523',
      `rejected::/mixed.json#/vulnerabilities/2:NVD cve object without id`,
      'CVE-2023-0001',
      'CVE-2023-0002',
    ]);
    const rejected = records(items)[1]!;
    expect(rejected.cveMetadata.state).toBe('REJECTED');
    expect(cna(rejected).rejectedReasons).toEqual([{ lang: 'en', value: 'Rejected reason: duplicate.' }]);
    expect(cna(rejected).x_nvdEvaluatorComment).toBe('x');
    expect(cna(records(items)[2]!).x_nvdMetrics).toBe('oops');
    for (const r of records(items)) expect(contractProblems(r)).toEqual([]);
  });
});

describe('affectedFromConfigurations', () => {
  it('groups vulnerable criteria by vendor/product; an any-version criterion makes defaultStatus affected', () => {
    const configurations = [
      {
        operator: 'AND',
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [
              {
                vulnerable: true,
                criteria: 'cpe:2.3:a:acme:app:*:*:*:*:*:*:*:*',
                versionStartExcluding: '1.0',
                versionEndIncluding: '1.5',
              },
              { vulnerable: true, criteria: 'cpe:2.3:a:acme:app:*:*:*:*:*:*:*:*' },
              { vulnerable: true, criteria: 'cpe:2.3:a:acme:app:2\\.0:*:*:*:*:*:*:*' },
              { vulnerable: true, criteria: 'not a cpe' },
            ],
          },
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [{ vulnerable: false, criteria: 'cpe:2.3:o:linux:linux_kernel:-:*:*:*:*:*:*:*' }],
          },
        ],
      },
    ];
    expect(affectedFromConfigurations(configurations)).toEqual([
      {
        vendor: 'acme',
        product: 'app',
        cpes: ['cpe:2.3:a:acme:app:*:*:*:*:*:*:*:*', 'cpe:2.3:a:acme:app:2\\.0:*:*:*:*:*:*:*'],
        versions: [
          { version: '1.0', status: 'affected', lessThanOrEqual: '1.5', versionType: 'custom' },
          { version: '1.0', status: 'unaffected' },
          { version: '2.0', status: 'affected' },
        ],
        defaultStatus: 'affected',
        x_source: 'nvd@nist.gov',
      },
    ]);
  });
});
