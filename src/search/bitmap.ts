import roaring from 'roaring';

export const { RoaringBitmap32 } = roaring;
export type Bitmap = InstanceType<typeof RoaringBitmap32>;

const EMPTY = new RoaringBitmap32();

/** Intersection of all, smallest first (a new bitmap; inputs untouched). */
export function intersectAll(bitmaps: Bitmap[]): Bitmap {
  if (bitmaps.length === 0) throw new Error('intersectAll needs at least one bitmap');
  const sorted = [...bitmaps].sort((a, b) => a.size - b.size);
  let result = sorted[0]!.clone();
  for (let i = 1; i < sorted.length && !result.isEmpty; i++) result.andInPlace(sorted[i]!);
  return result;
}

export function unionAll(bitmaps: Bitmap[]): Bitmap {
  if (bitmaps.length === 0) return new RoaringBitmap32();
  if (bitmaps.length === 1) return bitmaps[0]!.clone();
  return RoaringBitmap32.orMany(bitmaps);
}

export const emptyBitmap = (): Bitmap => EMPTY.clone();

/**
 * Removes the values in one native call, or one call per value for a few: the bulk call takes a
 * typed array, and allocating one costs more than it saves on short lists.
 */
export function removeAll(bitmap: Bitmap, values: readonly number[]): void {
  if (values.length <= FEW) for (const value of values) bitmap.remove(value);
  else bitmap.removeMany(Uint32Array.from(values));
}

const FEW = 8;
