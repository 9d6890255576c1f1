import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unionOfSorted } from './sorted-union.js';

describe('unionOfSorted', () => {
  it.each([
    ['no lists', [], []],
    ['one list', [['a', 'b']], ['a', 'b']],
    [
      'disjoint lists',
      [
        ['a', 'c'],
        ['b', 'd'],
      ],
      ['a', 'b', 'c', 'd'],
    ],
    [
      'shared items once',
      [
        ['a', 'b', 'c'],
        ['b', 'c', 'd'],
      ],
      ['a', 'b', 'c', 'd'],
    ],
    ['an empty list', [['a'], []], ['a']],
    [
      'code-unit order, as sort() leaves ids',
      [['CVE-2021-1000', 'CVE-2021-999'], ['CVE-2021-10000']],
      ['CVE-2021-1000', 'CVE-2021-10000', 'CVE-2021-999'],
    ],
    ['three lists', [['b'], ['a', 'b'], ['c']], ['a', 'b', 'c']],
  ])('%s', (_, lists: string[][], expected: string[]) => {
    expect(unionOfSorted(lists)).toEqual(expected);
  });

  it('equals sorting the set of every item, and leaves its lists alone', () => {
    const list = fc.uniqueArray(fc.string({ maxLength: 4 }), { maxLength: 30 }).map((items) => items.sort());
    fc.assert(
      fc.property(fc.array(list, { maxLength: 5 }), (lists) => {
        const copies = lists.map((items) => [...items]);
        expect(unionOfSorted(lists)).toEqual([...new Set(lists.flat())].sort());
        expect(lists).toEqual(copies);
      }),
    );
  });
});
