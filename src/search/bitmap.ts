import roaring from 'roaring';

export const { RoaringBitmap32 } = roaring;
export type Bitmap = InstanceType<typeof RoaringBitmap32>;

const EMPTY = new RoaringBitmap32();

/**
 * Intersection of all, smallest first. With one input, that input itself; otherwise a new bitmap
 * holding only the intersection. Callers treat the result as read only: copying a posting list
 * per query (millions of ids at 10M records) was most of a broad query's time, the copying itself
 * and the garbage collections its native memory set off.
 */
export function intersectAll(bitmaps: Bitmap[]): Bitmap {
  if (bitmaps.length === 0) throw new Error('intersectAll needs at least one bitmap');
  if (bitmaps.length === 1) return bitmaps[0]!;
  const sorted = [...bitmaps].sort((a, b) => a.size - b.size);
  const result = RoaringBitmap32.and(sorted[0]!, sorted[1]!);
  for (let i = 2; i < sorted.length && !result.isEmpty; i++) result.andInPlace(sorted[i]!);
  return result;
}

/** Union of all: with one input, that input itself (read only, as for intersectAll). */
export function unionAll(bitmaps: Bitmap[]): Bitmap {
  if (bitmaps.length === 0) return new RoaringBitmap32();
  if (bitmaps.length === 1) return bitmaps[0]!;
  return RoaringBitmap32.orMany(bitmaps);
}

/**
 * `owned` (made by the caller) united with read-only `others`, in one allocation: `owned` itself
 * when there are none, else a new bitmap, `owned` being freed at once (see intersectAll).
 */
export function uniteOwned(owned: Bitmap, others: Bitmap[]): Bitmap {
  if (others.length === 0) return owned;
  const union = RoaringBitmap32.orMany([owned, ...others]);
  owned.clear();
  return union;
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

/** Scratch words of the bitset behind bitmapOfUnsorted, kept all zero between calls. */
let bitsetWords = new Uint32Array(1 << 12);
let sortedScratch = new Uint32Array(1 << 12);
/** Values from which writing the portable format beats handing roaring the sorted values. */
const PORTABLE_FROM = 16_384;

/** 32-bit words in one container of the bitmap (65,536 values), and the most values an array container holds. */
const CONTAINER_WORDS = 2048;
const ARRAY_CONTAINER_MAX = 4096;
/** Roaring's portable serialisation without run containers (RoaringFormatSpec). */
const PORTABLE_NO_RUNS_COOKIE = 12346;
/** The format is little-endian, and its dense containers are copied from the bitset's words as the host lays them out. */
const HOST_LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * A bitmap of `values` in any order (ids mapped through a table: slots to ranks, items to slots),
 * each below `bound`. Built from random order, a bitmap inserts into the middle of its arrays
 * value by value, so the values are gathered in a bitset first; and as roaring adds even sorted
 * values one at a time, many are handed over as its portable serialisation, dense containers as
 * the bitset's own words.
 */
export function bitmapOfUnsorted(values: Uint32Array, bound: number): Bitmap {
  const words = (bound >>> 5) + 1;
  // Walking a bitset of far more words than values costs more than sorting the values.
  if (values.length * 16 < words) return new RoaringBitmap32(values.slice().sort());
  const padded = Math.ceil(words / CONTAINER_WORDS) * CONTAINER_WORDS;
  if (bitsetWords.length < padded) bitsetWords = new Uint32Array(Math.max(padded, bitsetWords.length * 2));
  const bits = bitsetWords;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    bits[value >>> 5]! |= 1 << (value & 31);
  }
  return values.length >= PORTABLE_FROM && HOST_LITTLE_ENDIAN
    ? portableOf(bits, padded)
    : sortedOf(bits, words, values.length);
}

/** The bitmap of the set bits, taken in order (and cleared). */
function sortedOf(bits: Uint32Array, words: number, most: number): Bitmap {
  if (sortedScratch.length < most) sortedScratch = new Uint32Array(Math.max(most, sortedScratch.length * 2));
  const sorted = sortedScratch;
  let count = 0;
  for (let word = 0; word < words; word++) {
    let set = bits[word]!;
    if (set === 0) continue;
    bits[word] = 0;
    while (set !== 0) {
      const lowest = set & -set;
      sorted[count++] = (word << 5) + 31 - Math.clz32(lowest);
      set ^= lowest;
    }
  }
  return new RoaringBitmap32(sorted.subarray(0, count));
}

/** The bitmap of the set bits, through roaring's portable format (and cleared). */
function portableOf(bits: Uint32Array, padded: number): Bitmap {
  const keys: number[] = [];
  const cardinalities: number[] = [];
  let bytes = 0;
  for (let key = 0; key * CONTAINER_WORDS < padded; key++) {
    let cardinality = 0;
    for (let w = key * CONTAINER_WORDS, end = w + CONTAINER_WORDS; w < end; w++) cardinality += popcount(bits[w]!);
    if (cardinality === 0) continue;
    keys.push(key);
    cardinalities.push(cardinality);
    bytes += cardinality > ARRAY_CONTAINER_MAX ? CONTAINER_WORDS * 4 : cardinality * 2;
  }
  const header = 8 + 8 * keys.length;
  const out = Buffer.allocUnsafe(header + bytes);
  out.writeUInt32LE(PORTABLE_NO_RUNS_COOKIE, 0);
  out.writeUInt32LE(keys.length, 4);
  let offset = header;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const cardinality = cardinalities[i]!;
    out.writeUInt16LE(key, 8 + 4 * i);
    out.writeUInt16LE(cardinality - 1, 10 + 4 * i);
    out.writeUInt32LE(offset, 8 + 4 * keys.length + 4 * i);
    const first = key * CONTAINER_WORDS;
    if (cardinality > ARRAY_CONTAINER_MAX) {
      // A bitmap container is the 65,536 bits little-endian: the bitset's words as they lie.
      out.set(new Uint8Array(bits.buffer, first * 4, CONTAINER_WORDS * 4), offset);
      offset += CONTAINER_WORDS * 4;
    } else {
      for (let w = first; w < first + CONTAINER_WORDS; w++) {
        let set = bits[w]!;
        while (set !== 0) {
          const lowest = set & -set;
          out.writeUInt16LE(((w - first) << 5) + 31 - Math.clz32(lowest), offset);
          offset += 2;
          set ^= lowest;
        }
      }
    }
    bits.fill(0, first, first + CONTAINER_WORDS);
  }
  return RoaringBitmap32.deserialize(out, 'portable');
}

function popcount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
