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

export interface RateCounter {
  /** Counts one request under `key` in the window of length `windowMs` containing `now`. */
  hit(key: string, windowMs: number, now: number): Promise<WindowCount>;
  close(): Promise<void>;
}

export const windowIndex = (now: number, windowMs: number) => Math.floor(now / windowMs);
