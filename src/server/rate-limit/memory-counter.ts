import { type CountingMode, windowIndex, type RateCounter, type WindowCount } from './counter.js';

/** Counters in this process only: each instance enforces the budget on its own. */
export class MemoryCounter implements RateCounter {
  private readonly windows = new Map<string, { index: number; count: number }>();

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    return this.hitNow(key, windowMs, now);
  }

  hitNow(key: string, windowMs: number, now: number): WindowCount {
    const index = windowIndex(now, windowMs);
    const fullKey = `${key}:${windowMs}`;
    let entry = this.windows.get(fullKey);
    if (!entry || entry.index !== index) {
      // Keys are (token, group) pairs, so the map stays small; still, never let it grow unbounded.
      if (this.windows.size > 100_000) this.windows.clear();
      entry = { index, count: 0 };
      this.windows.set(fullKey, entry);
    }
    entry.count++;
    return { count: entry.count, resetAt: (index + 1) * windowMs };
  }

  mode(): CountingMode {
    return 'memory';
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
