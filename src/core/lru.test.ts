/** Bounded caches: by entry count, or by estimated bytes, entries not read recently out first. */
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
});
