import { describe, expect, it } from 'vitest';
import { LoopTurns } from './loop-turns.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('LoopTurns', () => {
  it('lets work go on at once while the turn has budget left', () => {
    const turns = new LoopTurns(50);
    expect(turns.admit()).toBeUndefined();
    expect(turns.admit()).toBeUndefined();
    expect(turns.backlog).toBe(0);
  });

  it('makes work wait once the turn is used up, and releases it in arrival order, one per turn', async () => {
    const turns = new LoopTurns(2);
    expect(turns.admit()).toBeUndefined();
    busy(3);
    const order: string[] = [];
    const waits = ['a', 'b', 'c'].map((name) =>
      turns.admit()?.then(() => {
        order.push(name);
        busy(2);
      }),
    );
    expect(waits.every((wait) => wait instanceof Promise)).toBe(true);
    expect(turns.backlog).toBe(3);
    // A timer falls due while `a` runs and fires before `c`: each item waits for a turn of its own.
    let timerFiredAfter = -1;
    setTimeout(() => (timerFiredAfter = order.length), 0);
    await Promise.all(waits);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(timerFiredAfter).toBeGreaterThanOrEqual(0);
    expect(timerFiredAfter).toBeLessThan(3);
    expect(turns.backlog).toBe(0);
  });

  it('queues work behind waiting work even when the new turn has budget, so nothing overtakes', async () => {
    const turns = new LoopTurns(2);
    expect(turns.admit()).toBeUndefined();
    busy(3);
    const order: string[] = [];
    const first = turns.admit()!.then(() => {
      order.push('first');
      const late = turns.admit();
      return late !== undefined ? late.then(() => order.push('late')) : order.push('late');
    });
    const second = turns.admit()!.then(() => order.push('second'));
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second', 'late']);
  });

  it('next() always waits for a later turn', async () => {
    const turns = new LoopTurns(1000);
    let resolved = false;
    const wait = turns.next().then(() => (resolved = true));
    await Promise.resolve();
    expect(resolved).toBe(false);
    await wait;
    expect(resolved).toBe(true);
  });
});
