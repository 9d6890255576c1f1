import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { feedProvenance } from '../../core/advisory/provenance.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems } from '../../../test/support/contract.js';
import { collect } from '../../../test/support/streams.js';
import { cisaKev, urlsInNotes } from './kev.js';
import type { AdvisoryItem, AdvisoryRecord, JsonObject } from './types.js';
import { fixture } from '../../../test/support/fixtures.js';

const KEV_FEED = feedProvenance('cisa-kev');
const KEV = fixture('feeds/cisa_kev_known_exploited_vulnerabilities.json.gz');
const cna = (r: AdvisoryRecord) => r.containers.cna as JsonObject;
const records = (items: AdvisoryItem[]) => items.filter((i) => i.kind === 'record').map((i) => i.record);

describe('cisa-kev on the catalog 2025.08.25 (1,404 entries)', () => {
  let items: AdvisoryItem[];
  let byId: Map<string, AdvisoryRecord>;
  beforeAll(async () => {
    items = await collect(cisaKev(KEV, 'cisa-kev'));
    byId = new Map(records(items).map((r) => [r.cveMetadata.cveId, r]));
  });

  it('yields one valid record per entry, in catalog order', () => {
    expect(items).toHaveLength(1404);
    expect(records(items)).toHaveLength(1404);
    expect(byId.size).toBe(1404);
    for (const r of records(items)) expect(contractProblems(r), r.cveMetadata.cveId).toEqual([]);
    expect(items[0]!.sourceId).toBe('CVE-2025-48384');
    expect(items[1403]!.sourceId).toBe('CVE-2020-29583');
  });

  it('CVE-2025-48384: dates, title, description, affected, references from notes, CWEs, x_kev', () => {
    const r = byId.get('CVE-2025-48384')!;
    expect(r.cveMetadata).toEqual({
      cveId: 'CVE-2025-48384',
      state: 'PUBLISHED',
      datePublished: '2025-08-25T00:00:00Z',
      dateUpdated: '2025-08-25T17:04:19.9796Z',
      assignerOrgId: KEV_FEED.orgId,
    });
    const c = cna(r);
    // The catalog names no CVE org: assigner and provider are the feed (its v5 UUID and short name).
    expect(c.providerMetadata).toEqual({ dateUpdated: '2025-08-25T17:04:19.9796Z', ...KEV_FEED });
    expect(KEV_FEED).toEqual({ orgId: 'e90e4dbb-2229-5f9f-9454-7616ddf82fc9', shortName: 'cisa-kev' });
    expect(c.title).toBe('Git Link Following Vulnerability');
    expect(c.descriptions).toEqual([
      {
        lang: 'en',
        value:
          'Git contains a link following vulnerability that stems from Git’s inconsistent handling of carriage return characters in configuration files.',
      },
    ]);
    expect(c.affected).toEqual([{ vendor: 'Git', product: 'Git' }]);
    expect((c.references as JsonObject[]).map((x) => x.url)).toEqual([
      'https://github.com/git/git/security/advisories/GHSA-vwqx-4fm8-6qc9',
      'https://access.redhat.com/errata/RHSA-2025:13933',
      'https://alas.aws.amazon.com/AL2/ALAS2-2025-2941.html',
      'https://linux.oracle.com/errata/ELSA-2025-11534.html',
      'https://msrc.microsoft.com/update-guide/vulnerability/CVE-2025-48384',
      'https://nvd.nist.gov/vuln/detail/CVE-2025-48384',
    ]);
    expect(c.problemTypes).toEqual([
      {
        descriptions: [
          { lang: 'en', type: 'CWE', cweId: 'CWE-59', description: 'CWE-59' },
          { lang: 'en', type: 'CWE', cweId: 'CWE-436', description: 'CWE-436' },
        ],
      },
    ]);
    expect(c.x_kev).toMatchObject({
      dateAdded: '2025-08-25',
      dueDate: '2025-09-15',
      knownRansomwareCampaignUse: 'Unknown',
      cwes: ['CWE-59', 'CWE-436'],
      vulnerabilityName: 'Git Link Following Vulnerability',
      catalogVersion: '2025.08.25',
    });
    expect(Object.keys(c.x_kev as JsonObject).sort()).toEqual([
      'catalogVersion',
      'cwes',
      'dateAdded',
      'dueDate',
      'knownRansomwareCampaignUse',
      'notes',
      'requiredAction',
      'vulnerabilityName',
    ]);
  });

  it('CVE-2021-44228 (Log4Shell): known ransomware use, three CWEs', () => {
    const c = cna(byId.get('CVE-2021-44228')!);
    expect(byId.get('CVE-2021-44228')!.cveMetadata.datePublished).toBe('2021-12-10T00:00:00Z');
    expect(c.x_kev).toMatchObject({ knownRansomwareCampaignUse: 'Known', dueDate: '2021-12-24' });
    expect(c.affected).toEqual([{ vendor: 'Apache', product: 'Log4j2' }]);
    expect(c.references).toEqual([{ url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-44228' }]);
    expect(((c.problemTypes as JsonObject[])[0]!.descriptions as JsonObject[]).map((d) => d.cweId)).toEqual([
      'CWE-20',
      'CWE-400',
      'CWE-502',
    ]);
  });

  it('catalog-wide: 293 known ransomware uses, 2,230 reference URLs, 152 entries without CWE', () => {
    const all = records(items).map(cna);
    expect(all.filter((c) => (c.x_kev as JsonObject).knownRansomwareCampaignUse === 'Known')).toHaveLength(293);
    expect(all.reduce((n, c) => n + ((c.references as unknown[]) ?? []).length, 0)).toBe(2230);
    expect(all.filter((c) => c.problemTypes === undefined)).toHaveLength(152);
    expect(new Set(records(items).map((r) => r.cveMetadata.dateUpdated))).toEqual(
      new Set(['2025-08-25T17:04:19.9796Z']),
    );
  });
});

describe('cisa-kev inputs and failures', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'advisory-kev-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('falls back to dateAdded when dateReleased comes after the array; reports bad entries and goes on', async () => {
    const entry = (id: unknown) => ({
      cveID: id,
      vendorProject: 'V',
      product: 'P',
      vulnerabilityName: 'n',
      dateAdded: '2024-01-02',
      shortDescription: 'd',
      requiredAction: 'a',
      dueDate: '2024-01-23',
      knownRansomwareCampaignUse: 'Unknown',
      notes: 'see https://example.com/a, and https://example.com/b).',
      cwes: [],
    });
    const doc = {
      vulnerabilities: [entry('CVE-2024-0001'), entry('CVE-24-1'), 'x', entry('CVE-2024-0002')],
      dateReleased: '2024-01-03T00:00:00.000Z',
    };
    const file = path.join(dir, 'kev.json.gz');
    fs.writeFileSync(file, gzipSync(JSON.stringify(doc)));
    const items = await collect(cisaKev(file, 'cisa-kev'));
    expect(
      items.map((i) => (i.kind === 'record' ? i.sourceId : `${i.sourceId}|${i.at.slice(dir.length)}|${i.reason}`)),
    ).toEqual([
      'CVE-2024-0001',
      'CVE-24-1|/kev.json.gz#/vulnerabilities/1|cveID is not a CVE id: "CVE-24-1"',
      '|/kev.json.gz#/vulnerabilities/2|KEV entry is not an object',
      'CVE-2024-0002',
    ]);
    const r = records(items)[0]!;
    expect(r.cveMetadata.dateUpdated).toBe('2024-01-02T00:00:00Z');
    expect(cna(r).references).toEqual([{ url: 'https://example.com/a' }, { url: 'https://example.com/b' }]);
    expect(cna(r).problemTypes).toBeUndefined();
    expect(contractProblems(r)).toEqual([]);
  });

  it('urlsInNotes', () => {
    expect(
      urlsInNotes('CISA Mitigation Instructions: https://a.gov/x-cve-1;https://b.com/y ; https://b.com/y'),
    ).toEqual(['https://a.gov/x-cve-1', 'https://b.com/y']);
    expect(urlsInNotes('')).toEqual([]);
  });
});
