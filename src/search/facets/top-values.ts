import { smallest } from '../page.js';
import { type FacetField, type FacetValue, NUMERIC_FIELDS } from './fields.js';

/** Ascending order of a field's values: numbers and `AS<number>` numerically, text by character code. */
export function valueOrder(field: FacetField): (a: string | number, b: string | number) => number {
  if (!NUMERIC_FIELDS.has(field)) return (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  const numberOf = (value: string | number) => (typeof value === 'number' ? value : Number(value.replace(/^AS/i, '')));
  return (a, b) => numberOf(a) - numberOf(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The `top` entries (of `size`, each with a count and a value) by count descending then value
 * ascending, as facet values. The counts alone decide all but the ties at the last place kept, so
 * values are made only for the entries kept and those ties: a field may hold a hundred thousand
 * values, and making each one's text was most of choosing.
 */
export function topValues(
  field: FacetField,
  size: number,
  top: number,
  countAt: (index: number) => number,
  valueAt: (index: number) => string | number,
): { values: FacetValue[]; indexes: number[] } {
  if (top <= 0 || size === 0) return { values: [], indexes: [] };
  const counts = new Float64Array(size);
  for (let i = 0; i < size; i++) counts[i] = countAt(i);
  const last = size <= top ? Number.NEGATIVE_INFINITY : lowestOfLargest(counts, top);
  const above: number[] = [];
  const ties: number[] = [];
  for (let i = 0; i < size; i++) {
    if (counts[i]! > last) above.push(i);
    else if (counts[i] === last) ties.push(i);
  }
  const byValue = valueOrder(field);
  const made = new Map<number, string | number>();
  const cachedValue = (i: number) => {
    let value = made.get(i);
    if (value === undefined) {
      value = valueAt(i);
      made.set(i, value);
    }
    return value;
  };
  const order = (a: number, b: number) => counts[b]! - counts[a]! || byValue(cachedValue(a), cachedValue(b));
  const kept = smallest(Uint32Array.from(ties), top - above.length, order);
  const indexes = [...above, ...kept].sort(order);
  return { values: indexes.map((i) => ({ value: cachedValue(i), count: counts[i]! })), indexes };
}

/** The smallest of the `top` largest counts (a bounded min-heap over numbers only). */
function lowestOfLargest(counts: Float64Array, top: number): number {
  const heap = new Float64Array(top);
  let length = 0;
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i]!;
    if (length < top) {
      let at = length++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent]! <= count) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = count;
    } else if (count > heap[0]!) {
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= top) break;
        const right = left + 1;
        const child = right < top && heap[right]! < heap[left]! ? right : left;
        if (heap[child]! >= count) break;
        heap[at] = heap[child]!;
        at = child;
      }
      heap[at] = count;
    }
  }
  return heap[0]!;
}
