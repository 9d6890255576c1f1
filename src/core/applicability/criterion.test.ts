import { describe, expect, it } from 'vitest';
import { parseCpe } from '../cpe.js';
import type { VersionRange } from '../version/range.js';
import { affectedCoversName, applicabilityCoversName, criterionCoversName } from './criterion.js';
import type { AffectedCpes, CpeMatchCriterion, CveApplicability } from './types.js';

const criterion = (criteria: string, range?: VersionRange, vulnerable = true): CpeMatchCriterion => ({
  vulnerable,
  criteria,
  ...(range ? { range } : {}),
});
const name = (cpe: string) => parseCpe(cpe);

describe('criterionCoversName: one cpeMatch against one name, no AND evaluation', () => {
  const rows: Array<[string, CpeMatchCriterion, string, string | undefined]> = [
    [
      'inside the bounds',
      criterion('cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*', { startIncluding: '2.4.0', endIncluding: '2.4.55' }),
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      'version_range',
    ],
    [
      'outside the bounds',
      criterion('cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*', { endExcluding: '2.4.49' }),
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      undefined,
    ],
    [
      'exact version',
      criterion('cpe:2.3:a:proftpd:proftpd:1.3.5:*:*:*:*:*:*:*'),
      'cpe:2.3:a:proftpd:proftpd:1.3.5:*:*:*:*:*:*:*',
      'exact_version',
    ],
    [
      'ANY without bounds',
      criterion('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*'),
      'cpe:2.3:a:f5:nginx:1.25.3:*:*:*:*:*:*:*',
      'all_versions',
    ],
    [
      'NA never covers a concrete version',
      criterion('cpe:2.3:a:apache:http_server:-:*:*:*:*:*:*:*'),
      'cpe:2.3:a:apache:http_server:2.4.53:*:*:*:*:*:*:*',
      undefined,
    ],
    [
      'a query without a version',
      criterion('cpe:2.3:a:proftpd:proftpd:1.3.5:*:*:*:*:*:*:*'),
      'cpe:2.3:a:proftpd:proftpd:*:*:*:*:*:*:*:*',
      'version_unknown',
    ],
    [
      'an unreadable bound',
      criterion('cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*', { endExcluding: 'n/a' }),
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      'uncomparable',
    ],
    [
      'another product',
      criterion('cpe:2.3:a:apache:tomcat:*:*:*:*:*:*:*:*'),
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      undefined,
    ],
    [
      'an unparseable criterion',
      criterion('cpe:2.3:a:broken'),
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      undefined,
    ],
  ];
  it.each(rows)('%s', (_rule, c, cpe, kind) => {
    expect(criterionCoversName(c, name(cpe))?.kind).toBe(kind);
  });

  it('a query ANY where the criterion names an edition: covered, flagged as not definite', () => {
    const coverage = criterionCoversName(
      criterion('cpe:2.3:a:jenkins:jenkins:*:*:*:*:lts:*:*:*', { endExcluding: '2.426.3' }),
      name('cpe:2.3:a:jenkins:jenkins:2.426.2:*:*:*:*:*:*:*'),
    );
    expect(coverage).toEqual({
      kind: 'version_range',
      definite: false,
      range: '< 2.426.3',
      unknownAttributes: ['sw_edition'],
    });
  });
});

describe('affectedCoversName', () => {
  const entry: AffectedCpes = {
    cpes: ['cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*', 'not a cpe'],
    versions: [{ version: '2.4.30', lessThanOrEqual: '2.4.55', versionType: 'custom', status: 'affected' }],
    defaultStatus: 'unknown',
  };
  it.each([
    ['2.4.49', 'version_range'],
    ['2.4.56', 'uncomparable'],
    ['*', 'version_unknown'],
  ])('http_server %s → %s', (version, kind) => {
    const coverage = affectedCoversName(entry, name(`cpe:2.3:a:apache:http_server:${version}:*:*:*:*:*:*:*`));
    expect(coverage?.kind).toBe(kind);
    expect(coverage?.cpe).toBe('cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*');
  });
  it('unaffected → undefined', () => {
    expect(
      affectedCoversName(
        { ...entry, defaultStatus: 'unaffected' },
        name('cpe:2.3:a:apache:http_server:2.4.56:*:*:*:*:*:*:*'),
      ),
    ).toBeUndefined();
  });
});

describe('applicabilityCoversName: any criterion of any statement, node or configuration', () => {
  // CVE-2021-41617-like: an AND whose platform is a hardware CPE, plus an OR of application ranges.
  const app: CveApplicability = {
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
                cpeMatch: [criterion('cpe:2.3:h:netapp:aff_a250:-:*:*:*:*:*:*:*', undefined, false)],
              },
              {
                operator: 'OR',
                negate: false,
                cpeMatch: [criterion('cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*')],
              },
            ],
          },
          {
            negate: false,
            nodes: [
              {
                operator: 'OR',
                negate: false,
                cpeMatch: [
                  criterion('cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*', {
                    startIncluding: '6.2',
                    endExcluding: '8.8',
                  }),
                ],
              },
            ],
          },
        ],
        affected: [],
      },
      {
        source: 'adp',
        configurations: [],
        affected: [
          {
            cpes: ['cpe:2.3:a:example:lib:*:*:*:*:*:*:*:*'],
            versions: [{ version: '1.0', lessThan: '2.0', versionType: 'semver', status: 'affected' }],
          },
        ],
      },
    ],
  };
  const rows: Array<[string, string, boolean, boolean]> = [
    ['a vulnerable range criterion', 'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*', true, true],
    ['outside every range', 'cpe:2.3:a:openbsd:openssh:9.0:p1:*:*:*:*:*:*', true, false],
    [
      "the AND configuration's vulnerable part, without evaluating the AND",
      'cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*',
      true,
      true,
    ],
    ['the platform only, vulnerableOnly', 'cpe:2.3:h:netapp:aff_a250:-:*:*:*:*:*:*:*', true, false],
    ['the platform only, platforms allowed', 'cpe:2.3:h:netapp:aff_a250:-:*:*:*:*:*:*:*', false, true],
    ['a CVE 5 affected entry', 'cpe:2.3:a:example:lib:1.5:*:*:*:*:*:*:*', true, true],
    ['no version in the query: not covered', 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*', true, false],
  ];
  it.each(rows)('%s', (_rule, cpe, vulnerableOnly, expected) => {
    expect(applicabilityCoversName(app, name(cpe), { vulnerableOnly })).toBe(expected);
  });
});
