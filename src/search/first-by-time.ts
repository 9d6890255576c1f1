/**
 * The first `count` of `ids` (ascending, as a bitmap yields them) in (time, id) order, ascending or
 * descending, where `timeOf` reads a record's time.
 *
 * An hour bucket of a broad query at 10M records holds thousands of ids of which a page needs a
 * hundred: sorting them all with a comparator that reads two columns per comparison was most of
 * such a query's time, and grew with the bucket. Instead the times are copied and sorted natively,
 * which gives the time the page ends at; only the ids before that time are sorted with the
 * comparator, and the ids at exactly that time are already in id order, however many tie.
 */
export function firstByTime(
  ids: Uint32Array,
  count: number,
  timeOf: (id: number) => number,
  order: 'asc' | 'desc',
): number[] {
  const n = ids.length;
  if (count <= 0) return [];
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) times[i] = timeOf(ids[i]!);
  if (count >= n) return sortAll(ids, times, order);
  const sorted = times.slice().sort();
  const boundary = order === 'asc' ? sorted[count - 1]! : sorted[n - count]!;
  const before: number[] = [];
  for (let i = 0; i < n; i++) {
    const time = times[i]!;
    if (order === 'asc' ? time < boundary : time > boundary) before.push(i);
  }
  const result = before
    .sort((a, b) => (order === 'asc' ? times[a]! - times[b]! || a - b : times[b]! - times[a]! || b - a))
    .map((i) => ids[i]!);
  // Positions follow ids, so ties at the boundary come in id order from either end.
  if (order === 'asc') {
    for (let i = 0; i < n && result.length < count; i++) if (times[i] === boundary) result.push(ids[i]!);
  } else {
    for (let i = n - 1; i >= 0 && result.length < count; i--) if (times[i] === boundary) result.push(ids[i]!);
  }
  return result;
}

function sortAll(ids: Uint32Array, times: Float64Array, order: 'asc' | 'desc'): number[] {
  const positions = Array.from({ length: ids.length }, (_, i) => i);
  positions.sort((a, b) => (order === 'asc' ? times[a]! - times[b]! || a - b : times[b]! - times[a]! || b - a));
  return positions.map((i) => ids[i]!);
}
