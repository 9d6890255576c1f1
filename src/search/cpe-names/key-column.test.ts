import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyColumnBuilder } from './key-column.js';
import { Slicer } from '../slices.js';

/** Enough ranks for slices to span both levels of block bitmaps (4,096 and 65,536 positions). */
const RANKS = 200_000;

describe('KeyColumn', () => {
  it('gives, for any value or value prefix, exactly the ranks holding it', async () => {
    const values = ['-', '1', '1.0', '1.0.1', '1.1', '10', '2', '2.4', '2.4.49', 'a', 'b\u{1F600}', 'b\uE000'];
    const keyOf: string[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const builder = new KeyColumnBuilder();
    for (let rank = 0; rank < RANKS; rank++) {
      // Skewed: a few values hold most ranks, so slices cross many blocks.
      const key = values[Math.floor(random() ** 2 * values.length)]!;
      keyOf.push(key);
      builder.add(key);
    }
    const column = await builder.finish(new Slicer(0));
    const ranksWhere = (test: (key: string) => boolean) => keyOf.flatMap((key, rank) => (test(key) ? [rank] : []));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...values, '', '1.', '3', 'b', 'c'), fc.boolean(), async (value, prefix) => {
        const [from, to] = prefix ? column.prefix(value) : column.exact(value);
        const expected = ranksWhere((key) => (prefix ? key.startsWith(value) : key === value));
        expect(to - from).toBe(expected.length);
        expect(column.bitmap(from, to).toArray()).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});
