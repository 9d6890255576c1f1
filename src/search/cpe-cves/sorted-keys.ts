/** Binary searches over ascending string keys. */

/** The first index whose value is > key. */
export function upperBound(sorted: readonly string[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! <= key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first index whose value is ≥ key. */
export function lowerBound(sorted: readonly string[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}
