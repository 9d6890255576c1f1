/** What a record's `cve` means: its own fingerprints are the vulnerable elements; OS guesses are context; short versions are families. */
import { describe, expect, it } from 'vitest';
import { parseCpe } from '../cpe.js';
import type { VersionRange } from '../version/range.js';
import { evaluateApplicability } from './evaluate.js';
import type { ContextCpe, CpeMatchCriterion, CveApplicability, CveEvidence } from './types.js';

const fingerprint = (cpe: string): ContextCpe => ({ cpe, wfn: parseCpe(cpe), role: 'fingerprint' });
const os = (cpe: string): ContextCpe => ({ cpe, wfn: parseCpe(cpe), role: 'os' });
const name = (short: string) => `cpe:2.3:${short}:*:*:*:*:*:*:*`;

const vulnerable = (criteria: string, range?: VersionRange): CpeMatchCriterion => ({
  vulnerable: true,
  criteria,
  ...(range ? { range } : {}),
});
const platform = (criteria: string): CpeMatchCriterion => ({ vulnerable: false, criteria });

const nvd = (...nodes: CpeMatchCriterion[][]): CveApplicability => ({
  cveId: 'CVE-2000-0001',
  origin: 'nist-nvd2',
  statements: [
    {
      source: 'nvd',
      configurations: [
        {
          negate: false,
          ...(nodes.length > 1 ? { operator: 'AND' as const } : {}),
          nodes: nodes.map((cpeMatch) => ({ operator: 'OR' as const, negate: false, cpeMatch })),
        },
      ],
      affected: [],
    },
  ],
});
const cve5 = (cpe: string, versions: Array<{ version: string; lessThan: string }>): CveApplicability => ({
  cveId: 'CVE-2000-0001',
  origin: 'mitre-cvelist-v5',
  statements: [
    {
      source: 'cna',
      configurations: [],
      affected: [
        {
          cpes: [cpe],
          defaultStatus: 'unaffected',
          versions: versions.map((v) => ({ ...v, status: 'affected', versionType: 'semver' })),
        },
      ],
    },
  ],
});

const KERNEL = 'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*';
const MYSQL = 'cpe:2.3:a:oracle:mysql:*:*:*:*:*:*:*:*';
const APP = 'cpe:2.3:a:example:app:*:*:*:*:*:*:*:*';
const OS_Y = 'cpe:2.3:o:example:os_y:-:*:*:*:*:*:*:*';

/** `kind/confirmed` of each evidence row; `[]` when the CVE does not concern the record at all. */
const outcome = (rows: CveEvidence[]) => rows.map((e) => `${e.kind}/${e.confirmed ? 'confirmed' : 'possible'}`);

const kernelBelow = (end: VersionRange) => nvd([vulnerable(KERNEL, end)]);

describe('OS guesses are context, fingerprints are what is vulnerable', () => {
  it.each([
    {
      rule: "a MySQL record with the host's kernel guess gets no kernel CVE",
      app: kernelBelow({ endExcluding: '4.19.2' }),
      context: [fingerprint(name('a:oracle:mysql:5.7.16')), os(name('o:linux:linux_kernel:4'))],
      expected: [],
    },
    {
      rule: 'a port with no fingerprint gets no kernel CVE from the OS guess',
      app: kernelBelow({ endExcluding: '4.19.2' }),
      context: [os(name('o:linux:linux_kernel:4.14.1'))],
      expected: [],
    },
    {
      rule: 'the MySQL CVE is still the MySQL record’s',
      app: nvd([vulnerable(MYSQL, { endExcluding: '5.7.20' })]),
      context: [fingerprint(name('a:oracle:mysql:5.7.16')), os(name('o:linux:linux_kernel:4'))],
      expected: ['version_range/confirmed'],
    },
    {
      rule: 'an OS CPE the service reports itself (fortios on 443) is vulnerable',
      app: nvd([vulnerable('cpe:2.3:o:fortinet:fortios:*:*:*:*:*:*:*:*', { endExcluding: '7.2.5' })]),
      context: [fingerprint(name('o:fortinet:fortios:7.2.4'))],
      expected: ['version_range/confirmed'],
    },
    {
      rule: 'application X on OS Y: both present, the OS from the guess',
      app: nvd([vulnerable(APP, { endExcluding: '2.0' })], [platform(OS_Y)]),
      context: [fingerprint(name('a:example:app:1.5')), os(OS_Y)],
      expected: ['version_range/confirmed'],
    },
    {
      rule: 'application X on OS Y: the OS not shown, only possible',
      app: nvd([vulnerable(APP, { endExcluding: '2.0' })], [platform(OS_Y)]),
      context: [fingerprint(name('a:example:app:1.5'))],
      expected: ['version_range/possible'],
    },
    {
      rule: 'application X on OS Y: another OS, only possible',
      app: nvd([vulnerable(APP, { endExcluding: '2.0' })], [platform(OS_Y)]),
      context: [fingerprint(name('a:example:app:1.5')), os(name('o:other:os:1'))],
      expected: ['version_range/possible'],
    },
    {
      rule: 'application X on OS Y: the OS alone is nothing',
      app: nvd([vulnerable(APP, { endExcluding: '2.0' })], [platform(OS_Y)]),
      context: [os(OS_Y)],
      expected: [],
    },
    {
      rule: 'application X on OS Y: X from the OS guess is not the record’s',
      app: nvd([vulnerable(APP, { endExcluding: '2.0' })], [platform(OS_Y)]),
      context: [os(name('a:example:app:1.5')), os(OS_Y)],
      expected: [],
    },
  ])('$rule', ({ app, context, expected }) => {
    expect(outcome(evaluateApplicability(app, context))).toEqual(expected);
  });
});

