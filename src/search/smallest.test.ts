import { describe, expect, it } from 'vitest';
import { smallest } from './page.js';

/** Deterministic pseudo-random numbers (a fixed LCG), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('smallest (first ids of a page, by a bounded heap)', () => {
  const keyed = (keys: Map<number, number>) => (a: number, b: number) => keys.get(a)! - keys.get(b)! || a - b;

  it.each([
    { n: 0, count: 10 },
    { n: 5, count: 10 },
    { n: 10, count: 10 },
    { n: 1000, count: 1 },
    { n: 1000, count: 100 },
    { n: 4096, count: 250 },
    { n: 300, count: 0 },
  ])('equals a full sort cut to $count of $n ids, ties broken by id, with and without a filter', ({ n, count }) => {
    for (let seed = 1; seed <= 20; seed++) {
      const next = random(seed * 7919 + n);
      const ids = Uint32Array.from({ length: n }, (_, i) => i * 3 + 1);
      // Few distinct keys, so ties are common.
      const keys = new Map([...ids].map((id) => [id, Math.floor(next() * 50)]));
      const compare = keyed(keys);
      const accept = (id: number) => id % 2 === 1;
      expect(smallest(ids, count, compare)).toEqual([...ids].sort(compare).slice(0, count));
      expect(smallest(ids, count, compare, accept)).toEqual([...ids].filter(accept).sort(compare).slice(0, count));
      const descending = (a: number, b: number) => compare(b, a);
      expect(smallest(ids, count, descending)).toEqual([...ids].sort(descending).slice(0, count));
    }
  });
});
