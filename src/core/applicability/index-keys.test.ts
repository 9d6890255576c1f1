import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ANY, CPE_ATTRIBUTES, NA, formatCpe23, parseCpe, quoteWfnValue, type Wfn } from '../cpe.js';
import { convertNvdCve } from '../../ingest/advisories/nvd.js';
import { versionSortKey } from '../version/sort-key.js';
import type { Cve5VersionEntry } from '../version/cve5-affected.js';
import type { VersionRange } from '../version/range.js';
import { evaluateApplicability } from './evaluate.js';
import { applicabilityOfRecord } from './extract.js';
import { hostLookupOf, indexedCriteria, nameLookupOf, productKeyOf, rowMayMatch } from './index-keys.js';
import { isMatch, relateAffected, relateCriterion } from './name-match.js';
import type { AffectedCpes, CpeMatchCriterion, CveApplicability, IndexedCriterion } from './types.js';
import { FIXTURES } from '../../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

const FIXTURE_URL = pathToFileURL(FIXTURES);

const nvdApp = (...cpeMatch: CpeMatchCriterion[]): CveApplicability => ({
  cveId: 'CVE-2000-0001',
  origin: 'nist-nvd2',
  statements: [
    {
      source: 'nvd',
      configurations: [{ negate: false, nodes: [{ operator: 'OR', negate: false, cpeMatch }] }],
      affected: [],
    },
  ],
});
const adpApp = (...affected: AffectedCpes[]): CveApplicability => ({
  cveId: 'CVE-2000-0002',
  origin: 'mitre-cvelist-v5',
  statements: [{ source: 'adp', configurations: [], affected }],
});
const key = (version: string) => versionSortKey(version) as string;

