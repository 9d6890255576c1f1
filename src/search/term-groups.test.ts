import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TermGroups } from './term-groups.js';

// Test lists have at most three terms, so [length, first, second, third] is equal exactly when they are.
const keyed = (termIds: number[]) => ({
  key: [termIds.length, termIds[0] ?? -1, termIds[1] ?? -1, termIds[2] ?? -1] as [number, number, number, number],
  termIds,
});

describe('TermGroups', () => {
  it.each<{
    name: string;
    steps: Array<['acquire', number[]] | ['release', number]>;
    expected: { size: number; ids: number[] };
  }>([
    {
      name: 'equal lists share a group',
      steps: [
        ['acquire', [1, 2]],
        ['acquire', [1, 2]],
      ],
      expected: { size: 1, ids: [1, 1] },
    },
    {
      name: 'order matters',
      steps: [
        ['acquire', [1, 2]],
        ['acquire', [2, 1]],
      ],
      expected: { size: 2, ids: [1, 2] },
    },
    {
      name: 'the empty list is a group too',
      steps: [
        ['acquire', []],
        ['acquire', []],
      ],
      expected: { size: 1, ids: [1, 1] },
    },
    {
      name: 'a group stays while held',
      steps: [
        ['acquire', [7]],
        ['acquire', [7]],
        ['release', 1],
      ],
      expected: { size: 1, ids: [1, 1] },
    },
    {
      name: 'a released group id is reused',
      steps: [
        ['acquire', [7]],
        ['release', 1],
        ['acquire', [8]],
      ],
      expected: { size: 1, ids: [1, 1] },
    },
    {
      name: 'releasing group 0 does nothing',
      steps: [
        ['acquire', [3]],
        ['release', 0],
      ],
      expected: { size: 1, ids: [1] },
    },
  ])('$name', ({ steps, expected }) => {
    const groups = new TermGroups();
    const ids: number[] = [];
    for (const [op, arg] of steps) {
      if (op === 'acquire') ids.push(groups.acquire(keyed(arg)));
      else groups.release(arg);
    }
    expect({ size: groups.size, ids }).toEqual(expected);
  });

  it('gives back the terms of a group, and none for group 0', () => {
    const groups = new TermGroups();
    const id = groups.acquire(keyed([5, 3, 9]));
    expect([...groups.termsOf(id)]).toEqual([5, 3, 9]);
    expect([...groups.termsOf(0)]).toEqual([]);
  });
});

describe('TermGroups against a model (random acquires and releases)', () => {
  it('finds every held group by its key and no released one, through growth and deletions', () => {
    fc.assert(
      fc.property(
        // Up to 6,000 distinct keys over a few thousand steps: the table grows past its first size.
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 1000,
          maxLength: 4000,
        }),
        (steps) => {
          const groups = new TermGroups();
          /** key text → [group id, holders] */
          const model = new Map<string, [number, number]>();
          for (const [acquire, a, b] of steps) {
            // Few distinct keys (-1 included), so groups are shared, released and their ids reused.
            const key: [number, number, number, number] = [a, b - 1, a % 7, a * 31 + b];
            const text = key.join(',');
            const held = model.get(text);
            if (acquire || !held) {
              const id = groups.acquire({ key, termIds: key.map((k) => k + 1) });
              if (held) {
                expect(id).toBe(held[0]);
                held[1]++;
              } else {
                expect([...model.values()].some(([other]) => other === id)).toBe(false);
                model.set(text, [id, 1]);
              }
              expect([...groups.termsOf(id)]).toEqual(key.map((k) => k + 1));
            } else {
              groups.release(held[0]);
              if (--held[1] === 0) model.delete(text);
            }
            expect(groups.size).toBe(model.size);
          }
          // Every group still held is found again under its key.
          for (const [text, [id]] of model) {
            const key = text.split(',').map(Number) as [number, number, number, number];
            expect(groups.acquire({ key, termIds: [] })).toBe(id);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
