/**
 * The match index answers exactly like the linear reference (`recordMatches` on every record),
 * for random match data, random filters, and while records are set and deleted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MatchCriterion, MatchData, MatchEntry } from '../../core/advisory/facts.js';
import { needsMatchData, type AdvisoryFilters } from '../../core/advisory/filters.js';
import { recordMatches } from '../../core/advisory/match.js';
import { parseCpeQuery } from '../../core/cpe.js';
import type { Cve5VersionEntry } from '../../core/version/cve5-affected.js';
import { RoaringBitmap32 } from '../bitmap.js';
import { AdvisoryMatchIndex, type MatchIndexOptions } from './match-index.js';

/** Versions that collide across schemes, spellings and the rules' special cases. */
const VERSIONS = [
  '0',
  '1',
  '1.0',
  '1.0.0',
  '1.2',
  '1.2.3',
  '1.2.3-rc.1',
  '1.2.3-RC.1',
  '1.2.4',
  '2.0',
  '2.0.0',
  'v2.0.0',
  'V1.2.3',
  ' 1.2.3 ',
  '2.*',
  '1.x',
  '3.0.0-alpha',
  '3.0.0',
  '1.0a',
  '1.0b1',
  '7.4p1',
  '7.4',
  '1.0.2k',
  '1.0.2',
  '0:1.2-3',
  '1.2-3',
  '1:1.0',
  '1.2-1',
  'n/a',
  '*',
  '< 2.0',
  '2.0 and earlier',
  'abc',
  '1.0.0+build',
  '5.10',
  '5.10.1',
  '10.0',
  '1.0~rc1',
  '1.0.post1',
  '1.0.dev1',
  '2.0-1',
  '1.2.3.4',
  'abc1',
  '1.0foo',
  '1.0.0-0',
  '4.0.0',
  'unspecified',
  '2.0.9-6,2.1.2-3',
  '1.2.3.RELEASE',
  '1.0-SNAPSHOT',
  'go1.21.3',
  '1!1.0',
  '1.0+local',
];
/** Versions every scheme reads, so that most comparisons are exact and rules are placed on positions. */
const CLEAN = ['0.9.0', '1.0.0', '1.2.3', '1.2.4', '1.2.3-rc.1', '2.0.0', '3.0.0'];
const version = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...CLEAN) },
  { weight: 1, arbitrary: fc.constantFrom(...VERSIONS) },
);
const TYPES = [undefined, 'semver', 'npm', 'maven', 'rpm', 'deb', 'python', 'gem', 'go', 'custom', 'git', '', 'Semver'];
const STATUSES = ['affected', 'unaffected', 'unknown', undefined];
const CPES = [
  'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*',
  'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*',
  'cpe:2.3:a:other:gadget:*:*:*:*:*:*:*:*',
  'cpe:2.3:a:acme:widget:1.2.3:*:*:*:*:*:*:*',
  'cpe:2.3:a:acme:widget:1.2.*:*:*:*:*:*:*:*',
  'cpe:2.3:a:acme:*:*:*:*:*:*:*:*:*',
  'cpe:2.3:a:other:gadget:2.0:*:*:*:*:*:*:*',
  'cpe:2.3:a:other:gadget:*:*:*:*:*:*:*:*',
  'cpe:2.3:a:acme:widget:-:*:*:*:*:*:*:*',
  'cpe:2.3:o:acme:widget:*:*:*:*:*:*:*:*',
  'cpe:2.3:a:*:widget:*:*:*:*:*:*:*:*',
  'cpe:2.3:a:acme:widget:*:sp1:*:*:*:*:*:*',
  'cpe:2.3:a:acme:wid*:*:*:*:*:*:*:*:*',
  'cpe:2.3:a:ACME:Widget:1.0:*:*:*:*:*:*:*',
  'cpe:2.3:a:acme:widget:7.4:p1:*:*:*:*:*:*',
  'not a cpe',
];
const QUERY_CPES = [
  'cpe:2.3:a:acme:widget:1.2.4',
  'cpe:2.3:a:acme:widget:1.0.0',
  'cpe:2.3:a:acme:widget:1.2.3-rc.1',
  'cpe:2.3:a:acme:widget',
  'cpe:2.3:a:acme:widget:1.2.3',
  'cpe:2.3:a:acme:widget:2.0',
  'cpe:2.3:a:acme:*:2.0',
  'cpe:2.3:*:*:widget:1.0',
  'cpe:2.3:a:acme:widget:1.2.3:sp1',
  'cpe:2.3:a:acme:widget:-',
  'cpe:2.3:a:other:gadget:2.0.0',
  'cpe:2.3:a:acme:widget:7.4:p1',
  'cpe:2.3:a:acme:widget:1.2.*',
  'cpe:2.3:a:acme:wid*:1.0',
  'cpe:2.3:o:acme:widget:1.0a',
  'cpe:2.3:a:-:widget:1.0',
];

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
/** Present one time in four: several filters together rarely match anything. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

const change = fc.record({ at: version, status: pick(['affected', 'unaffected', 'unknown']) });
/** `0` up to `*`: decided without comparing, so also for a version the scheme cannot read. */
const everyVersion: fc.Arbitrary<Cve5VersionEntry> = fc
  .record({ versionType: pick(['semver', 'maven', 'rpm', 'python', 'deb']), status: pick(STATUSES) })
  .map((item) => defined({ version: '0', lessThan: '*', ...item }));
