import { describe, expect, it } from 'vitest';
import { parseCpe } from '../cpe.js';
import type { VersionRange } from '../version/range.js';
import { confirmedCves, evaluateApplicability, evaluateMany } from './evaluate.js';
import type {
  AffectedCpes,
  Configuration,
  ConfigurationNode,
  ContextCpe,
  CpeMatchCriterion,
  CveApplicability,
  CveEvidence,
} from './types.js';

const CVE = 'CVE-2000-0001';

const fingerprint = (cpe: string, alias?: string): ContextCpe => ({
  cpe,
  wfn: parseCpe(alias ?? cpe),
  role: 'fingerprint',
  ...(alias ? { alias } : {}),
});
const os = (cpe: string): ContextCpe => ({ cpe, wfn: parseCpe(cpe), role: 'os' });

const vulnerable = (criteria: string, range?: VersionRange): CpeMatchCriterion => ({
  vulnerable: true,
  criteria,
  ...(range ? { range } : {}),
});
const platform = (criteria: string): CpeMatchCriterion => ({ vulnerable: false, criteria });

const or = (...cpeMatch: CpeMatchCriterion[]): ConfigurationNode => ({ operator: 'OR', negate: false, cpeMatch });
const andNode = (...cpeMatch: CpeMatchCriterion[]): ConfigurationNode => ({ operator: 'AND', negate: false, cpeMatch });
const negated = (node: ConfigurationNode): ConfigurationNode => ({ ...node, negate: true });

const nvd = (...configurations: Configuration[]): CveApplicability => ({
  cveId: CVE,
  origin: 'nist-nvd2',
  statements: [{ source: 'nvd', configurations, affected: [] }],
});
/** One configuration with one node (the common NVD shape: operator absent). */
const single = (...cpeMatch: CpeMatchCriterion[]): CveApplicability => nvd({ negate: false, nodes: [or(...cpeMatch)] });
const cve5 = (...affected: AffectedCpes[]): CveApplicability => ({
  cveId: CVE,
  origin: 'mitre-cvelist-v5',
  statements: [{ source: 'adp', provider: 'CISA-ADP', configurations: [], affected }],
});

/** `kind/configuration/confidence/confirmed?` per evidence row. */
const summary = (e: CveEvidence) =>
  `${e.kind}/${e.configuration}/${e.confidence}/${e.confirmed ? 'confirmed' : 'unconfirmed'}`;

const HTTPD = 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*';
const httpd = (version: string) => fingerprint(`cpe:2.3:a:apache:http_server:${version}:*:*:*:*:*:*:*`);
const OPENSSH = 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*';
const openssh = (version: string, update = '*') =>
  fingerprint(`cpe:2.3:a:openbsd:openssh:${version}:${update}:*:*:*:*:*:*`);

interface Row {
  rule: string;
  app: CveApplicability;
  context: ContextCpe[];
  expected: string[];
}

function check(rows: Row[]) {
  it.each(rows)('$rule', ({ app, context, expected }) => {
    expect(evaluateApplicability(app, context).map(summary)).toEqual(expected);
  });
}

const CONFIRMED_HIGH_RANGE = 'version_range/satisfied/high/confirmed';
const CONFIRMED_HIGH_EXACT = 'exact_version/satisfied/high/confirmed';

