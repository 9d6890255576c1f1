/**
 * A bounded map that forgets entries not used recently: bounded by entry count, or by the
 * entries' estimated bytes when given a weigher (cached CVE lists differ a thousandfold in size).
 * Eviction is second-chance (CLOCK): a read only marks its entry, and the oldest entry is
 * dropped unless it was read since it was last passed over, so reads cost one lookup.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number; used: boolean }>();
  private held = 0;
  /** Stays on the oldest entry: a new iterator each time would step over every deleted slot before it again. */
  private hand: IterableIterator<K> = this.entries.keys();

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
      const oldest = this.advanceHand();
      const entry = this.entries.get(oldest)!;
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

  /** The oldest key; the hand then moves past it. */
  private advanceHand(): K {
    let next = this.hand.next();
    if (next.done) {
      this.hand = this.entries.keys();
      next = this.hand.next();
    }
    return next.value as K;
  }

  private delete(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.held -= entry.weight;
  }
}
