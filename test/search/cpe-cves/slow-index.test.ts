/**
 * The per-name criteria filed by their rows' keys give exactly the criteria one of whose rows
 * passes the index contract's test (rowMayMatch) for a name's lookup, with enough ranges that
 * the interval structure cuts its keys into many blocks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowMayMatch, type NameLookup } from '../../../src/core/applicability/index-keys.js';
import type { IndexedCriterion } from '../../../src/core/applicability/types.js';
import { SlowCriteriaIndex } from '../../../src/search/cpe-cves/slow-index.js';
import type { SlowCriterion } from '../../../src/search/cpe-cves/slow-criteria.js';

const KEYS = Array.from({ length: 60 }, (_, i) => `k${String(i).padStart(2, '0')}`);
const key = fc.constantFrom(...KEYS);
const BASE = { part: 'a', vendor: 'acme', product: 'widget', vulnerable: true, source: 'nvd', criterion: 'x' } as const;

const row: fc.Arbitrary<IndexedCriterion> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ ...BASE, alwaysCheck: true }) },
  { weight: 1, arbitrary: fc.constant({ ...BASE, unbounded: true }) },
  { weight: 3, arbitrary: key.map((exactKey) => ({ ...BASE, exactKey })) },
  { weight: 1, arbitrary: fc.constant({ ...BASE }) },
  {
    weight: 10,
    arbitrary: fc
      .record(
        { startKey: key, startInclusive: fc.boolean(), endKey: key, endInclusive: fc.boolean() },
        { requiredKeys: ['startInclusive', 'endInclusive'] },
      )
      .map((bounds) => ({ ...BASE, ...bounds })),
  },
);

const criterion = fc
  .array(row, { minLength: 1, maxLength: 3 })
  .map((rows): SlowCriterion => ({ cve: 0, vulnerable: true, rows, covers: () => true }));

const lookup: fc.Arbitrary<NameLookup> = fc
  .record({ rawKey: key, foldedKey: key })
  .map((keys) => ({ part: 'a', vendor: 'acme', product: 'widget', ...keys }));

describe('SlowCriteriaIndex', () => {
  it('gives the criteria a row of which may cover the name', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(criterion, { minLength: 1, maxLength: 300 }),
        fc.array(lookup, { minLength: 1, maxLength: 20 }),
        async (criteria, lookups) => {
          const index = await SlowCriteriaIndex.build(criteria, async () => {});
          for (const wanted of lookups) {
            const expected = criteria.flatMap((c, i) => (c.rows.some((r) => rowMayMatch(r, wanted)) ? [i] : []));
            expect(index.candidatesOf(wanted)).toEqual(expected);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('asks for every criterion when the name lacks a key or reads a family', async () => {
    const index = await SlowCriteriaIndex.build(
      [{ cve: 0, vulnerable: true, rows: [{ ...BASE, exactKey: 'k01' }], covers: () => true }],
      async () => {},
    );
    expect(index.candidatesOf({ part: 'a', vendor: 'acme', product: 'widget' })).toBeUndefined();
    expect(
      index.candidatesOf({
        part: 'a',
        vendor: 'acme',
        product: 'widget',
        rawKey: 'k01',
        foldedKey: 'k01',
        familyEndKey: 'k02',
      }),
    ).toBeUndefined();
  });
});
