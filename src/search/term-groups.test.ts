import { describe, expect, it } from 'vitest';
import { TermGroups } from './term-groups.js';

// Test lists have at most three terms, so [length, first, second, third] is equal exactly when they are.
const keyed = (termIds: number[]) => ({ key: [termIds.length, termIds[0] ?? -1, termIds[1] ?? -1, termIds[2] ?? -1] as [number, number, number, number], termIds });

describe('TermGroups', () => {
  it.each<{ name: string; steps: Array<['acquire', number[]] | ['release', number]>; expected: { size: number; ids: number[] } }>([
    { name: 'equal lists share a group', steps: [['acquire', [1, 2]], ['acquire', [1, 2]]], expected: { size: 1, ids: [1, 1] } },
    { name: 'order matters', steps: [['acquire', [1, 2]], ['acquire', [2, 1]]], expected: { size: 2, ids: [1, 2] } },
    { name: 'the empty list is a group too', steps: [['acquire', []], ['acquire', []]], expected: { size: 1, ids: [1, 1] } },
    { name: 'a group stays while held', steps: [['acquire', [7]], ['acquire', [7]], ['release', 1]], expected: { size: 1, ids: [1, 1] } },
    { name: 'a released group id is reused', steps: [['acquire', [7]], ['release', 1], ['acquire', [8]]], expected: { size: 1, ids: [1, 1] } },
    { name: 'releasing group 0 does nothing', steps: [['acquire', [3]], ['release', 0]], expected: { size: 1, ids: [1] } },
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
