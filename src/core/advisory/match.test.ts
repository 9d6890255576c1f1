import { describe, expect, it } from 'vitest';
import { parseCpeQuery } from '../cpe.js';
import { advisoryFacts } from './facts.js';
import type { AdvisoryFilters } from './filters.js';
import { recordMatches } from './match.js';
import { TERM } from './terms.js';

type Json = Record<string, unknown>;

const record = (cna: Json, adp: Json[] = []) => ({
  dataType: 'CVE_RECORD',
  dataVersion: '5.0',
  cveMetadata: { cveId: 'CVE-2024-0001', state: 'PUBLISHED', dateUpdated: '2024-05-01T10:00:00Z' },
  containers: { cna, adp },
});

const matches = (rec: unknown, filters: AdvisoryFilters) => recordMatches(advisoryFacts(rec).matchData, filters);

const semverRange = record({
  affected: [
    {
      vendor: 'Acme',
      product: 'Widget',
      platforms: ['Linux'],
      versions: [
        { version: '1.0.0', lessThan: '1.4.2', versionType: 'semver', status: 'affected' },
        { version: '2.0.0', lessThanOrEqual: '2.1.0', versionType: 'semver', status: 'affected' },
        {
          version: '3.0.0',
          lessThan: '*',
          versionType: 'semver',
          status: 'affected',
          changes: [
            { at: '3.2.0', status: 'unaffected' },
            { at: '3.1.0', status: 'affected' },
          ],
        },
      ],
      defaultStatus: 'unaffected',
    },
    { vendor: 'Other', product: 'Gadget', versions: [{ version: '1.2.0', status: 'affected' }] },
  ],
});

const defaults = record({ affected: [{ vendor: 'acme', product: 'everything', defaultStatus: 'affected' }] });
const gitOnly = record({
  affected: [
    {
      vendor: 'linux',
      product: 'kernel',
      versions: [{ version: 'abc123', lessThan: 'def456', versionType: 'git', status: 'affected' }],
    },
  ],
});
const customOnly = record({
  affected: [
    {
      vendor: 'acme',
      product: 'legacy',
      versions: [{ version: '0', lessThan: '5.0', versionType: 'custom', status: 'affected' }],
    },
  ],
});
const nvdStyle = record({
  cpeApplicability: [
    {
      mcpeapplicability: {
        nodes: [
          {
            operator: 'OR',
            cpeMatch: [
              {
                vulnerable: true,
                criteria: 'cpe:2.3:a:apache:log4j:*:*:*:*:*:*:*:*',
                versionStartIncluding: '2.0.1',
                versionEndExcluding: '2.3.2',
              },
              { vulnerable: true, criteria: 'cpe:2.3:a:apache:log4j:2.0:beta9:*:*:*:*:*:*' },
              { vulnerable: false, criteria: 'cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*' },
            ],
          },
        ],
      },
    },
  ],
});
const adpCpes = record({ affected: [{ vendor: 'n/a', product: 'n/a' }] }, [
  {
    affected: [
      {
        vendor: 'qualcomm',
        product: 'qpopper',
        cpes: ['cpe:2.3:a:qualcomm:qpopper:*:*:*:*:*:*:*:*'],
        versions: [{ version: '2.4.0', lessThan: '2.6.0', versionType: 'semver', status: 'affected' }],
        defaultStatus: 'unknown',
      },
      { vendor: 'qualcomm', product: 'eudora', cpes: ['cpe:2.3:a:qualcomm:eudora:5.1:*:*:*:*:*:*:*'] },
    ],
  },
]);
const packages = record({
  affected: [
    {
      collectionURL: 'https://pypi.org',
      packageName: 'Django_Rest',
      versions: [{ version: '0', lessThan: '3.2.1', versionType: 'python', status: 'affected' }],
      defaultStatus: 'unaffected',
    },
    {
      packageURL: 'pkg:npm/%40babel/core',
      packageName: '@babel/core',
      versions: [{ version: '7.0.0', lessThan: '7.23.2', versionType: 'semver', status: 'affected' }],
    },
  ],
});

