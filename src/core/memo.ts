/**
 * A bounded memo for pure functions of a string. Scans repeat the same few thousand CPEs and
 * identities, so remembering recent results saves most of the parsing; when full, the memo starts
 * over (cheaper than tracking recency, and a scan's working set refills it at once). The default
 * holds the tens of thousands of distinct CPEs a large scan carries (50k in the 1M-record bench):
 * a memo smaller than the working set starts over every few thousand lookups and saves little.
 * Results are shared between callers: they must not be mutated.
 */
export function boundedMemo<V>(compute: (key: string) => V, limit = 100_000): (key: string) => V {
  const results = new Map<string, V>();
  return (key) => {
    const known = results.get(key);
    // One lookup for the common case; `has` only tells a remembered undefined from a miss.
    if (known !== undefined || results.has(key)) return known as V;
    const value = compute(key);
    if (results.size >= limit) results.clear();
    results.set(key, value);
    return value;
  };
}
