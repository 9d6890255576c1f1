import { describe, expect, it } from 'vitest';
import { boundedMemo } from './memo.js';

describe('boundedMemo', () => {
  it('computes each key once while it is remembered, undefined results included', () => {
    const calls: string[] = [];
    const memo = boundedMemo((key) => {
      calls.push(key);
      return key === 'none' ? undefined : key.length;
    });
    expect([memo('abc'), memo('abc'), memo('none'), memo('none')]).toEqual([3, 3, undefined, undefined]);
    expect(calls).toEqual(['abc', 'none']);
  });

  it('forgets everything once the limit is reached, and stays correct', () => {
    let calls = 0;
    const memo = boundedMemo((key) => {
      calls++;
      return key.toUpperCase();
    }, 2);
    expect([memo('a'), memo('b'), memo('c'), memo('a'), memo('c')]).toEqual(['A', 'B', 'C', 'A', 'C']);
    // a, b fill it; c starts it over; a is computed again; c is still remembered.
    expect(calls).toBe(4);
  });
});
