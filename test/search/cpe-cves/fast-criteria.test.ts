/**
 * When fast-criteria.ts says a row is decided by keys, the key test gives exactly the verdict of
 * name-match.ts (through criterion.ts, as CPE search uses it) for every name of the product:
 * every-version rows, exact versions (raw or update-folded key) and bounds on the folded key.
 * And the interval stabbing structure returns exactly the intervals holding a key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { affectedCoversName, criterionCoversName } from '../../../src/core/applicability/criterion.js';
import { COVERING_KINDS } from '../../../src/core/applicability/evaluate.js';
import { indexedCriteria, nameLookupOf } from '../../../src/core/applicability/index-keys.js';
import type { AffectedCpes, CpeMatchCriterion, CveApplicability } from '../../../src/core/applicability/types.js';
import { parseCpe } from '../../../src/core/cpe.js';
import { versionSortKey } from '../../../src/core/version/sort-key.js';
import { fastCriterionOf, type FastCriterion } from '../../../src/search/cpe-cves/fast-criteria.js';
import {
  intervalContains,
  IntervalStabbing,
  type KeyInterval,
} from '../../../src/search/cpe-cves/interval-stabbing.js';
import { applicability, name, VERSIONS } from './random-knowledge.js';

const keyDecides = (fast: FastCriterion, lookup: ReturnType<typeof nameLookupOf>): boolean => {
  if (fast.type === 'all') return true;
  if (fast.type === 'exact') return fast.key === lookup.rawKey || fast.key === lookup.foldedKey;
  if (lookup.foldedKey === undefined) return false;
  return intervalContains({ ...fast, value: 0 }, lookup.foldedKey);
};

const covering = (kind: string | undefined) => kind !== undefined && COVERING_KINDS.has(kind as never);

/** Every criterion and affected entry of an applicability, each as its own applicability. */
function items(
  app: Omit<CveApplicability, 'cveId'>,
): Array<{ item: CpeMatchCriterion | AffectedCpes; app: CveApplicability }> {
  const out: Array<{ item: CpeMatchCriterion | AffectedCpes; app: CveApplicability }> = [];
  for (const statement of app.statements) {
    for (const configuration of statement.configurations)
      for (const node of configuration.nodes)
        for (const item of node.cpeMatch)
          out.push({
            item,
            app: {
              cveId: 'CVE-0000-0000',
              origin: app.origin,
              statements: [
                {
                  source: statement.source,
                  configurations: [{ negate: false, nodes: [{ operator: 'OR', negate: false, cpeMatch: [item] }] }],
                  affected: [],
                },
              ],
            },
          });
    for (const item of statement.affected)
      out.push({
        item,
        app: {
          cveId: 'CVE-0000-0000',
          origin: app.origin,
          statements: [{ source: statement.source, configurations: [], affected: [item] }],
        },
      });
  }
  return out;
}

/** Criteria of the shapes decided by keys, so most cases exercise them (the random knowledge mixes every shape). */
const keyShaped: fc.Arbitrary<Omit<CveApplicability, 'cveId'>> = fc
  .record({
    version: fc.constantFrom('*', '*', ...VERSIONS),
    range: fc.record(
      {
        startIncluding: fc.constantFrom(...VERSIONS),
        startExcluding: fc.constantFrom(...VERSIONS),
        endIncluding: fc.constantFrom(...VERSIONS),
        endExcluding: fc.constantFrom(...VERSIONS),
      },
      { requiredKeys: [] },
    ),
    affected: fc.boolean(),
  })
  .map(({ version, range, affected }) => {
    const criteria = `cpe:2.3:a:acme:widget:${version}:*:*:*:*:*:*:*`;
    if (affected)
      return {
        origin: 'mitre-cvelist-v5' as const,
        statements: [
          { source: 'cna' as const, configurations: [], affected: [{ cpes: [criteria], defaultStatus: 'affected' }] },
        ],
      };
    return {
      origin: 'nist-nvd2' as const,
      statements: [
        {
          source: 'nvd' as const,
          configurations: [
            {
              negate: false,
              nodes: [{ operator: 'OR' as const, negate: false, cpeMatch: [{ vulnerable: true, criteria, range }] }],
            },
          ],
          affected: [],
        },
      ],
    };
  });

