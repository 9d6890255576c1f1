/**
 * Random vulnerability knowledge and CPE names over a small vocabulary, so criteria and names meet
 * often: NVD configurations (ranges with every bound kind, exact versions, ANY, NA, patterns,
 * updates, target_sw and other attributes, wildcard vendors and products, vulnerable false) and
 * CVE 5 affected entries (versions with lessThan / lessThanOrEqual, version types, default status,
 * platforms, and long lists of single releases under many CPEs of one product).
 */
import fc from 'fast-check';
import { indexedCriteria } from '../../../src/core/applicability/index-keys.js';
import type {
  AffectedCpes,
  ApplicabilityStatement,
  CpeMatchCriterion,
  CveApplicability,
} from '../../../src/core/applicability/types.js';
import type { VersionRange } from '../../../src/core/version/range.js';
import type { Storage } from '../../../src/storage/index.js';
import type { KnowledgeWrite } from '../../../src/storage/knowledge/index.js';

export const VERSIONS = [
  '1.0',
  '1.0.0',
  '1.2',
  '1.10',
  '2.0',
  '2.0.1',
  '2.0-beta1',
  '2.0rc1',
  '3',
  '7.4',
  '7.4p1',
  '10.0.17763.2237',
  '2016',
  'abc',
] as const;
const UPDATES = ['*', '*', '*', '-', 'p1', 'sp2', 'beta3', 'rc1', 'ga', 'cumulative_update_19', 'cu19', '1'] as const;
const TARGETS = ['*', '*', '*', 'windows', 'linux'] as const;
const OTHERS = ['*', '*', '*', '*', 'x64'] as const;
const VENDORS = ['acme', 'acme', 'beta'] as const;
const PRODUCTS = ['widget', 'widget', 'gadget'] as const;
const PARTS = ['a', 'a', 'o'] as const;

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);

const cpeOf = (p: {
  part: string;
  vendor: string;
  product: string;
  version: string;
  update: string;
  target: string;
  other: string;
}) => `cpe:2.3:${p.part}:${p.vendor}:${p.product}:${p.version}:${p.update}:*:*:*:${p.target}:*:${p.other}`;

/** A criterion's CPE: mostly the product itself, sometimes a wildcard identity or a pattern version. */
const criterionCpe = fc
  .record({
    part: fc.oneof({ weight: 9, arbitrary: pick(PARTS) }, { weight: 1, arbitrary: fc.constant('*') }),
    vendor: fc.oneof({ weight: 9, arbitrary: pick(VENDORS) }, { weight: 1, arbitrary: fc.constant('*') }),
    product: fc.oneof(
      { weight: 12, arbitrary: pick(PRODUCTS) },
      { weight: 1, arbitrary: fc.constant('*') },
      { weight: 1, arbitrary: fc.constant('wid*') },
    ),
    version: fc.oneof(
      { weight: 6, arbitrary: fc.constant('*') },
      { weight: 6, arbitrary: pick(VERSIONS) },
      { weight: 1, arbitrary: fc.constant('-') },
      { weight: 1, arbitrary: fc.constant('2.0.*') },
    ),
    update: pick(UPDATES),
    target: pick(TARGETS),
    other: pick(OTHERS),
  })
  .map(cpeOf);

const range: fc.Arbitrary<VersionRange | undefined> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  {
    weight: 5,
    arbitrary: fc
      .record(
        {
          startIncluding: pick(VERSIONS),
          startExcluding: pick(VERSIONS),
          endIncluding: pick(VERSIONS),
          endExcluding: pick(VERSIONS),
        },
        { requiredKeys: [] },
      )
      .map((r) => {
        // Both kinds of one end together are rare: keep them in one case in eight.
        const out: VersionRange = { ...r };
        if (out.startIncluding && out.startExcluding && out.startIncluding.length % 8 !== 0) delete out.startExcluding;
        if (out.endIncluding && out.endExcluding && out.endIncluding.length % 8 !== 0) delete out.endExcluding;
        return out;
      }),
  },
);

const cpeMatch: fc.Arbitrary<CpeMatchCriterion> = fc
  .record({ criteria: criterionCpe, vulnerable: fc.boolean(), range })
  .map(({ criteria, vulnerable, range }) => ({ criteria, vulnerable, ...(range ? { range } : {}) }));

const versionEntry = fc
  .record(
    {
      // Placeholders, "every version", release lines and range texts as real records write them.
      version: fc.oneof(
        { weight: 12, arbitrary: pick([...VERSIONS, '0']) },
        {
          weight: 1,
          arbitrary: pick(['n/a', 'unspecified', '-', 'all versions', '2.x', '7.4.*', '< 2.0', '1.x < 2.0']),
        },
      ),
      status: pick(['affected', 'affected', 'unaffected', 'unknown']),
      versionType: pick(['semver', 'custom', 'git']),
      lessThan: pick([...VERSIONS, '*']),
      lessThanOrEqual: fc.oneof(
        { weight: 6, arbitrary: pick(VERSIONS) },
        { weight: 1, arbitrary: pick(['2.0.*', '7.x']) },
      ),
    },
    { requiredKeys: ['version', 'status'] },
  )
  .map((entry) => {
    if (entry.lessThan !== undefined) delete entry.lessThanOrEqual;
    return entry;
  });

const affected: fc.Arbitrary<AffectedCpes> = fc
  .record(
    {
      cpes: fc.array(criterionCpe, { minLength: 1, maxLength: 2 }),
      versions: fc.array(versionEntry, { maxLength: 3 }),
      defaultStatus: pick(['affected', 'unaffected', 'unknown']),
      platforms: fc.constant(['Linux']),
    },
    { requiredKeys: ['cpes'] },
  )
  .map((entry) => entry as AffectedCpes);

