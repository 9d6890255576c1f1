import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstByTime } from './first-by-time.js';

/** The reference: every id sorted by (time, id), then the first `count`. */
function bySort(ids: number[], count: number, time: Map<number, number>, order: 'asc' | 'desc'): number[] {
  const sorted = [...ids].sort((a, b) => time.get(a)! - time.get(b)! || a - b);
  if (order === 'desc') sorted.reverse();
  return sorted.slice(0, Math.max(0, count));
}

describe('firstByTime', () => {
  it('equals a full sort by (time, id), whatever the ties and the count', () => {
    fc.assert(
      fc.property(
        // Few distinct times (many ties) or many; up to 3,000 ids; counts around and past the size.
        fc.uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { maxLength: 3000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: -5, max: 3100 }),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.integer(),
        (unique, distinctTimes, count, order, seed) => {
          const ids = [...unique].sort((a, b) => a - b);
          const time = new Map(
            ids.map((id) => [id, 1_700_000_000_000 + ((Math.imul(id ^ seed, 2654435761) >>> 0) % distinctTimes)]),
          );
          expect(firstByTime(Uint32Array.from(ids), count, (id) => time.get(id)!, order)).toEqual(
            bySort(ids, count, time, order),
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it.each([
    { name: 'all times equal, descending', times: [5, 5, 5, 5], count: 2, order: 'desc' as const, expected: [4, 3] },
    { name: 'all times equal, ascending', times: [5, 5, 5, 5], count: 3, order: 'asc' as const, expected: [1, 2, 3] },
    {
      name: 'boundary tie taken from the high ids first',
      times: [9, 7, 7, 7, 1],
      count: 3,
      order: 'desc' as const,
      expected: [1, 4, 3],
    },
    {
      name: 'boundary tie taken from the low ids first',
      times: [9, 7, 7, 7, 1],
      count: 3,
      order: 'asc' as const,
      expected: [5, 2, 3],
    },
    { name: 'count of zero', times: [1, 2], count: 0, order: 'asc' as const, expected: [] },
    { name: 'count past the size', times: [3, 1, 2], count: 10, order: 'desc' as const, expected: [1, 3, 2] },
  ])('$name', ({ times, count, order, expected }) => {
    const ids = Uint32Array.from(times.map((_, i) => i + 1));
    expect(firstByTime(ids, count, (id) => times[id - 1]!, order)).toEqual(expected);
  });
});
