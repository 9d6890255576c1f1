/**
 * A bounded map that forgets the least recently used entries first: bounded by entry count, or
 * by the entries' estimated bytes when given a weigher (cached CVE lists differ a thousandfold in size).
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>();
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
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value, key);
    this.entries.set(key, { value, weight });
    this.held += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.capacity || oldest === key) break;
      this.entries.delete(oldest);
      this.held -= entry.weight;
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