const boundedItem: fc.Arbitrary<Cve5VersionEntry> = fc
  .record({
    version: fc.oneof(
      { weight: 6, arbitrary: version },
      { weight: 1, arbitrary: fc.constant('0') },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    status: pick(STATUSES),
    versionType: fc.oneof(
      { weight: 4, arbitrary: pick(['semver', 'maven', 'rpm', 'deb', 'python', undefined]) },
      { weight: 1, arbitrary: pick(TYPES) },
    ),
    bound: pick(['none', 'none', 'lessThan', 'lessThanOrEqual', 'both'] as const),
    upper: fc.oneof({ weight: 4, arbitrary: version }, { weight: 1, arbitrary: pick(['*', '2.*', '1.2.x']) }),
    changes: optional(fc.array(change, { maxLength: 3 })),
  })
  .map(({ bound, upper, ...item }) =>
    defined({
      ...item,
      lessThan: bound === 'lessThan' || bound === 'both' ? upper : undefined,
      lessThanOrEqual: bound === 'lessThanOrEqual' || bound === 'both' ? upper : undefined,
    }),
  );

const versionItem = fc.oneof({ weight: 5, arbitrary: boundedItem }, { weight: 1, arbitrary: everyVersion });

const entry: fc.Arbitrary<MatchEntry> = fc
  .record({
    vendor: optional(pick(['acme', 'other'])),
    product: optional(pick(['widget', 'gadget'])),
    platforms: optional(fc.subarray(['linux', 'windows'], { minLength: 1 })),
    packageName: optional(pick(['lib', 'tool'])),
    packages: optional(fc.subarray(['npm:lib', 'pypi:lib'], { minLength: 1 })),
    cpes: optional(fc.subarray(CPES, { minLength: 1, maxLength: 3 })),
    versions: optional(fc.array(versionItem, { minLength: 0, maxLength: 4 })),
    defaultStatus: pick(STATUSES),
  })
  .map(defined);

const criterion: fc.Arbitrary<MatchCriterion> = fc
  .record({
    criteria: pick(CPES),
    range: optional(
      fc
        .record({
          startIncluding: optional(version),
          startExcluding: optional(version),
          endIncluding: optional(version),
          endExcluding: optional(version),
        })
        .map(defined),
    ),
  })
  .map(defined);

const matchData: fc.Arbitrary<MatchData> = fc.record({
  entries: fc.array(entry, { maxLength: 3 }),
  criteria: fc.array(criterion, { maxLength: 3 }),
});

const filters: fc.Arbitrary<AdvisoryFilters> = fc
  .record({
    vendor: sometimes(pick(['acme', 'other', 'nobody'])),
    product: sometimes(pick(['widget', 'gadget', '*'])),
    platform: sometimes(pick(['linux', 'windows'])),
    packageName: sometimes(pick(['lib', 'tool'])),
    packageKey: sometimes(pick(['npm:lib', 'pypi:lib'])),
    version: fc.option(version, { nil: undefined, freq: 3 }),
    cpe: sometimes(pick(QUERY_CPES).map(parseCpeQuery)),
  })
  .map(defined)
  .filter(needsMatchData);

/** How many queries the reference answered with at least one record (the properties must not be vacuous). */
const answered = { queries: 0, nonEmpty: 0 };

function reference(records: Map<number, MatchData>, query: AdvisoryFilters): number[] {
  const slots = [...records]
    .filter(([, data]) => recordMatches(data, query))
    .map(([slot]) => slot)
    .sort((a, b) => a - b);
  answered.queries++;
  if (slots.length > 0) answered.nonEmpty++;
  return slots;
}

describe('AdvisoryMatchIndex', () => {
  it('answers exactly like recordMatches on every record', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(matchData, { maxLength: 12 }),
        fc.array(filters, { minLength: 1, maxLength: 8 }),
        async (datas, queries) => {
          const index = new AdvisoryMatchIndex();
          const records = new Map<number, MatchData>();
          datas.forEach((data, slot) => {
            index.set(slot, data);
            records.set(slot, data);
          });
          for (const query of queries) {
            expect((await index.matching(query)).toArray(), JSON.stringify(query)).toEqual(reference(records, query));
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(answered.nonEmpty).toBeGreaterThan(answered.queries / 5);
  });

  it.each<[string, MatchIndexOptions]>([
    ['structures rebuilt before answering after every change', { staleAfter: (): number => 0, waitAbove: 0 }],
    ['rebuilt in the background after every change', { staleAfter: (): number => 0 }],
    ['changes since the build decided by the reference', {}],
  ])('stays exact while records are set, replaced and deleted (%s)', async (_label, options) => {
    const step = fc.oneof(
      fc.record({ op: fc.constant('set' as const), slot: fc.nat(15), data: matchData }),
      fc.record({ op: fc.constant('delete' as const), slot: fc.nat(15) }),
      fc.record({
        op: fc.constant('query' as const),
        query: filters,
        candidates: optional(fc.subarray([...Array(16).keys()])),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
        const index = new AdvisoryMatchIndex(options);
        const records = new Map<number, MatchData>();
        for (const s of steps) {
          if (s.op === 'set') {
            index.set(s.slot, s.data);
            records.set(s.slot, s.data);
          } else if (s.op === 'delete') {
            index.delete(s.slot);
            records.delete(s.slot);
          } else {
            const candidates = s.candidates ? new RoaringBitmap32(s.candidates) : undefined;
            const expected = reference(records, s.query).filter((slot) => !s.candidates || s.candidates.includes(slot));
            expect((await index.matching(s.query, candidates)).toArray(), JSON.stringify(s.query)).toEqual(expected);
          }
        }
        expect(index.size).toBe(records.size);
      }),
      { numRuns: 200 },
    );
  });
});