describe('a short version is a family: it confirms only when the whole family is inside', () => {
  it.each([
    { version: '4', range: { endExcluding: '4.19.2' }, expected: ['version_family/possible'] },
    { version: '4', range: { startIncluding: '3.0', endExcluding: '5.0' }, expected: ['version_range/confirmed'] },
    { version: '4', range: { startIncluding: '3.2.1', endExcluding: '5.1' }, expected: ['version_range/confirmed'] },
    { version: '4', range: { endExcluding: '4.0' }, expected: [] },
    { version: '4', range: { endExcluding: '3.9.9' }, expected: [] },
    { version: '4', range: { startIncluding: '5.0.1' }, expected: [] },
    { version: '4', range: { startIncluding: '4.1', endExcluding: '4.5' }, expected: ['version_family/possible'] },
    { version: '4', range: { startIncluding: '4.0' }, expected: ['version_range/confirmed'] },
    { version: '4', range: { startExcluding: '4.0' }, expected: ['version_family/possible'] },
    { version: '4', range: { endIncluding: '4.0' }, expected: ['version_family/possible'] },
    { version: '4', range: { endIncluding: '5.0' }, expected: ['version_range/confirmed'] },
    // Same number of components: an ordinary version.
    { version: '4', range: { endIncluding: '4' }, expected: ['version_range/confirmed'] },
    { version: '4', range: { endExcluding: '5' }, expected: ['version_range/confirmed'] },
    { version: '4.19', range: { endExcluding: '4.19.2' }, expected: ['version_family/possible'] },
    { version: '4.19.1', range: { endExcluding: '4.19.2' }, expected: ['version_range/confirmed'] },
    { version: '4.19.3', range: { endExcluding: '4.19.2' }, expected: [] },
    { version: '4.19', range: { startIncluding: '4.14', endExcluding: '4.20' }, expected: ['version_range/confirmed'] },
  ])('linux_kernel $version against $range', ({ version, range, expected }) => {
    const context = [fingerprint(name(`o:linux:linux_kernel:${version}`))];
    expect(outcome(evaluateApplicability(kernelBelow(range), context))).toEqual(expected);
  });

  it.each([
    {
      version: '2.4',
      range: { startIncluding: '2.4.0', endExcluding: '2.4.50' },
      expected: ['version_family/possible'],
    },
    // Not numeric: a patch level is a version, not a family.
    { version: '8.5p1', range: { endExcluding: '8.6' }, expected: ['version_range/confirmed'] },
  ])('$version against $range', ({ version, range, expected }) => {
    const product = version === '2.4' ? 'apache:http_server' : 'openbsd:openssh';
    const app = nvd([vulnerable(`cpe:2.3:a:${product}:*:*:*:*:*:*:*:*`, range)]);
    expect(outcome(evaluateApplicability(app, [fingerprint(name(`a:${product}:${version}`))]))).toEqual(expected);
  });

  it.each([
    { versions: [{ version: '4.0', lessThan: '4.19.2' }], expected: ['version_family/possible'] },
    { versions: [{ version: '3.0', lessThan: '5.0' }], expected: ['version_range/confirmed'] },
    { versions: [{ version: '5.0', lessThan: '5.4.2' }], expected: [] },
  ])('a CVE 5 affected entry $versions', ({ versions, expected }) => {
    const app = cve5(KERNEL, versions);
    const context = [fingerprint(name('o:linux:linux_kernel:4'))];
    expect(outcome(evaluateApplicability(app, context))).toEqual(expected);
  });
});
