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
 * ascending, as facet values. A bounded heap: a field may hold a hundred thousand values.
 */
export function topValues(
  field: FacetField,
  size: number,
  top: number,
  countAt: (index: number) => number,
  valueAt: (index: number) => string | number,
): { values: FacetValue[]; indexes: number[] } {
  const byValue = valueOrder(field);
  const all = new Uint32Array(size);
  for (let i = 0; i < size; i++) all[i] = i;
  const indexes = smallest(all, top, (a, b) => countAt(b) - countAt(a) || byValue(valueAt(a), valueAt(b)));
  return { values: indexes.map((i) => ({ value: valueAt(i), count: countAt(i) })), indexes };
}
