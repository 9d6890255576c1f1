import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { convertNvdCve } from '../../ingest/advisories/nvd.js';
import { applicabilityOfRecord, cveIdOf } from './extract.js';
import type { CveApplicability } from './types.js';
import { FIXTURES } from '../../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

const FIXTURE_URL = pathToFileURL(FIXTURES);

const APP = 'cpe:2.3:a:example:app:*:*:*:*:*:*:*:*';
const OS = 'cpe:2.3:o:example:os:-:*:*:*:*:*:*:*';

const nvdRecord = (configurations: unknown) => ({
  cveMetadata: { cveId: 'CVE-2000-0001' },
  containers: { cna: { x_nvdConfigurations: configurations } },
});
const cve5Record = (cna: unknown, adp?: unknown[]) => ({
  cveMetadata: { cveId: 'CVE-2000-0002' },
  containers: { cna, ...(adp ? { adp } : {}) },
});

describe('applicabilityOfRecord: nist-nvd2 (x_nvdConfigurations)', () => {
  it('gives one nvd statement, with operators normalised and negate defaulting to false', () => {
    const record = nvdRecord([
      {
        operator: 'AND',
        nodes: [
          {
            cpeMatch: [
              {
                vulnerable: true,
                criteria: APP,
                versionStartIncluding: '1.0',
                versionEndExcluding: '2.0',
                matchCriteriaId: 'ID-1',
              },
            ],
          },
          { operator: 'or', negate: true, cpeMatch: [{ vulnerable: false, criteria: OS }] },
        ],
      },
    ]);
    expect(applicabilityOfRecord(record, 'nist-nvd2')).toEqual<CveApplicability>({
      cveId: 'CVE-2000-0001',
      origin: 'nist-nvd2',
      statements: [
        {
          source: 'nvd',
          configurations: [
            {
              operator: 'AND',
              negate: false,
              nodes: [
                {
                  operator: 'OR',
                  negate: false,
                  cpeMatch: [
                    {
                      vulnerable: true,
                      criteria: APP,
                      matchCriteriaId: 'ID-1',
                      range: { startIncluding: '1.0', endExcluding: '2.0' },
                    },
                  ],
                },
                { operator: 'OR', negate: true, cpeMatch: [{ vulnerable: false, criteria: OS }] },
              ],
            },
          ],
          affected: [],
        },
      ],
    });
  });

  const absent: Array<[string, unknown]> = [
    ['no configurations member', { cveMetadata: { cveId: 'CVE-2000-0001' }, containers: { cna: {} } }],
    ['an empty configurations array', nvdRecord([])],
    ['configurations without nodes', nvdRecord([{ nodes: [] }, { operator: 'OR' }])],
    ['configurations of the wrong type', nvdRecord('oops')],
    ['no cveId', { containers: { cna: { x_nvdConfigurations: [{ nodes: [{ cpeMatch: [{ criteria: APP }] }] }] } } }],
    ['not an object', 'CVE-2000-0001'],
    ['null', null],
  ];
  it.each(absent)('undefined for %s', (_rule, record) => {
    expect(applicabilityOfRecord(record, 'nist-nvd2')).toBeUndefined();
  });

  it('keeps an unparseable criterion out of cpeMatch but records it on its node', () => {
    const app = applicabilityOfRecord(
      nvdRecord([
        {
          nodes: [
            {
              operator: 'AND',
              cpeMatch: [
                { vulnerable: true, criteria: APP },
                { vulnerable: true, criteria: 'cpe:2.3:a:broken' },
                { vulnerable: true },
              ],
            },
          ],
        },
      ]),
      'nist-nvd2',
    );
    const node = app!.statements[0]!.configurations[0]!.nodes[0];
    expect(node?.cpeMatch.map((c) => c.criteria)).toEqual([APP]);
    expect(node?.invalidCriteria).toEqual(['cpe:2.3:a:broken', 'null']);
  });

  it('reads only NVD configurations for nist-nvd2, not the CNA data NVD relays', () => {
    const record = {
      cveMetadata: { cveId: 'CVE-2000-0001' },
      containers: { cna: { affected: [{ cpes: [APP], defaultStatus: 'affected' }] } },
    };
    expect(applicabilityOfRecord(record, 'nist-nvd2')).toBeUndefined();
  });

  it('reads a record converted by the real NVD adapter (CVE-2021-41617)', () => {
    const cve = JSON.parse(readFileSync(new URL('nvd/CVE-2021-41617.json', FIXTURE_URL), 'utf8'));
    const app = applicabilityOfRecord(convertNvdCve(cve), 'nist-nvd2');
    expect(app?.cveId).toBe('CVE-2021-41617');
    expect(app?.statements).toHaveLength(1);
    const configurations = app!.statements[0]!.configurations;
    expect(configurations).toHaveLength(7);
    expect(configurations[3]).toEqual({
      operator: 'AND',
      negate: false,
      nodes: [
        {
          operator: 'OR',
          negate: false,
          cpeMatch: [
            expect.objectContaining({ vulnerable: false, criteria: 'cpe:2.3:h:netapp:aff_a250:-:*:*:*:*:*:*:*' }),
          ],
        },
        {
          operator: 'OR',
          negate: false,
          cpeMatch: [
            expect.objectContaining({
              vulnerable: true,
              criteria: 'cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*',
            }),
          ],
        },
      ],
    });
  });

  it('a real NVD record awaiting analysis (CVE-2024-38476) has none, so CVE 5 data is used', () => {
    const cve = JSON.parse(readFileSync(new URL('nvd/CVE-2024-38476.json', FIXTURE_URL), 'utf8'));
    expect(applicabilityOfRecord(convertNvdCve(cve), 'nist-nvd2')).toBeUndefined();
  });
});

