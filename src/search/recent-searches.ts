import type { Bitmap } from './bitmap.js';

export interface RememberedSearch {
  needles: Uint8Array[] | undefined;
  domains: Uint8Array[] | undefined;
  records: Bitmap;
}

/**
 * The results of the most recent searches, least recently used first out. The owner keeps them
 * exact as records come and go, so repeating a search — as every page of a cursor walk does —
 * costs a bitmap copy instead of checking every candidate again.
 */
export class RecentSearches {
  private readonly entries = new Map<string, RememberedSearch>();

  constructor(private readonly limit: number) {}

  get(key: string): RememberedSearch | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  remember(key: string, entry: RememberedSearch): void {
    this.entries.set(key, entry);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }

  values(): IterableIterator<RememberedSearch> {
    return this.entries.values();
  }
}