/** A vendor's list (Cisco's style): one product under many CPEs that differ in version, and every affected release listed. */
const releaseList: fc.Arbitrary<AffectedCpes> = fc
  .record({
    identity: fc.record({ part: pick(PARTS), vendor: pick(VENDORS), product: pick(PRODUCTS) }),
    cpeVersions: fc.array(pick([...VERSIONS, '*', '-']), { minLength: 2, maxLength: 6 }),
    versions: fc.array(
      fc.record(
        {
          // Mostly readable releases (a list with an unreadable one is evaluated entry by entry).
          version: fc.oneof(
            { weight: 30, arbitrary: pick(VERSIONS.filter((v) => v !== 'abc')) },
            { weight: 1, arbitrary: fc.constant('abc') },
            { weight: 1, arbitrary: fc.constant('n/a') },
          ),
          status: pick(['affected', 'affected', 'unaffected', 'unknown']),
          versionType: pick(['custom']),
        },
        { requiredKeys: ['version', 'status'] },
      ),
      { minLength: 16, maxLength: 24 },
    ),
    defaultStatus: pick(['affected', 'unaffected', 'unknown']),
  })
  .map(({ identity, cpeVersions, versions, defaultStatus }) => ({
    cpes: cpeVersions.map((version) => cpeOf({ ...identity, version, update: '*', target: '*', other: '*' })),
    versions,
    defaultStatus,
  }));

const nvdStatement: fc.Arbitrary<ApplicabilityStatement> = fc
  .array(
    fc.record({
      operator: pick(['OR', 'OR', 'AND'] as const),
      cpeMatch: fc.array(cpeMatch, { minLength: 1, maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 2 },
  )
  .map((nodes) => ({
    source: 'nvd',
    configurations: [{ negate: false, nodes: nodes.map((node) => ({ ...node, negate: false })) }],
    affected: [],
  }));

const cnaStatement: fc.Arbitrary<ApplicabilityStatement> = fc
  .array(fc.oneof({ weight: 3, arbitrary: affected }, { weight: 1, arbitrary: releaseList }), {
    minLength: 1,
    maxLength: 2,
  })
  .map((entries) => ({ source: 'cna', configurations: [], affected: entries }));

/** The applicability of one CVE (its id set later). */
export const applicability: fc.Arbitrary<Omit<CveApplicability, 'cveId'>> = fc.oneof(
  { weight: 3, arbitrary: nvdStatement.map((s) => ({ origin: 'nist-nvd2' as const, statements: [s] })) },
  { weight: 1, arbitrary: cnaStatement.map((s) => ({ origin: 'mitre-cvelist-v5' as const, statements: [s] })) },
);

/** A CPE name as the dictionary holds them: concrete identity, any version or update. */
export const name = fc
  .record({
    part: pick(PARTS),
    vendor: pick(VENDORS),
    product: pick(PRODUCTS),
    version: fc.oneof({ weight: 8, arbitrary: pick(VERSIONS) }, { weight: 1, arbitrary: pick(['*', '-']) }),
    update: pick(UPDATES),
    target: pick(TARGETS),
    other: pick(OTHERS),
  })
  .map(cpeOf);

export const writeOf = (cveId: string, app: Omit<CveApplicability, 'cveId'>): KnowledgeWrite => {
  const full: CveApplicability = { cveId, ...app };
  return { applicability: full, criteria: indexedCriteria(full), contentHash: `test:${cveId}:${JSON.stringify(app)}` };
};

/** An NVD applicability of one vulnerable criterion, below `endExcluding` when given. */
export const oneCriterion = (criteria: string, endExcluding?: string): Omit<CveApplicability, 'cveId'> => ({
  origin: 'nist-nvd2',
  statements: [
    {
      source: 'nvd',
      affected: [],
      configurations: [
        {
          negate: false,
          nodes: [
            {
              operator: 'OR',
              negate: false,
              cpeMatch: [{ criteria, vulnerable: true, ...(endExcluding ? { range: { endExcluding } } : {}) }],
            },
          ],
        },
      ],
    },
  ],
});

const cveIdOf = (i: number) => `CVE-2024-${String(1000 + i)}`;

/** Later changes to random knowledge: a CVE (one written, or a new one) replaced or removed. */
export const knowledgeChanges = fc.array(
  fc.record({ at: fc.nat(), app: fc.option(applicability, { nil: undefined }) }),
  { maxLength: 4 },
);

type Change = { at: number; app: Omit<CveApplicability, 'cveId'> | undefined };

/**
 * Property runs over one storage: each run replaces the previous run's knowledge with `apps`
 * (which the indexes see as a change too), checks, then applies each change and checks again.
 */
export function changingKnowledge(storage: Pick<Storage, 'knowledge'>) {
  let written: string[] = [];
  return async (apps: Array<Omit<CveApplicability, 'cveId'>>, changes: Change[], check: () => Promise<void>) => {
    if (written.length > 0) await storage.knowledge.remove(written);
    await storage.knowledge.replace(apps.map((app, i) => writeOf(cveIdOf(i), app)));
    written = apps.map((_, i) => cveIdOf(i));
    await check();
    for (const change of changes) {
      const id = cveIdOf(change.at % (apps.length + 2));
      if (change.app) await storage.knowledge.replace([writeOf(id, change.app)]);
      else await storage.knowledge.remove([id]);
      if (!written.includes(id)) written.push(id);
      await check();
    }
  };
}
