/**
 * A bounded map that forgets entries not used recently: bounded by entry count, or by the
 * entries' estimated bytes when given a weigher (cached CVE lists differ a thousandfold in size).
 * Eviction is second-chance (CLOCK): a read only marks its entry, and the oldest entry is
 * dropped unless it was read since it was last passed over, so reads cost one lookup.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number; used: boolean }>();
  private held = 0;

  constructor(
    private readonly capacity: number,
    private readonly weigh: (value: V, key: K) => number = () => 1,
  ) {}

  has(key: K): boolean {
    return this.entries.has(key);
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value, key);
    this.entries.set(key, { value, weight, used: false });
    this.held += weight;
    while (this.held > this.capacity && this.entries.size > 1) {
      const [oldest, entry] = this.entries.entries().next().value as [K, { value: V; weight: number; used: boolean }];
      this.entries.delete(oldest);
      // The entry just set is never the one dropped.
      if (entry.used || oldest === key) {
        entry.used = false;
        this.entries.set(oldest, entry);
      } else this.held -= entry.weight;
    }
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  /** Entries held, and their weight (entries, or estimated bytes). */
  get stats(): { entries: number; weight: number } {
    return { entries: this.entries.size, weight: this.held };
  }

  private delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.held -= entry.weight;
  }
}
