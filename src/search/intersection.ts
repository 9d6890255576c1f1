import { intersectAll, RoaringBitmap32, type Bitmap } from './bitmap.js';

/**
 * The ids in every one of some bitmaps, counted and met with sort buckets without building the
 * whole intersection first: a page needs the exact total and the few buckets that hold it, and
 * building every match of a broad pair (asn + port at 10M records: 290k of 1.1M and 2.8M) was
 * most of such a query's time, growing with the result.
 *
 * The inputs are read only. Three or more are reduced to two by intersecting all but the largest;
 * the bitmaps made here are freed by {@link free}.
 */
export class Intersection {
  /** One or two bitmaps, smallest first. */
  private readonly parts: Bitmap[];
  private readonly owned: Bitmap[] = [];
  private whole: Bitmap | undefined;

  constructor(inputs: Bitmap[]) {
    if (inputs.length === 0) throw new Error('an intersection needs at least one bitmap');
    const sorted = [...inputs].sort((a, b) => a.size - b.size);
    if (sorted.length <= 2) {
      this.parts = sorted;
      return;
    }
    const largest = sorted.pop()!;
    this.parts = [this.own(intersectAll(sorted)), largest];
  }

  /** An intersection of one bitmap made by the caller: freed with this one. */
  static ofOwned(bitmap: Bitmap): Intersection {
    const intersection = new Intersection([bitmap]);
    intersection.own(bitmap);
    return intersection;
  }

  get size(): number {
    const [first, second] = this.parts;
    return second ? first!.andCardinality(second) : first!.size;
  }

  /** `bucket` ∩ this, as a new bitmap (the caller frees it). */
  within(bucket: Bitmap): Bitmap {
    const result = RoaringBitmap32.and(bucket, this.parts[0]!);
    if (this.parts[1] && !result.isEmpty) result.andInPlace(this.parts[1]);
    return result;
  }

  /** Every id, built once (read only; freed with this). */
  all(): Bitmap {
    const [first, second] = this.parts;
    if (!second) return first!;
    this.whole ??= this.own(RoaringBitmap32.and(first!, second));
    return this.whole;
  }

  /** Frees the bitmaps made here (not the inputs). */
  free(): void {
    for (const bitmap of this.owned) bitmap.clear();
    this.owned.length = 0;
    this.whole = undefined;
  }

  private own(bitmap: Bitmap): Bitmap {
    this.owned.push(bitmap);
    return bitmap;
  }
}
