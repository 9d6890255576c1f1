import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter, type Clock } from './rate-limiter.js';

/** Time moves only when slept on or advanced: the schedule is checked without waiting. */
function fakeClock(start: number) {
  let time = start;
  const sleeps: number[] = [];
  const clock: Clock & { sleeps: number[]; advance(ms: number): void; readonly time: number } = {
    now: () => time,
    sleep: async (ms) => {
      sleeps.push(ms);
      time += ms;
    },
    advance: (ms) => {
      time += ms;
    },
    sleeps,
    get time() {
      return time;
    },
  };
  return clock;
}

describe('SlidingWindowLimiter', () => {
  it('lets `limit` requests start at once, then waits for the oldest to leave the window', async () => {
    const clock = fakeClock(1_000);
    const limiter = new SlidingWindowLimiter(5, 30_000, clock);
    const starts: number[] = [];
    for (let i = 0; i < 12; i++) {
      await limiter.acquire();
      starts.push(clock.time);
    }
    expect(starts).toEqual([1_000, 1_000, 1_000, 1_000, 1_000, 31_000, 31_000, 31_000, 31_000, 31_000, 61_000, 61_000]);
    expect(clock.sleeps).toEqual([30_000, 30_000]);
  });

  it('is a rolling window: requests spread out in time free their slots one by one', async () => {
    const clock = fakeClock(0);
    const limiter = new SlidingWindowLimiter(3, 10_000, clock);
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) {
      await limiter.acquire();
      starts.push(clock.time);
      clock.advance(4_000); // 0, 4000, 8000
    }
    // now = 12000: the slot of the request at 0 is free since 10000, the next frees at 14000, then 18000.
    for (let i = 0; i < 3; i++) {
      await limiter.acquire();
      starts.push(clock.time);
    }
    expect(starts).toEqual([0, 4_000, 8_000, 12_000, 14_000, 18_000]);
    // Any 10 s window holds at most 3 starts.
    for (const start of starts)
      expect(starts.filter((s) => s >= start && s < start + 10_000).length).toBeLessThanOrEqual(3);
  });

  it('serves concurrent callers in order without exceeding the limit', async () => {
    const clock = fakeClock(0);
    const limiter = new SlidingWindowLimiter(2, 1_000, clock);
    const order: Array<[number, number]> = [];
    await Promise.all([0, 1, 2, 3, 4].map((i) => limiter.acquire().then(() => order.push([i, clock.time]))));
    expect(order.map(([i]) => i)).toEqual([0, 1, 2, 3, 4]);
    expect(order.map(([, t]) => t)).toEqual([0, 0, 1_000, 1_000, 2_000]);
  });

  it('rejects a limit below 1', () => {
    expect(() => new SlidingWindowLimiter(0, 1_000)).toThrow(RangeError);
  });
});
