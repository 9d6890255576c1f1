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

  it('leaves its scratch clear: a later call sees none of an earlier one', () => {
    bitmapOfUnsorted(Uint32Array.from([5, 70_000, 3]), 70_000);
    expect(Array.from(bitmapOfUnsorted(Uint32Array.from([9, 1]), 70_000).toUint32Array())).toEqual([1, 9]);
  });
});
