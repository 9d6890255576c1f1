/** Bounded caches: by entry count, or by estimated bytes, entries not read recently out first. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruCache } from './lru.js';

type Step = ['set', string, number] | ['get', string];

describe('LruCache', () => {
  it.each([
    {
      name: 'count: the oldest goes',
      capacity: 2,
      steps: [
        ['set', 'a', 1],
        ['set', 'b', 1],
        ['set', 'c', 1],
      ],
      kept: ['b', 'c'],
    },
    {
      name: 'count: a read makes it recent',
      capacity: 2,
      steps: [
        ['set', 'a', 1],
        ['set', 'b', 1],
        ['get', 'a'],
        ['set', 'c', 1],
      ],
      kept: ['a', 'c'],
    },
    {
      name: 'count: a read saves an entry once, then it goes when not read again',
      capacity: 2,
      steps: [
        ['set', 'a', 1],
        ['set', 'b', 1],
        ['get', 'a'],
        ['set', 'c', 1],
        ['set', 'd', 1],
        ['set', 'b', 1],
      ],
      kept: ['b', 'd'],
    },
    {
      name: 'count: the entry just set stays when every other was read',
      capacity: 2,
      steps: [
        ['set', 'a', 1],
        ['set', 'b', 1],
        ['get', 'a'],
        ['get', 'b'],
        ['set', 'c', 1],
      ],
      kept: ['b', 'c'],
    },
    {
      name: 'count: setting a key again does not grow',
      capacity: 2,
      steps: [
        ['set', 'a', 1],
        ['set', 'a', 1],
        ['set', 'b', 1],
      ],
      kept: ['a', 'b'],
    },
    {
      name: 'weight: a heavy entry pushes out several',
      capacity: 10,
      weighed: true,
      steps: [
        ['set', 'a', 3],
        ['set', 'b', 3],
        ['set', 'c', 3],
        ['set', 'd', 7],
      ],
      kept: ['c', 'd'],
    },
    {
      name: 'weight: one entry above the budget is still kept',
      capacity: 10,
      weighed: true,
      steps: [
        ['set', 'a', 3],
        ['set', 'b', 30],
      ],
      kept: ['b'],
    },
    {
      name: 'weight: replacing an entry releases its old weight',
      capacity: 10,
      weighed: true,
      steps: [
        ['set', 'a', 8],
        ['set', 'a', 2],
        ['set', 'b', 8],
      ],
      kept: ['a', 'b'],
    },
  ] as Array<{ name: string; capacity: number; weighed?: boolean; steps: Step[]; kept: string[] }>)(
    '$name',
    ({ capacity, weighed, steps, kept }) => {
      const cache = new LruCache<string, number>(capacity, weighed ? (value) => value : undefined);
      for (const step of steps) {
        if (step[0] === 'set') cache.set(step[1], step[2]);
        else cache.get(step[1]);
      }
      expect(['a', 'b', 'c', 'd'].filter((key) => cache.has(key))).toEqual(kept);
      const weight = kept.reduce((sum, key) => sum + (weighed ? cache.get(key)! : 1), 0);
      expect(cache.stats).toEqual({ entries: kept.length, weight });
      cache.clear();
      expect(cache.stats).toEqual({ entries: 0, weight: 0 });
    },
  );

  it('keeps what a plain second-chance queue keeps, over long random runs', () => {
    /** The rule written out: a queue, oldest first; a read entry at the head goes to the tail once. */
    class Reference {
      queue: Array<{ key: number; weight: number; used: boolean }> = [];
      constructor(readonly capacity: number) {}
      get(key: number) {
        const entry = this.queue.find((e) => e.key === key);
        if (entry) entry.used = true;
      }
      set(key: number, weight: number) {
        this.queue = this.queue.filter((e) => e.key !== key);
        this.queue.push({ key, weight, used: false });
        const held = () => this.queue.reduce((sum, e) => sum + e.weight, 0);
        while (held() > this.capacity && this.queue.length > 1) {
          const oldest = this.queue.shift()!;
          if (oldest.used || oldest.key === key) this.queue.push({ ...oldest, used: false });
        }
      }
    }
    const key = fc.integer({ min: 0, max: 40 });
    const step = fc.oneof(
      { arbitrary: fc.tuple(fc.constant('set' as const), key, fc.integer({ min: 1, max: 9 })), weight: 10 },
      { arbitrary: fc.tuple(fc.constant('get' as const), key, fc.constant(0)), weight: 6 },
      { arbitrary: fc.tuple(fc.constant('clear' as const), fc.constant(0), fc.constant(0)), weight: 1 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.array(step, { maxLength: 400 }), (capacity, steps) => {
        const cache = new LruCache<number, number>(capacity, (weight) => weight);
        let reference = new Reference(capacity);
        for (const [op, key, weight] of steps) {
          if (op === 'set') {
            cache.set(key, weight);
            reference.set(key, weight);
          } else if (op === 'get') {
            cache.get(key);
            reference.get(key);
          } else {
            cache.clear();
            reference = new Reference(capacity);
          }
        }
        const kept = reference.queue.map((e) => e.key).sort((a, b) => a - b);
        const held = Array.from({ length: 41 }, (_, key) => key).filter((key) => cache.has(key));
        expect(held).toEqual(kept);
        expect(cache.stats.weight).toBe(reference.queue.reduce((sum, e) => sum + e.weight, 0));
      }),
      { numRuns: 300 },
    );
  });
});
