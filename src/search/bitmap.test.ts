import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bitmapOfUnsorted } from './bitmap.js';

describe('bitmapOfUnsorted', () => {
  it('holds exactly the distinct values, through the bitset and the sort path alike', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 200_000 }), { maxLength: 3_000 }),
        fc.nat({ max: 1_000_000 }),
        (values, slack) => {
          const bound = Math.max(0, ...values) + slack;
          const bitmap = bitmapOfUnsorted(Uint32Array.from(values), bound);
          expect(Array.from(bitmap.toUint32Array())).toEqual([...new Set(values)].sort((a, b) => a - b));
        },
      ),
    );
  });

  it('holds exactly the distinct values when containers are dense (over 4,096 values in 65,536)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 140_000 }), { minLength: 4_000, maxLength: 40_000 }),
        fc.nat({ max: 100_000 }),
        (values, slack) => {
          const bound = Math.max(0, ...values) + slack;
          const bitmap = bitmapOfUnsorted(Uint32Array.from(values), bound);
          expect(Array.from(bitmap.toUint32Array())).toEqual([...new Set(values)].sort((a, b) => a - b));
        },
      ),
      { numRuns: 40 },
    );
  });

  // 20,000 values in a fourth container take every case to the portable format.
  const filler = Array.from({ length: 20_000 }, (_, i) => 196_608 + i * 3);
  it.each([
    ['4,096 values in one container (an array container)', 4_096],
    ['4,097 values in one container (a bitmap container)', 4_097],
    ['every value of a container', 65_536],
  ])('%s', (_name, count) => {
    const spread = Array.from({ length: count }, (_, i) => 65_536 + ((i * 7_919) % count) * Math.floor(65_536 / count));
    const values = Uint32Array.from([...filler, ...spread].reverse());
    const expected = [...new Set(values)].sort((a, b) => a - b);
    const bitmap = bitmapOfUnsorted(values, 300_000);
    expect(bitmap.size).toBe(expected.length);
    expect(Array.from(bitmap.toUint32Array())).toEqual(expected);
  });

  it('leaves its scratch clear: a later call sees none of an earlier one', () => {
    bitmapOfUnsorted(Uint32Array.from([5, 70_000, 3]), 70_000);
    expect(Array.from(bitmapOfUnsorted(Uint32Array.from([9, 1]), 70_000).toUint32Array())).toEqual([1, 9]);
  });
});
