/**
 * A client-side sliding-window limiter: at most `limit` requests start within any `windowMs`. Used
 * to stay inside the NVD APIs' public limits (5 requests per rolling 30 s without an API key, 50
 * with one). Time comes from an injected clock, so tests check the schedule without waiting.
 */

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export class SlidingWindowLimiter {
  /** Start times of the requests inside the current window, oldest first. */
  private readonly starts: number[] = [];
  /** Callers are served one at a time, in arrival order. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError('the limiter needs limit >= 1 and windowMs > 0');
  }

  /** Resolves when one more request may start (and counts it as started). */
  acquire(): Promise<void> {
    const turn = this.tail.then(() => this.take());
    this.tail = turn.catch(() => {});
    return turn;
  }

  private async take(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      while (this.starts.length > 0 && this.starts[0]! <= now - this.windowMs) this.starts.shift();
      if (this.starts.length < this.limit) {
        this.starts.push(now);
        return;
      }
      await this.clock.sleep(this.starts[0]! + this.windowMs - now);
    }
  }
}