describe('applicabilityOfRecord: mitre-cvelist-v5 (CNA, then each ADP)', () => {
  const configuration = {
    nodes: [
      { operator: 'OR', negate: false, cpeMatch: [{ vulnerable: true, criteria: APP, versionEndExcluding: '2.0' }] },
    ],
  };

  it('reads cpeApplicability given directly or wrapped as {mcpeapplicability}', () => {
    const app = applicabilityOfRecord(
      cve5Record({
        providerMetadata: { shortName: 'Linux' },
        cpeApplicability: [configuration, { mcpeapplicability: configuration }],
      }),
      'mitre-cvelist-v5',
    );
    expect(app?.statements).toEqual([
      {
        source: 'cna',
        provider: 'Linux',
        configurations: [
          {
            negate: false,
            nodes: [
              {
                operator: 'OR',
                negate: false,
                cpeMatch: [{ vulnerable: true, criteria: APP, range: { endExcluding: '2.0' } }],
              },
            ],
          },
          {
            negate: false,
            nodes: [
              {
                operator: 'OR',
                negate: false,
                cpeMatch: [{ vulnerable: true, criteria: APP, range: { endExcluding: '2.0' } }],
              },
            ],
          },
        ],
        affected: [],
      },
    ]);
  });

  it('keeps affected entries that name CPEs (vendor, product, versions, defaultStatus, platforms)', () => {
    const app = applicabilityOfRecord(
      cve5Record(
        { affected: [{ vendor: 'Example', product: 'App', versions: [{ version: '1.0', status: 'affected' }] }] },
        [
          { providerMetadata: { shortName: 'CVE' }, references: [] },
          {
            providerMetadata: { shortName: 'CISA-ADP' },
            affected: [
              {
                vendor: 'example',
                product: 'app',
                cpes: [APP, 'not a cpe'],
                versions: [{ version: '1.0', lessThan: '2.0', versionType: 'custom', status: 'affected' }],
                defaultStatus: 'unknown',
                platforms: ['Linux'],
              },
              { vendor: 'example', product: 'broken', cpes: ['cpe:2.3:a:broken'] },
            ],
          },
        ],
      ),
      'mitre-cvelist-v5',
    );
    expect(app?.statements).toEqual([
      {
        source: 'adp',
        provider: 'CISA-ADP',
        configurations: [],
        affected: [
          {
            vendor: 'example',
            product: 'app',
            cpes: [APP],
            versions: [{ version: '1.0', lessThan: '2.0', versionType: 'custom', status: 'affected' }],
            defaultStatus: 'unknown',
            platforms: ['Linux'],
          },
        ],
      },
    ]);
  });

  it('the CVE 5.1 advanced example has affected data but no CPEs: no applicability', () => {
    const record = JSON.parse(
      readFileSync(new URL('cve5-examples/full-record-advanced-example.json', FIXTURE_URL), 'utf8'),
    );
    expect(cveIdOf(record)).toBe('CVE-1900-1234');
    expect(applicabilityOfRecord(record, 'mitre-cvelist-v5')).toBeUndefined();
  });

  it('never throws on odd shapes', () => {
    const odd = [
      cve5Record({ cpeApplicability: [{ nodes: [{ cpeMatch: 'x' }] }, 7, null], affected: [{ cpes: 'x' }, null] }, [
        null,
        'x',
      ]),
      cve5Record(null, 'x' as unknown as unknown[]),
      { cveMetadata: { cveId: 'CVE-2000-0003' }, containers: [] },
    ];
    for (const record of odd) expect(() => applicabilityOfRecord(record, 'mitre-cvelist-v5')).not.toThrow();
  });
});