describe('criteria decided by version keys', () => {
  it('give the verdict of the exact evaluation for every name of their product', () => {
    let decided = 0;
    fc.assert(
      fc.property(fc.oneof(applicability, keyShaped), fc.array(name, { minLength: 1, maxLength: 10 }), (app, names) => {
        for (const { item, app: single } of items(app)) {
          const rows = indexedCriteria(single);
          for (const cpe of names) {
            const wfn = parseCpe(cpe);
            const lookup = nameLookupOf(wfn);
            const own = rows.filter(
              (row) => row.part === lookup.part && row.vendor === lookup.vendor && row.product === lookup.product,
            );
            const fast = own.map(fastCriterionOf);
            // Only criteria whose every row of the product is decided by keys skip the evaluation.
            if (own.length === 0 || rows.length !== own.length || fast.some((f) => f === undefined)) continue;
            const expected =
              'cpes' in item
                ? covering(affectedCoversName(item, wfn)?.kind)
                : covering(criterionCoversName(item, wfn)?.kind);
            expect(fast.some((f) => keyDecides(f!, lookup))).toBe(expected);
            decided++;
          }
        }
      }),
      { numRuns: 3000 },
    );
    expect(decided).toBeGreaterThan(1000);
  });

  it.each([
    ['cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*', undefined, { type: 'all' }],
    ['cpe:2.3:a:acme:widget:2.0:*:*:*:*:*:*:*', undefined, { type: 'exact', key: versionSortKey('2.0') }],
    [
      'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*',
      { startIncluding: '1.0', endExcluding: '2.0' },
      {
        type: 'range',
        start: versionSortKey('1.0'),
        startInclusive: true,
        end: versionSortKey('2.0'),
        endInclusive: false,
      },
    ],
    ['cpe:2.3:a:acme:widget:2.0:-:*:*:*:*:*:*', undefined, undefined],
    ['cpe:2.3:a:acme:widget:*:*:*:*:*:windows:*:*', undefined, undefined],
    ['cpe:2.3:a:*:widget:*:*:*:*:*:*:*:*', undefined, undefined],
    ['cpe:2.3:a:acme:widget:2.0:*:*:*:*:*:*:*', { endExcluding: '3.0' }, undefined],
    ['cpe:2.3:a:acme:widget:2.0.*:*:*:*:*:*:*:*', undefined, undefined],
  ])('%s %j → %j', (criteria, range, expected) => {
    const rows = indexedCriteria({
      cveId: 'CVE-0000-0001',
      origin: 'nist-nvd2',
      statements: [
        {
          source: 'nvd',
          configurations: [
            {
              negate: false,
              nodes: [
                {
                  operator: 'OR',
                  negate: false,
                  cpeMatch: [{ vulnerable: true, criteria, ...(range ? { range } : {}) }],
                },
              ],
            },
          ],
          affected: [],
        },
      ],
    });
    expect(rows.map(fastCriterionOf)).toEqual([expected]);
  });
});

const keyOf = (version: string) => versionSortKey(version)!;
const KEYS = [...new Set(VERSIONS.map((v) => versionSortKey(v)).filter((k): k is string => k !== undefined))];

describe('interval stabbing', () => {
  const interval: fc.Arbitrary<KeyInterval> = fc
    .record(
      {
        start: fc.constantFrom(...KEYS),
        startInclusive: fc.boolean(),
        end: fc.constantFrom(...KEYS),
        endInclusive: fc.boolean(),
      },
      { requiredKeys: ['startInclusive', 'endInclusive'] },
    )
    .chain((r) => fc.nat({ max: 40 }).map((value) => ({ ...r, value })));

  it('returns exactly the values whose interval holds the key, for keys seen and unseen', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(interval, { maxLength: 300 }),
        fc.array(fc.oneof(fc.constantFrom(...KEYS), fc.constantFrom(...['0.5', '1.5', '9', '2.0.0.1'].map(keyOf))), {
          minLength: 1,
          maxLength: 20,
        }),
        async (intervals, keys) => {
          const stabbing = await IntervalStabbing.build(intervals, 41);
          for (const key of keys) {
            const expected = [...new Set(intervals.filter((i) => intervalContains(i, key)).map((i) => i.value))].sort(
              (a, b) => a - b,
            );
            const { covering, extra } = stabbing.stab(key);
            const got = [...new Set([...covering.toArray(), ...extra])].sort((a, b) => a - b);
            expect(got).toEqual(expected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
