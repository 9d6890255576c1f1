import type { Clock } from '../../src/ingest/feeds/rate-limiter.js';

/** A clock that only moves when slept on (or advanced): schedules are checked without waiting. */
export function fakeClock(start = 0): Clock & { sleeps: number[]; advance(ms: number): void; readonly time: number } {
  let time = start;
  const sleeps: number[] = [];
  return {
    now: () => time,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      time += Math.max(0, ms);
    },
    advance: (ms: number) => {
      time += ms;
    },
    sleeps,
    get time() {
      return time;
    },
  };
}