describe('§2.4 rule 4: a cpeMatch against one name (bounds, exact versions, NA, ANY)', () => {
  check([
    {
      rule: 'versionEndIncluding: exactly at the bound is inside',
      app: single(vulnerable(HTTPD, { startIncluding: '2.4.0', endIncluding: '2.4.55' })),
      context: [httpd('2.4.55')],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'versionEndIncluding: just past the bound is outside',
      app: single(vulnerable(HTTPD, { startIncluding: '2.4.0', endIncluding: '2.4.55' })),
      context: [httpd('2.4.56')],
      expected: [],
    },
    {
      rule: 'versionEndExcluding: exactly at the bound is outside',
      app: single(vulnerable(HTTPD, { endExcluding: '2.4.50' })),
      context: [httpd('2.4.50')],
      expected: [],
    },
    {
      rule: 'versionEndExcluding: just below the bound is inside',
      app: single(vulnerable(HTTPD, { endExcluding: '2.4.50' })),
      context: [httpd('2.4.49')],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'versionStartIncluding: exactly at the bound is inside',
      app: single(vulnerable(HTTPD, { startIncluding: '2.4.0', endExcluding: '2.4.50' })),
      context: [httpd('2.4.0')],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'versionStartIncluding: just below the bound is outside',
      app: single(vulnerable(HTTPD, { startIncluding: '2.4.0', endExcluding: '2.4.50' })),
      context: [httpd('2.3.99')],
      expected: [],
    },
    {
      rule: 'versionStartExcluding: exactly at the bound is outside',
      app: single(vulnerable(HTTPD, { startExcluding: '2.4.0' })),
      context: [httpd('2.4.0')],
      expected: [],
    },
    {
      rule: 'versionStartExcluding: just past the bound is inside',
      app: single(vulnerable(HTTPD, { startExcluding: '2.4.0' })),
      context: [httpd('2.4.1')],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'numeric order, not text: 2.4.5 < 2.4.10',
      app: single(vulnerable(HTTPD, { startIncluding: '2.4.10' })),
      context: [httpd('2.4.5')],
      expected: [],
    },
    {
      rule: 'update p1 folded: openssh:7.4:p1 lies in [7.4, 7.5)',
      app: single(vulnerable(OPENSSH, { startIncluding: '7.4', endExcluding: '7.5' })),
      context: [openssh('7.4', 'p1')],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'update p1 folded: openssh:7.4:p1 does not lie in [7.5, 9.8)',
      app: single(vulnerable(OPENSSH, { startIncluding: '7.5', endExcluding: '9.8' })),
      context: [openssh('7.4', 'p1')],
      expected: [],
    },
    {
      rule: 'update p1 folded: 8.8p1 is past versionEndExcluding 8.8',
      app: single(vulnerable(OPENSSH, { startIncluding: '6.2', endExcluding: '8.8' })),
      context: [openssh('8.8', 'p1')],
      expected: [],
    },
    {
      rule: 'update p1 folded: 7.4p1 is past versionStartExcluding 7.4',
      app: single(vulnerable(OPENSSH, { startExcluding: '7.4' })),
      context: [openssh('7.4', 'p1')],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'NA criteria never match 2.4.53 (Dependency-Track #1832)',
      app: single(vulnerable('cpe:2.3:a:apache:http_server:-:*:*:*:*:*:*:*')),
      context: [httpd('2.4.53')],
      expected: [],
    },
    {
      rule: 'NA criterion and NA name are equal',
      app: single(vulnerable('cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*')],
      expected: [CONFIRMED_HIGH_EXACT],
    },
    {
      rule: 'NA criterion against a name without a version: version_unknown',
      app: single(vulnerable('cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:o:netapp:aff_a250_firmware:*:*:*:*:*:*:*:*')],
      expected: ['version_unknown/conditional/low/unconfirmed'],
    },
    {
      rule: 'ANY with no range matches every version (1.0)',
      app: single(vulnerable('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:f5:nginx:1.0:*:*:*:*:*:*:*')],
      expected: ['all_versions/satisfied/medium/confirmed'],
    },
    {
      rule: 'ANY with no range matches every version (99.99.99)',
      app: single(vulnerable('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:f5:nginx:99.99.99:*:*:*:*:*:*:*')],
      expected: ['all_versions/satisfied/medium/confirmed'],
    },
    {
      rule: 'ANY with no range matches a name without a version too',
      app: single(vulnerable('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*')],
      expected: ['all_versions/satisfied/medium/confirmed'],
    },
    {
      rule: 'exact version equal after the vendor order: criterion 1.0 vs name 1.0.0',
      app: single(vulnerable('cpe:2.3:a:proftpd:proftpd:1.0:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:proftpd:proftpd:1.0.0:*:*:*:*:*:*:*')],
      expected: [CONFIRMED_HIGH_EXACT],
    },
    {
      rule: 'exact version: another version does not match',
      app: single(vulnerable('cpe:2.3:a:proftpd:proftpd:1.3.5:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:proftpd:proftpd:1.3.6:*:*:*:*:*:*:*')],
      expected: [],
    },
    {
      rule: 'exact version: a version-less fingerprint is version_unknown, not confirmed',
      app: single(vulnerable('cpe:2.3:a:proftpd:proftpd:1.3.5:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:proftpd:proftpd:*:*:*:*:*:*:*:*')],
      expected: ['version_unknown/conditional/low/unconfirmed'],
    },
    {
      rule: 'bounds: a version-less fingerprint is version_unknown, not confirmed',
      app: single(vulnerable(HTTPD, { endExcluding: '2.4.50' })),
      context: [httpd('*')],
      expected: ['version_unknown/conditional/low/unconfirmed'],
    },
    {
      rule: 'bounds: an NA version is not concrete either (rule 4c)',
      app: single(vulnerable(HTTPD, { endExcluding: '2.4.50' })),
      context: [httpd('-')],
      expected: ['version_unknown/conditional/low/unconfirmed'],
    },
    {
      rule: 'an uncomparable bound is uncomparable, never outside',
      app: single(vulnerable(HTTPD, { startIncluding: '2.4.0', endExcluding: 'n/a' })),
      context: [httpd('2.4.49')],
      expected: ['uncomparable/conditional/low/unconfirmed'],
    },
    {
      rule: 'an uncomparable bound stays uncomparable even when the other bound fails',
      app: single(vulnerable(HTTPD, { startIncluding: '3.0', endExcluding: 'unspecified' })),
      context: [httpd('2.4.49')],
      expected: ['uncomparable/conditional/low/unconfirmed'],
    },
    {
      rule: 'an uncomparable name version is uncomparable',
      app: single(vulnerable(HTTPD, { endExcluding: '2.4.50' })),
      context: [httpd('latest')],
      expected: ['uncomparable/conditional/low/unconfirmed'],
    },
    {
      rule: 'a guessed ordering (unknown word) gives medium confidence',
      app: single(vulnerable(HTTPD, { endExcluding: '2.4.50' })),
      context: [httpd('2.4.49-foo')],
      expected: ['version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'wildcard criterion version 2.4.* covers 2.4.49 (medium)',
      app: single(vulnerable('cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*')),
      context: [httpd('2.4.49')],
      expected: ['version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'wildcard criterion version 2.4.* does not cover 2.40',
      app: single(vulnerable('cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*')),
      context: [httpd('2.40')],
      expected: [],
    },
    {
      rule: 'criterion version with the update folded in: 7.4p1 vs name 7.4:p1',
      app: single(vulnerable('cpe:2.3:a:openbsd:openssh:7.4p1:*:*:*:*:*:*:*')),
      context: [openssh('7.4', 'p1')],
      expected: [CONFIRMED_HIGH_EXACT],
    },
    {
      rule: 'criterion 7.4 with update ANY covers 7.4:p1',
      app: single(vulnerable('cpe:2.3:a:openbsd:openssh:7.4:*:*:*:*:*:*:*')),
      context: [openssh('7.4', 'p1')],
      expected: [CONFIRMED_HIGH_EXACT],
    },
    {
      rule: 'update criterion: cumulative_update_19 vs cu19 (folded)',
      app: single(vulnerable('cpe:2.3:a:microsoft:exchange_server:2016:cumulative_update_19:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:microsoft:exchange_server:2016:cu19:*:*:*:*:*:*')],
      expected: [CONFIRMED_HIGH_EXACT],
    },
    {
      rule: 'update criterion: another update does not match',
      app: single(vulnerable('cpe:2.3:a:microsoft:exchange_server:2016:cumulative_update_19:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:microsoft:exchange_server:2016:cumulative_update_20:*:*:*:*:*:*')],
      expected: [],
    },
    {
      rule: 'update criterion: a name without an update may be it (conditional)',
      app: single(vulnerable('cpe:2.3:a:microsoft:exchange_server:2016:cumulative_update_19:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:microsoft:exchange_server:2016:*:*:*:*:*:*:*')],
      expected: ['exact_version/conditional/low/unconfirmed'],
    },
    {
      rule: 'NA update criterion (log4j 2.0:-) does not match 2.0:beta9',
      app: single(vulnerable('cpe:2.3:a:apache:log4j:2.0:-:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:apache:log4j:2.0:beta9:*:*:*:*:*:*')],
      expected: [],
    },
    {
      rule: 'sw_edition lts criterion matches an lts name',
      app: single(vulnerable('cpe:2.3:a:jenkins:jenkins:*:*:*:*:lts:*:*:*', { endExcluding: '2.426.3' })),
      context: [fingerprint('cpe:2.3:a:jenkins:jenkins:2.426.2:*:*:*:lts:*:*:*')],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'sw_edition lts criterion excludes an NA (weekly) name',
      app: single(vulnerable('cpe:2.3:a:jenkins:jenkins:*:*:*:*:lts:*:*:*', { endExcluding: '2.426.3' })),
      context: [fingerprint('cpe:2.3:a:jenkins:jenkins:2.426.2:*:*:*:-:*:*:*')],
      expected: [],
    },
    {
      rule: 'sw_edition ANY in the name where the criterion constrains it: conditional',
      app: single(vulnerable('cpe:2.3:a:jenkins:jenkins:*:*:*:*:lts:*:*:*', { endExcluding: '2.426.3' })),
      context: [fingerprint('cpe:2.3:a:jenkins:jenkins:2.426.2:*:*:*:*:*:*:*')],
      expected: ['version_range/conditional/low/unconfirmed'],
    },
    {
      rule: 'another product is unrelated',
      app: single(vulnerable(HTTPD)),
      context: [fingerprint('cpe:2.3:a:f5:nginx:1.0:*:*:*:*:*:*:*')],
      expected: [],
    },
    {
      rule: 'part and vendor ANY in the criterion cover any vendor',
      app: single(vulnerable('cpe:2.3:*:*:nginx:*:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:f5:nginx:1.0:*:*:*:*:*:*:*')],
      expected: ['all_versions/satisfied/medium/confirmed'],
    },
    {
      rule: 'a name with vendor ANY names no product',
      app: single(vulnerable('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:*:nginx:1.0:*:*:*:*:*:*:*')],
      expected: [],
    },
    {
      rule: 'a vulnerable:false (platform) criterion alone gives no evidence',
      app: single(platform('cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*')),
      context: [os('cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*')],
      expected: [],
    },
  ]);
});

describe('§2.4 rules 1–3, 5: nodes, configurations, negate, platforms (three-valued)', () => {
  const APP = 'cpe:2.3:a:example:app:*:*:*:*:*:*:*:*';
  const app = fingerprint('cpe:2.3:a:example:app:1.5:*:*:*:*:*:*:*');
  const oldApp = fingerprint('cpe:2.3:a:example:app:3.0:*:*:*:*:*:*:*');
  const LIB = 'cpe:2.3:a:example:lib:*:*:*:*:*:*:*:*';
  const lib = fingerprint('cpe:2.3:a:example:lib:1.0:*:*:*:*:*:*:*');
  const OS = 'cpe:2.3:o:example:os:-:*:*:*:*:*:*:*';
  const theOs = os('cpe:2.3:o:example:os:-:*:*:*:*:*:*:*');
  const otherOs = os('cpe:2.3:o:other:os:1.0:*:*:*:*:*:*:*');
  const appInRange = vulnerable(APP, { endExcluding: '2.0' });
  const libInRange = vulnerable(LIB, { endExcluding: '2.0' });
  const platformAnd = (negateOs = false): CveApplicability =>
    nvd({
      operator: 'AND',
      negate: false,
      nodes: [or(appInRange), negateOs ? negated(or(platform(OS))) : or(platform(OS))],
    });

  check([
    {
      rule: 'OR node: one satisfied criterion is enough',
      app: single(vulnerable(LIB, { endExcluding: '0.1' }), appInRange),
      context: [app],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'AND[OR[app vulnerable], OR[os platform]] with the OS in the context: satisfied',
      app: platformAnd(),
      context: [app, theOs],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'AND[OR[app vulnerable], OR[os platform]] without the OS: conditional, not confirmed',
      app: platformAnd(),
      context: [app],
      expected: ['version_range/conditional/low/unconfirmed'],
    },
    {
      rule: 'AND[…] with another OS than the platform: still conditional (the scan may not show every OS)',
      app: platformAnd(),
      context: [app, otherOs],
      expected: ['version_range/conditional/low/unconfirmed'],
    },
    {
      rule: 'AND[…] with the platform but the app out of range: nothing',
      app: platformAnd(),
      context: [oldApp, theOs],
      expected: [],
    },
    {
      rule: 'AND[…] with only the platform: nothing (a platform is never the vulnerable thing)',
      app: platformAnd(),
      context: [theOs],
      expected: [],
    },
    {
      rule: 'AND node: every criterion satisfied',
      app: nvd({ negate: false, nodes: [andNode(appInRange, libInRange)] }),
      context: [app, lib],
      expected: [CONFIRMED_HIGH_RANGE, CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'AND node: the other product not shown → conditional',
      app: nvd({ negate: false, nodes: [andNode(appInRange, libInRange)] }),
      context: [app],
      expected: ['version_range/conditional/low/unconfirmed'],
    },
    {
      rule: 'AND node: the other vulnerable product shown at an excluded version → false',
      app: nvd({ negate: false, nodes: [andNode(appInRange, libInRange)] }),
      context: [app, fingerprint('cpe:2.3:a:example:lib:2.5:*:*:*:*:*:*:*')],
      expected: [],
    },
    {
      rule: 'configuration OR: any node',
      app: nvd({ operator: 'OR', negate: false, nodes: [or(libInRange), or(appInRange)] }),
      context: [app],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'configuration AND: every node (one missing → conditional)',
      app: nvd({ operator: 'AND', negate: false, nodes: [or(libInRange), or(appInRange)] }),
      context: [app],
      expected: ['version_range/conditional/low/unconfirmed'],
    },
    {
      rule: 'configurations are ORed: the second one applies',
      app: nvd({ negate: false, nodes: [or(libInRange)] }, { negate: false, nodes: [or(appInRange)] }),
      context: [app],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'node negate: NOT running on the OS, and the OS is there → false',
      app: platformAnd(true),
      context: [app, theOs],
      expected: [],
    },
    {
      rule: 'node negate: NOT running on the OS, OS not shown → conditional (NOT unknown = unknown)',
      app: platformAnd(true),
      context: [app],
      expected: ['version_range/conditional/low/unconfirmed'],
    },
    {
      rule: 'configuration negate: NOT[app] with the app present → false',
      app: nvd({ negate: true, nodes: [or(appInRange)] }),
      context: [app],
      expected: [],
    },
    {
      rule: 'configuration negate over a negated node: double negation holds',
      app: nvd({ negate: true, nodes: [negated(or(appInRange))] }),
      context: [app],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'an unparseable criterion makes an AND node unsatisfiable',
      app: nvd({ negate: false, nodes: [{ ...andNode(appInRange), invalidCriteria: ['cpe:2.3:a:broken'] }] }),
      context: [app],
      expected: [],
    },
    {
      rule: 'an unparseable criterion given directly in an AND node does the same',
      app: nvd({ negate: false, nodes: [andNode(appInRange, vulnerable('cpe:2.3:a:broken'))] }),
      context: [app],
      expected: [],
    },
    {
      rule: 'an unparseable criterion in an OR node is ignored',
      app: nvd({ negate: false, nodes: [{ ...or(appInRange), invalidCriteria: ['cpe:2.3:a:broken'] }] }),
      context: [app],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'an unparseable criterion in a negated node makes it unsatisfiable',
      app: nvd({
        negate: false,
        nodes: [or(appInRange), { ...negated(or(platform(OS))), invalidCriteria: ['x'] }],
        operator: 'AND',
      }),
      context: [app],
      expected: [],
    },
    {
      rule: 'a node with no criteria is never true',
      app: nvd({ operator: 'AND', negate: false, nodes: [or(appInRange), andNode()] }),
      context: [app],
      expected: [],
    },
    {
      rule: 'the same criterion in a satisfied and a conditional configuration: one row, the satisfied one',
      app: nvd(
        { negate: false, nodes: [or(appInRange)] },
        { operator: 'AND', negate: false, nodes: [or(appInRange), or(platform(OS))] },
      ),
      context: [app],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    { rule: 'no context, no evidence', app: single(vulnerable(APP)), context: [], expected: [] },
  ]);

  it('a satisfied OR with a definite and a possible name: the possible one stays conditional', () => {
    const evidence = evaluateApplicability(single(appInRange), [
      app,
      fingerprint('cpe:2.3:a:example:app:*:*:*:*:*:*:*:*'),
    ]);
    expect(evidence.map((e) => [e.cpe, summary(e)])).toEqual([
      ['cpe:2.3:a:example:app:*:*:*:*:*:*:*:*', 'version_unknown/conditional/low/unconfirmed'],
      ['cpe:2.3:a:example:app:1.5:*:*:*:*:*:*:*', CONFIRMED_HIGH_RANGE],
    ]);
  });
});

describe('evidence fields', () => {
  it('carries the record CPE, the alias it matched through, criterion, range text and source', () => {
    const app = single(
      vulnerable('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*', { startIncluding: '0.6.18', endExcluding: '1.20.1' }),
    );
    const context = [
      fingerprint('cpe:2.3:a:igor_sysoev:nginx:1.20.0:*:*:*:*:*:*:*', 'cpe:2.3:a:f5:nginx:1.20.0:*:*:*:*:*:*:*'),
    ];
    expect(evaluateApplicability(app, context)).toEqual([
      {
        cve: CVE,
        cpe: 'cpe:2.3:a:igor_sysoev:nginx:1.20.0:*:*:*:*:*:*:*',
        alias: 'cpe:2.3:a:f5:nginx:1.20.0:*:*:*:*:*:*:*',
        criterion: 'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*',
        range: '>= 0.6.18, < 1.20.1',
        kind: 'version_range',
        source: 'nvd',
        vulnerable: true,
        configuration: 'satisfied',
        confidence: 'high',
        confirmed: true,
      },
    ]);
  });

  it('names what the context left open', () => {
    const app = single(vulnerable('cpe:2.3:a:jenkins:jenkins:*:*:*:*:-:*:*:*', { endExcluding: '2.442' }));
    const [row] = evaluateApplicability(app, [fingerprint('cpe:2.3:a:jenkins:jenkins:2.441:*:*:*:*:*:*:*')]);
    expect(row!.unknownAttributes).toEqual(['sw_edition']);
    expect(row!.confirmed).toBe(false);
  });

  it("an OS CPE the service reports is the vulnerable element; the host's OS guess is not", () => {
    const app = single(
      vulnerable('cpe:2.3:o:fortinet:fortios:*:*:*:*:*:*:*:*', { startIncluding: '7.2.0', endExcluding: '7.2.2' }),
    );
    const fortios = 'cpe:2.3:o:fortinet:fortios:7.2.1:*:*:*:*:*:*:*';
    const [row] = evaluateApplicability(app, [fingerprint(fortios)]);
    expect(row).toMatchObject({ cpe: fortios, confirmed: true });
    expect(evaluateApplicability(app, [os(fortios)])).toEqual([]);
  });
});

describe('§2.5: CVE 5 affected entries that name CPEs', () => {
  const entry = (cpe: string, rest: Partial<AffectedCpes> = {}): AffectedCpes => ({ cpes: [cpe], ...rest });
  const range = (version: string, lessThan: string, versionType = 'semver', status = 'affected') => ({
    version,
    lessThan,
    versionType,
    status,
  });
  const EXAMPLE = 'cpe:2.3:a:example:enterprise:*:*:*:*:*:*:*:*';
  const example = (version: string) => fingerprint(`cpe:2.3:a:example:enterprise:${version}:*:*:*:*:*:*:*`);

  check([
    {
      rule: 'version ANY: the status algorithm says affected → version_range, high for semver',
      app: cve5(entry(EXAMPLE, { versions: [range('1.0.0', '1.0.6')], defaultStatus: 'unaffected' })),
      context: [example('1.0.5')],
      expected: [CONFIRMED_HIGH_RANGE],
    },
    {
      rule: 'version ANY: unaffected → no evidence',
      app: cve5(entry(EXAMPLE, { versions: [range('1.0.0', '1.0.6')], defaultStatus: 'unaffected' })),
      context: [example('1.0.6')],
      expected: [],
    },
    {
      rule: 'version ANY: unknown (defaultStatus unknown) → uncomparable, not confirmed',
      app: cve5(entry(EXAMPLE, { versions: [range('1.0.0', '1.0.6')], defaultStatus: 'unknown' })),
      context: [example('2.0.0')],
      expected: ['uncomparable/conditional/low/unconfirmed'],
    },
    {
      rule: 'versionType custom → medium',
      app: cve5(entry(EXAMPLE, { versions: [range('1.0.0', '1.0.6', 'custom')] })),
      context: [example('1.0.5')],
      expected: ['version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'a single affected version is exact_version',
      app: cve5(entry(EXAMPLE, { versions: [{ version: '2.4', status: 'affected' }] })),
      context: [example('2.4')],
      expected: [CONFIRMED_HIGH_EXACT],
    },
    {
      rule: 'a name without a version → version_unknown',
      app: cve5(entry(EXAMPLE, { versions: [range('1.0.0', '1.0.6')] })),
      context: [example('*')],
      expected: ['version_unknown/conditional/low/unconfirmed'],
    },
    {
      rule: 'concrete CPE version, no versions list: exact compare (equal)',
      app: cve5(entry('cpe:2.3:a:qualcomm:qpopper:2.4:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:qualcomm:qpopper:2.4.0:*:*:*:*:*:*:*')],
      expected: [CONFIRMED_HIGH_EXACT],
    },
    {
      rule: 'concrete CPE version, no versions list: exact compare (different)',
      app: cve5(entry('cpe:2.3:a:qualcomm:qpopper:2.4:*:*:*:*:*:*:*')),
      context: [fingerprint('cpe:2.3:a:qualcomm:qpopper:2.5:*:*:*:*:*:*:*')],
      expected: [],
    },
    {
      rule: 'CISA-ADP range start in the CPE (openssl:3.0.0 with 3.0.0 <= v < 3.0.7): versions decide',
      app: cve5(
        entry('cpe:2.3:a:openssl:openssl:3.0.0:*:*:*:*:*:*:*', {
          versions: [range('3.0.0', '3.0.7', 'custom')],
          defaultStatus: 'unknown',
        }),
      ),
      context: [fingerprint('cpe:2.3:a:openssl:openssl:3.0.5:*:*:*:*:*:*:*')],
      expected: ['version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'MSRC fixed build in the CPE: the fixed build itself is not confirmed',
      app: cve5(
        entry('cpe:2.3:o:microsoft:windows_server_2016:10.0.14393.5066:*:*:*:*:*:*:*', {
          versions: [range('10.0.0', '10.0.14393.5066', 'custom')],
        }),
      ),
      context: [fingerprint('cpe:2.3:o:microsoft:windows_server_2016:10.0.14393.5066:*:*:*:*:*:*:*')],
      expected: ['uncomparable/conditional/low/unconfirmed'],
    },
    {
      rule: 'MSRC fixed build in the CPE: an older build is affected',
      app: cve5(
        entry('cpe:2.3:o:microsoft:windows_server_2016:10.0.14393.5066:*:*:*:*:*:*:*', {
          versions: [range('10.0.0', '10.0.14393.5066', 'custom')],
        }),
      ),
      context: [fingerprint('cpe:2.3:o:microsoft:windows_server_2016:10.0.14393.4000:*:*:*:*:*:*:*')],
      expected: ['version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'NA CPE version never matches a concrete version, whatever versions says',
      app: cve5(entry('cpe:2.3:a:netapp:ontap_9:-:*:*:*:*:*:*:*', { versions: [range('0', '*', 'custom')] })),
      context: [fingerprint('cpe:2.3:a:netapp:ontap_9:9.8:*:*:*:*:*:*:*')],
      expected: [],
    },
    {
      rule: 'defaultStatus affected with no versions: every version',
      app: cve5(entry(EXAMPLE, { defaultStatus: 'affected' })),
      context: [example('7.0')],
      expected: ['all_versions/satisfied/medium/confirmed'],
    },
    {
      rule: 'outside every listed (unaffected) range, defaultStatus affected → all_versions',
      app: cve5(entry(EXAMPLE, { versions: [range('2.0', '3.0', 'semver', 'unaffected')], defaultStatus: 'affected' })),
      context: [example('1.0')],
      expected: ['all_versions/satisfied/medium/confirmed'],
    },
    {
      rule: 'inside a listed unaffected range, defaultStatus affected → nothing',
      app: cve5(entry(EXAMPLE, { versions: [range('2.0', '3.0', 'semver', 'unaffected')], defaultStatus: 'affected' })),
      context: [example('2.5')],
      expected: [],
    },
    {
      rule: 'platforms listed: the CPE cannot show the platform → conditional',
      app: cve5(entry(EXAMPLE, { versions: [range('1.0.0', '1.0.6')], platforms: ['Windows'] })),
      context: [example('1.0.5')],
      expected: ['version_range/conditional/low/unconfirmed'],
    },
    {
      rule: 'the entry CPE must cover every other attribute: target_hw x64 vs arm64',
      app: cve5(
        entry('cpe:2.3:o:microsoft:windows_10_1809:*:*:*:*:*:*:x64:*', {
          versions: [range('10.0.0', '10.0.17763.2803', 'custom')],
        }),
      ),
      context: [fingerprint('cpe:2.3:o:microsoft:windows_10_1809:10.0.17763.100:*:*:*:*:*:arm64:*')],
      expected: [],
    },
  ]);

  it('range text for an unknown status lists the versions and the default', () => {
    const app = cve5(entry(EXAMPLE, { versions: [range('1.0.0', '1.0.6')], defaultStatus: 'unknown' }));
    const [row] = evaluateApplicability(app, [example('2.0.0')]);
    expect(row!.range).toBe('1.0.0 <= v < 1.0.6 (semver); defaultStatus unknown');
  });

  it('range text names the entry that decided', () => {
    const app = cve5(entry(EXAMPLE, { versions: [range('0.1', '0.2'), range('2.4.0', '2.4.50', 'custom')] }));
    const [row] = evaluateApplicability(app, [example('2.4.49')]);
    expect(row).toMatchObject({ range: '2.4.0 <= v < 2.4.50 (custom)', source: 'adp', criterion: EXAMPLE });
  });
});

describe('evaluateMany / confirmedCves', () => {
  const a = { ...single(vulnerable(HTTPD, { endExcluding: '2.4.50' })), cveId: 'CVE-2021-0002' };
  const b = { ...single(vulnerable(HTTPD, { endExcluding: '2.4.40' })), cveId: 'CVE-2021-0001' };
  const c = { ...single(vulnerable('cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*')), cveId: 'CVE-2021-0003' };
  const d = { ...single(vulnerable(HTTPD, { endExcluding: 'n/a' })), cveId: 'CVE-2021-0004' };

  it('maps each CVE with evidence, in id order, and lists the confirmed ones', () => {
    const byCve = evaluateMany([d, c, b, a], [httpd('2.4.45')]);
    expect([...byCve.keys()]).toEqual(['CVE-2021-0002', 'CVE-2021-0003', 'CVE-2021-0004']);
    expect(confirmedCves(byCve)).toEqual(['CVE-2021-0002', 'CVE-2021-0003']);
    expect(confirmedCves([...byCve.values()].flat())).toEqual(['CVE-2021-0002', 'CVE-2021-0003']);
  });
});
