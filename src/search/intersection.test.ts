import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../ingest/demo/random.js';
import { RoaringBitmap32, type Bitmap } from './bitmap.js';
import { Intersection } from './intersection.js';

/** `count` random ids below `range` (dense enough for bitmap containers when count is large). */
function randomBitmap(random: SeededRandom, count: number, range: number): Bitmap {
  const bitmap = new RoaringBitmap32();
  for (let i = 0; i < count; i++) bitmap.add(Math.floor(random.next() * range));
  return bitmap;
}

const naive = (inputs: Bitmap[]) => inputs.slice(1).reduce((acc, b) => RoaringBitmap32.and(acc, b), inputs[0]!.clone());

describe('Intersection: counts and meets buckets as the built intersection would', () => {
  const shapes: Array<{ name: string; sizes: number[] }> = [
    { name: 'one input', sizes: [50_000] },
    { name: 'two broad inputs (bitmap containers)', sizes: [120_000, 300_000] },
    { name: 'a rare and a broad input', sizes: [40, 300_000] },
    { name: 'three inputs', sizes: [200_000, 90_000, 300_000] },
    { name: 'four inputs, one empty', sizes: [200_000, 0, 300_000, 5_000] },
  ];

  it.each(shapes)('$name', ({ sizes }) => {
    const random = new SeededRandom(sizes.length * 7919 + sizes[0]!);
    const range = 1_000_000;
    const inputs = sizes.map((size) => randomBitmap(random, size, range));
    const before = inputs.map((input) => input.toUint32Array());
    const expected = naive(inputs);
    const intersection = new Intersection(inputs);

    expect(intersection.size).toBe(expected.size);
    expect(intersection.all().toUint32Array()).toEqual(expected.toUint32Array());
    for (const [from, to] of [
      [0, 65_536],
      [300_000, 310_000],
      [999_000, 1_000_000],
    ]) {
      const bucket = RoaringBitmap32.fromRange(from!, to!);
      expect(intersection.within(bucket).toUint32Array()).toEqual(
        RoaringBitmap32.and(bucket, expected).toUint32Array(),
      );
    }
    intersection.free();
    // The inputs are read only: nothing made or freed here touches them.
    for (const [i, input] of inputs.entries()) expect(input.toUint32Array()).toEqual(before[i]);
  });

  it('ofOwned frees the bitmap it was given', () => {
    const owned = RoaringBitmap32.of(1, 2, 3);
    const intersection = Intersection.ofOwned(owned);
    expect(intersection.size).toBe(3);
    intersection.free();
    expect(owned.size).toBe(0);
  });
});
