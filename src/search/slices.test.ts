import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeSliced, Slicer, sortSliced } from './slices.js';

describe('sliced sort and merge', () => {
  it('sortSliced sorts like Array.prototype.sort, stably', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 3000 }), async (keys) => {
        // Items are indexes into `keys`; equal keys keep their index order.
        const items = Uint32Array.from(keys.keys());
        const byKey = (a: number, b: number) => keys[a]! - keys[b]!;
        const sorted = await sortSliced(items, byKey, new Slicer());
        expect([...sorted]).toEqual([...keys.keys()].sort((a, b) => byKey(a, b) || a - b));
      }),
    );
  });

  it('mergeSliced merges two sorted lists', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(1000)), fc.array(fc.nat(1000)), async (a, b) => {
        const left = Uint32Array.from(a.sort((x, y) => x - y));
        const right = Uint32Array.from(b.sort((x, y) => x - y));
        const merged = await mergeSliced(left, right, (x, y) => x - y, new Slicer());
        expect([...merged]).toEqual([...a, ...b].sort((x, y) => x - y));
      }),
    );
  });
});