describe('recordMatches', () => {
  it.each<[string, unknown, AdvisoryFilters, boolean]>([
    ['semver: inside the first range', semverRange, { version: '1.4.1' }, true],
    ['semver: lessThan is exclusive', semverRange, { version: '1.4.2' }, false],
    ['semver: pre-release of the bound is below it', semverRange, { version: '1.4.2-rc.1' }, true],
    ['semver: lessThanOrEqual is inclusive', semverRange, { version: '2.1.0' }, true],
    ['semver: above lessThanOrEqual', semverRange, { version: '2.1.1' }, false],
    ['changes: before the first change', semverRange, { version: '3.0.5' }, true],
    ['changes: re-sorted, at 3.1.x still affected', semverRange, { version: '3.1.7' }, true],
    ['changes: unaffected from 3.2.0', semverRange, { version: '3.2.0' }, false],
    ['defaultStatus unaffected outside every range', semverRange, { version: '0.9.0' }, false],
    ['defaultStatus affected without versions', defaults, { version: '9.9.9' }, true],
    ['git ranges never decide', gitOnly, { version: '5.10.0' }, false],
    ['custom ranges rest on a guessed order: no match', customOnly, { version: '4.0' }, false],
    ['version checked against the matching entry only', semverRange, { vendor: 'other', version: '1.4.1' }, false],
    ['same entry: vendor and product', semverRange, { vendor: 'acme', product: 'widget', version: '1.4.1' }, true],
    ['different entries do not combine', semverRange, { vendor: 'acme', product: 'gadget' }, false],
    ['platform, case-insensitive', semverRange, { platform: 'linux' }, true],
    ['platform absent from the entry', semverRange, { platform: 'windows' }, false],
    ['single version equality', semverRange, { vendor: 'other', version: '1.2.0' }, true],
    [
      'NVD range through cpeApplicability by vendor/product',
      nvdStyle,
      { vendor: 'apache', product: 'log4j', version: '2.3.1' },
      true,
    ],
    ['NVD range end excluded', nvdStyle, { vendor: 'apache', product: 'log4j', version: '2.3.2' }, false],
    ['cpe inside the bounds', nvdStyle, { cpe: parseCpeQuery('cpe:2.3:a:apache:log4j:2.1') }, true],
    ['cpe outside the bounds', nvdStyle, { cpe: parseCpeQuery('cpe:2.3:a:apache:log4j:2.5') }, false],
    [
      'cpe with an update matches the exact criterion',
      nvdStyle,
      { cpe: parseCpeQuery('cpe:2.3:a:apache:log4j:2.0:beta9') },
      true,
    ],
    ['cpe without a version matches any criterion', nvdStyle, { cpe: parseCpeQuery('cpe:2.3:a:apache:log4j') }, true],
    [
      'cpe: platform-only criteria do not count',
      nvdStyle,
      { cpe: parseCpeQuery('cpe:2.3:o:microsoft:windows:-') },
      false,
    ],
    ['cpe vendor pattern', nvdStyle, { cpe: parseCpeQuery('cpe:2.3:a:apa*:log4j:2.1') }, true],
    ['cpe via affected cpes and versions', adpCpes, { cpe: parseCpeQuery('cpe:2.3:a:qualcomm:qpopper:2.5.1') }, true],
    [
      'cpe via affected cpes, version outside',
      adpCpes,
      { cpe: parseCpeQuery('cpe:2.3:a:qualcomm:qpopper:2.6.0') },
      false,
    ],
    [
      'not SemVer under a semver range: a guess, no match',
      adpCpes,
      { cpe: parseCpeQuery('cpe:2.3:a:qualcomm:qpopper:2.5') },
      false,
    ],
    ['cpe concrete criterion equal', adpCpes, { cpe: parseCpeQuery('cpe:/a:qualcomm:eudora:5.1') }, true],
    ['cpe concrete criterion different', adpCpes, { cpe: parseCpeQuery('cpe:/a:qualcomm:eudora:5.2') }, false],
    ['purl: PyPI names normalised', packages, { packageKey: 'pypi:django-rest', version: '3.2.0' }, true],
    ['purl: fixed version', packages, { packageKey: 'pypi:django-rest', version: '3.2.1' }, false],
    ['purl: npm scoped package', packages, { packageKey: 'npm:@babel/core', version: '7.22.0' }, true],
    ['package_name', packages, { packageName: '@babel/core' }, true],
  ])('%s', (_label, rec, filters, expected) => {
    expect(matches(rec, filters)).toBe(expected);
  });
});

describe('advisoryFacts', () => {
  it('extracts the searchable terms of CNA and ADP containers', () => {
    const facts = advisoryFacts(
      record(
        {
          affected: [
            {
              vendor: ' Apache  Software Foundation',
              product: 'HTTP Server',
              platforms: ['Windows'],
              packageName: 'Httpd',
            },
          ],
          references: [{ url: 'https://example.org/a', tags: ['Patch', 'x_refsource_CONFIRM'] }],
          descriptions: [{ lang: 'en_US', value: 'x' }],
        },
        [
          {
            affected: [
              { vendor: 'apache', product: 'http_server', cpes: ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*'] },
            ],
          },
        ],
      ),
    );
    const terms = facts.terms.map(([kind, value]) => `${kind}=${value}`).sort();
    expect(terms).toEqual(
      [
        `${TERM.vendor}=apache software foundation`,
        `${TERM.vendor}=apache`,
        `${TERM.product}=http server`,
        `${TERM.product}=http_server`,
        `${TERM.platform}=windows`,
        `${TERM.packageName}=httpd`,
        `${TERM.referenceUrl}=https://example.org/a`,
        `${TERM.referenceTag}=patch`,
        `${TERM.referenceTag}=x_refsource_confirm`,
        `${TERM.descriptionLang}=en-us`,
        `${TERM.cpe}=apache:http_server`,
      ].sort(),
    );
    expect(facts.cveId).toBe('CVE-2024-0001');
    expect(facts.updatedAt).toBe(Date.UTC(2024, 4, 1, 10));
  });
});
