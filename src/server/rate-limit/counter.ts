/**
 * Fixed-window request counters, one per (token, endpoint group). Windows are aligned to
 * multiples of their length since the epoch, so every instance agrees on where one starts.
 */
export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** When the window ends (epoch ms). */
  resetAt: number;
}

/**
 * Where the counts live right now: `shared` (Redis, every instance spends one budget),
 * `per-instance` (Redis is configured but unreachable, so each instance counts alone for now),
 * `memory` (no Redis configured: each instance always counts alone).
 */
export type CountingMode = 'shared' | 'per-instance' | 'memory';

export interface RateCounter {
  /** Counts one request under `key` in the window of length `windowMs` containing `now`. */
  hit(key: string, windowMs: number, now: number): Promise<WindowCount>;
  mode(): CountingMode;
  close(): Promise<void>;
}

export const windowIndex = (now: number, windowMs: number) => Math.floor(now / windowMs);