describe('indexedCriteria: one row per criterion (two when an update folds into the version)', () => {
  const identity = { part: 'a', vendor: 'apache', product: 'http_server', vulnerable: true, source: 'nvd' as const };
  const rows: Array<[string, CveApplicability, Array<Partial<IndexedCriterion>>]> = [
    [
      'bounds become start/end keys',
      nvdApp({
        vulnerable: true,
        criteria: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
        range: { startIncluding: '2.4.0', endExcluding: '2.4.50' },
      }),
      [
        {
          ...identity,
          criterion: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
          startKey: key('2.4.0'),
          startInclusive: true,
          endKey: key('2.4.50'),
          endInclusive: false,
        },
      ],
    ],
    [
      'only an upper bound',
      nvdApp({
        vulnerable: true,
        criteria: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
        range: { endIncluding: '2.4.55' },
      }),
      [
        {
          ...identity,
          criterion: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
          endKey: key('2.4.55'),
          endInclusive: true,
        },
      ],
    ],
    [
      'an exact version',
      nvdApp({ vulnerable: true, criteria: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*' }),
      [{ ...identity, criterion: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', exactKey: key('2.4.49') }],
    ],
    [
      'an exact version with an update: the version, and the version with the update folded in',
      nvdApp({
        vulnerable: true,
        criteria: 'cpe:2.3:a:microsoft:exchange_server:2016:cumulative_update_19:*:*:*:*:*:*',
      }),
      [
        { part: 'a', vendor: 'microsoft', product: 'exchange_server', exactKey: key('2016') },
        { part: 'a', vendor: 'microsoft', product: 'exchange_server', exactKey: key('2016update19') },
      ],
    ],
    [
      'ANY without bounds is unbounded',
      nvdApp({ vulnerable: true, criteria: 'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*' }),
      [{ product: 'nginx', unbounded: true }],
    ],
    [
      'NA is always checked',
      nvdApp({ vulnerable: true, criteria: 'cpe:2.3:a:apache:http_server:-:*:*:*:*:*:*:*' }),
      [{ ...identity, alwaysCheck: true }],
    ],
    [
      'a wildcard version is always checked',
      nvdApp({ vulnerable: true, criteria: 'cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*' }),
      [{ ...identity, alwaysCheck: true }],
    ],
    [
      'an unparseable bound is always checked',
      nvdApp({
        vulnerable: true,
        criteria: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
        range: { startIncluding: '2.4.0', endExcluding: 'n/a' },
      }),
      [{ ...identity, alwaysCheck: true }],
    ],
    [
      'a platform keeps vulnerable: false',
      nvdApp({ vulnerable: false, criteria: 'cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*' }),
      [{ part: 'o', vendor: 'microsoft', product: 'windows', vulnerable: false, alwaysCheck: true }],
    ],
    [
      'part and vendor ANY stay *',
      nvdApp({ vulnerable: true, criteria: 'cpe:2.3:*:*:nginx:*:*:*:*:*:*:*:*' }),
      [{ part: '*', vendor: '*', product: 'nginx', unbounded: true }],
    ],
    [
      'a product pattern is stored as *',
      nvdApp({ vulnerable: true, criteria: 'cpe:2.3:a:apache:http*:*:*:*:*:*:*:*:*' }),
      [{ part: 'a', vendor: 'apache', product: '*', unbounded: true }],
    ],
    [
      'values are unquoted and lower-cased',
      nvdApp({ vulnerable: true, criteria: 'cpe:2.3:a:1Panel-dev:swiftnio_http\\/2:*:*:*:*:*:*:*:*' }),
      [{ vendor: '1panel-dev', product: 'swiftnio_http/2' }],
    ],
    ['an unparseable criterion has no row', nvdApp({ vulnerable: true, criteria: 'cpe:2.3:a:broken' }), []],
    [
      'CVE 5 versions lists are always checked',
      adpApp({
        cpes: ['cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*'],
        versions: [{ version: '2.4.30', lessThanOrEqual: '2.4.55', status: 'affected' }],
      }),
      [{ ...identity, source: 'adp', alwaysCheck: true }],
    ],
    [
      'CVE 5 concrete CPE without versions: exact',
      adpApp({ cpes: ['cpe:2.3:a:qualcomm:qpopper:2.4:*:*:*:*:*:*:*'] }),
      [{ product: 'qpopper', source: 'adp', exactKey: key('2.4') }],
    ],
    [
      'CVE 5 ANY CPE affected by default: unbounded',
      adpApp({ cpes: ['cpe:2.3:a:example:lib:*:*:*:*:*:*:*:*'], defaultStatus: 'affected' }),
      [{ product: 'lib', unbounded: true }],
    ],
  ];
  it.each(rows)('%s', (_rule, app, expected) => {
    const result = indexedCriteria(app);
    expect(result).toHaveLength(expected.length);
    for (const [i, row] of expected.entries()) expect(result[i]).toMatchObject(row);
  });

  it('productKeyOf gives the lookup identity', () => {
    expect(productKeyOf(parseCpe('cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*'))).toBe('a:apache:http_server');
    expect(productKeyOf(parseCpe('cpe:2.3:*:*:nginx:*:*:*:*:*:*:*:*'))).toBe('*:*:nginx');
  });

  it('nameLookupOf folds a patch-like update into the second key', () => {
    expect(nameLookupOf(parseCpe('cpe:2.3:a:openbsd:openssh:7.4:p1:*:*:*:*:*:*'))).toEqual({
      part: 'a',
      vendor: 'openbsd',
      product: 'openssh',
      rawKey: key('7.4'),
      foldedKey: key('7.4p1'),
    });
    expect(nameLookupOf(parseCpe('cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*'))).toEqual({
      part: 'a',
      vendor: 'openbsd',
      product: 'openssh',
    });
  });

  const bounded: IndexedCriterion = {
    part: 'a',
    vendor: 'apache',
    product: 'http_server',
    vulnerable: true,
    source: 'nvd',
    criterion: 'c',
    startKey: key('2.4.0'),
    startInclusive: true,
    endKey: key('2.4.50'),
    endInclusive: false,
  };
  it.each([
    ['at the inclusive start', '2.4.0', true],
    ['at the exclusive end', '2.4.50', false],
    ['inside', '2.4.49', true],
    ['below', '2.3.9', false],
    ['no version: must be evaluated', '*', true],
    ['not orderable: must be evaluated', 'latest', true],
  ])('rowMayMatch: %s', (_rule, version, expected) => {
    expect(rowMayMatch(bounded, nameLookupOf(parseCpe(`cpe:2.3:a:apache:http_server:${version}:*:*:*:*:*:*:*`)))).toBe(
      expected,
    );
  });
  it('rowMayMatch: another product never', () => {
    expect(rowMayMatch(bounded, nameLookupOf(parseCpe('cpe:2.3:a:apache:tomcat:2.4.49:*:*:*:*:*:*:*')))).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// No false negatives: whenever a criterion relates to a name (definitely or possibly), one of its
// rows passes the key prefilter for that name.

const wfnOf = (attributes: Partial<Wfn>): Wfn =>
  ({ ...Object.fromEntries(CPE_ATTRIBUTES.map((a) => [a, ANY])), ...attributes }) as Wfn;

// A shared pool, so that bounds, criterion versions and name versions (with their updates folded
// in) often coincide: the edges are where a prefilter goes wrong.
const pooledVersion = fc.constantFrom(
  '7.4',
  '7.4p1',
  '7.4p2',
  '7.5',
  '1.0',
  '1.0.0',
  '2.0',
  '2.0-beta',
  '2016',
  '2016update5',
  '2016sp2',
  '22.7',
  '22.7r2.1',
  '13.1-49.13',
);
const randomVersion = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }),
    fc.constantFrom('.', '-'),
    fc.constantFrom(
      '',
      'p1',
      'p2',
      'a',
      'k',
      'za',
      '-beta2',
      '-rc1',
      'rc1',
      '.Final',
      '-foo',
      '~rc1',
      'sp1',
      'u181',
      '.0',
      '-49.13',
    ),
  )
  .map(([numbers, separator, suffix]) => numbers.join(numbers.length > 2 ? '.' : separator) + suffix);
const plainVersion = fc.oneof({ weight: 2, arbitrary: pooledVersion }, { weight: 1, arbitrary: randomVersion });
const anyVersionText = fc.oneof(
  { weight: 12, arbitrary: plainVersion },
  { weight: 1, arbitrary: fc.constantFrom('n/a', 'latest', '*', '2.*') },
);

const versionAttribute = fc.oneof(
  { weight: 8, arbitrary: plainVersion.map(quoteWfnValue) },
  { weight: 1, arbitrary: fc.constant(ANY) },
  { weight: 1, arbitrary: fc.constant(NA) },
  { weight: 1, arbitrary: fc.constantFrom('latest', 'n/a').map(quoteWfnValue) },
);
const criterionVersionAttribute = fc.oneof(
  { weight: 4, arbitrary: versionAttribute },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 12 }).map((n) => `${n}\\.*`) },
);
const updateAttribute = fc.constantFrom(ANY, ANY, NA, 'p1', 'sp2', 'beta', 'cumulative_update_5', 'r2\\.1');
const editionAttribute = fc.constantFrom(ANY, ANY, NA, 'lts');

const nameArb = fc
  .record({
    product: fc.constantFrom('app', 'app', 'app', 'other'),
    version: versionAttribute,
    update: updateAttribute,
    sw_edition: editionAttribute,
  })
  .map(({ product, ...rest }) => wfnOf({ part: 'a', vendor: 'example', product, ...rest }));

const criterionWfnArb = fc
  .record({
    vendor: fc.constantFrom('example', 'example', ANY),
    product: fc.constantFrom('app', 'app', 'ap*'),
    version: criterionVersionAttribute,
    update: updateAttribute,
    sw_edition: editionAttribute,
  })
  .map((attributes) => wfnOf({ part: 'a', ...attributes }));

const rangeArb: fc.Arbitrary<VersionRange | undefined> = fc.option(
  fc
    .record(
      {
        startIncluding: anyVersionText,
        startExcluding: anyVersionText,
        endIncluding: anyVersionText,
        endExcluding: anyVersionText,
      },
      { requiredKeys: [] },
    )
    .filter((range) => Object.keys(range).length > 0),
  { nil: undefined },
);

const versionEntryArb: fc.Arbitrary<Cve5VersionEntry> = fc.oneof(
  fc.record({ version: anyVersionText, status: fc.constantFrom('affected', 'unaffected') }),
  fc.record({
    version: anyVersionText,
    lessThan: anyVersionText,
    versionType: fc.constantFrom('custom', 'semver'),
    status: fc.constant('affected'),
  }),
);

function prefilterPasses(rows: IndexedCriterion[], name: Wfn): boolean {
  const lookup = nameLookupOf(name);
  return rows.some((row) => rowMayMatch(row, lookup));
}

describe('the key prefilter has no false negatives (property)', () => {
  const runs = { nvd: 0 };
  const matched = { nvd: 0, cve5: 0 };
  afterAll(() => {
    // The generators must reach the interesting side (a relation exists) often enough to mean something.
    expect(matched.nvd).toBeGreaterThan(runs.nvd / 10);
    expect(matched.cve5).toBeGreaterThan(300);
  });

  it('for NVD-style cpeMatch criteria', () => {
    fc.assert(
      fc.property(criterionWfnArb, rangeArb, nameArb, (criterionWfn, range, name) => {
        runs.nvd++;
        const criterion: CpeMatchCriterion = {
          vulnerable: true,
          criteria: formatCpe23(criterionWfn),
          ...(range ? { range } : {}),
        };
        const app = nvdApp(criterion);
        const relation = relateCriterion(parseCpe(criterion.criteria), criterion.range, name);
        const evidence = evaluateApplicability(app, [{ cpe: formatCpe23(name), wfn: name, role: 'fingerprint' }]);
        // A family cut by a range that starts inside it (`4` against `>= 4.1`) is possible evidence
        // the key lookup leaves out by design: the version itself is outside the range.
        if (!isMatch(relation) && evidence.every((e) => e.kind === 'version_family')) return;
        matched.nvd++;
        expect(prefilterPasses(indexedCriteria(app), name)).toBe(true);
      }),
      { numRuns: 4000 },
    );
  });

  it('for a host name read as a family: every range with evidence passes (hostLookupOf)', () => {
    const versions = ['4', '4.19', '1.0', '22'];
    // Ascending: a range starts below its end (an inverted one names no release at all).
    const bounds = ['1.0.0', '1.0.1', '1.1', '3.9', '4.0', '4.1', '4.5', '4.19.2', '4.20', '5.0', '22.7'];
    const ranges: VersionRange[] = [];
    for (const low of bounds) {
      ranges.push({ startIncluding: low }, { startExcluding: low }, { endIncluding: low }, { endExcluding: low });
      for (const high of bounds.slice(bounds.indexOf(low) + 1))
        ranges.push({ startIncluding: low, endExcluding: high }, { startExcluding: low, endIncluding: high });
    }
    let familyOnly = 0;
    for (const version of versions) {
      const name = wfnOf({ part: 'o', vendor: 'linux', product: 'linux_kernel', version: quoteWfnValue(version) });
      for (const range of ranges) {
        const app = nvdApp({ vulnerable: true, criteria: 'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*', range });
        const evidence = evaluateApplicability(app, [{ cpe: formatCpe23(name), wfn: name, role: 'fingerprint' }]);
        if (evidence.length === 0) continue;
        const rows = indexedCriteria(app);
        if (!rows.some((row) => rowMayMatch(row, nameLookupOf(name)))) familyOnly++;
        if (!rows.some((row) => rowMayMatch(row, hostLookupOf(name))))
          expect.fail(`${version} against ${JSON.stringify(range)} has evidence the lookup misses`);
      }
    }
    // Ranges that only overlap the family, which the plain lookup leaves out, are among the cases.
    expect(familyOnly).toBeGreaterThan(10);
  });

  it('exhaustively over a grid of versions, updates and single bounds (the edges random runs rarely hit)', () => {
    const versions = [
      '7.4',
      '7.4p1',
      '7.5',
      '1.0',
      '1.0.0',
      '2.0-beta',
      '2.0',
      '2016',
      '2016update5',
      '22.7',
      '22.7r2.1',
      'latest',
    ];
    const updates = [ANY, NA, 'p1', 'cumulative_update_5', 'r2\\.1', 'beta'];
    const criterionVersions = [ANY, NA, '2\\.*', ...versions.map(quoteWfnValue)];
    const nameVersions = [ANY, NA, ...versions.map(quoteWfnValue)];
    const ranges: Array<VersionRange | undefined> = [
      undefined,
      ...versions.flatMap((v) => [
        { startIncluding: v },
        { startExcluding: v },
        { endIncluding: v },
        { endExcluding: v },
      ]),
    ];
    const names = nameVersions.flatMap((version) =>
      updates.map((update) => wfnOf({ part: 'a', vendor: 'example', product: 'app', version, update })),
    );
    const lookups = names.map(nameLookupOf);
    let checked = 0;
    for (const version of criterionVersions) {
      for (const update of updates) {
        const wfn = wfnOf({ part: 'a', vendor: 'example', product: 'app', version, update });
        const criteria = formatCpe23(wfn);
        for (const range of ranges) {
          if (range && version !== ANY) continue;
          const rows = indexedCriteria(nvdApp({ vulnerable: true, criteria, ...(range ? { range } : {}) }));
          names.forEach((name, i) => {
            if (!isMatch(relateCriterion(wfn, range, name))) return;
            checked++;
            if (!rows.some((row) => rowMayMatch(row, lookups[i]!))) {
              expect.fail(`${criteria} ${JSON.stringify(range ?? {})} misses ${formatCpe23(name)}`);
            }
          });
        }
      }
    }
    expect(checked).toBeGreaterThan(5000);
  });

  it('for CVE 5 affected entries', () => {
    fc.assert(
      fc.property(
        criterionWfnArb,
        fc.array(versionEntryArb, { maxLength: 3 }),
        fc.option(fc.constantFrom('affected', 'unaffected', 'unknown'), { nil: undefined }),
        nameArb,
        (cpeWfn, versions, defaultStatus, name) => {
          const entry: AffectedCpes = {
            cpes: [formatCpe23(cpeWfn)],
            ...(versions.length > 0 ? { versions } : {}),
            ...(defaultStatus ? { defaultStatus } : {}),
          };
          const relation = relateAffected(parseCpe(entry.cpes[0]!), entry, name);
          if (!isMatch(relation)) return;
          matched.cve5++;
          expect(prefilterPasses(indexedCriteria(adpApp(entry)), name)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('for every criterion of the 29 NVD records against the names NVD expands its criteria to', () => {
    const nvdDir = new URL('nvd/', FIXTURE_URL);
    const apps = readdirSync(nvdDir)
      .filter((file) => file.endsWith('.json'))
      .map((file) =>
        applicabilityOfRecord(convertNvdCve(JSON.parse(readFileSync(new URL(file, nvdDir), 'utf8'))), 'nist-nvd2'),
      )
      .filter((app): app is CveApplicability => app !== undefined);
    const names = readFileSync(new URL('cpe/nvd_cpematch_api2_samples.jsonl', FIXTURE_URL), 'utf8')
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => (JSON.parse(line).matchString.matches as Array<{ cpeName: string }>).map((m) => m.cpeName));
    names.push(
      'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*',
      'cpe:2.3:a:microsoft:exchange_server:2016:cu19:*:*:*:*:*:*',
      'cpe:2.3:a:microsoft:exchange_server:2016:*:*:*:*:*:*:*',
      'cpe:2.3:a:ivanti:connect_secure:22.7r2.4:*:*:*:*:*:*:*',
      'cpe:2.3:a:citrix:netscaler_application_delivery_controller:13.1-49.12:*:*:*:*:*:*:*',
      'cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*',
    );
    // And names at every bound and at every exact version the records mention.
    for (const app of apps) {
      for (const node of app.statements.flatMap((s) => s.configurations.flatMap((c) => c.nodes))) {
        for (const criterion of node.cpeMatch) {
          const wfn = parseCpe(criterion.criteria);
          const versions = Object.values(criterion.range ?? {});
          if (versions.length === 0 && wfn.version !== ANY) names.push(criterion.criteria);
          for (const version of versions) names.push(formatCpe23({ ...wfn, version: quoteWfnValue(version) }));
        }
      }
    }
    let related = 0;
    for (const app of apps) {
      for (const text of names) {
        const name = parseCpe(text);
        const evidence = evaluateApplicability(app, [{ cpe: text, wfn: name, role: 'fingerprint' }]);
        if (evidence.every((e) => e.kind === 'version_family')) continue;
        related++;
        expect(prefilterPasses(indexedCriteria(app), name), `${app.cveId} × ${text}`).toBe(true);
      }
    }
    expect(related).toBeGreaterThan(500);
  });
});
