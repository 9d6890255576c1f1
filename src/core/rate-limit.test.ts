import { describe, expect, it } from 'vitest';
import {
  budgetFor,
  describeBudget,
  formatBudget,
  formatWindow,
  parseRateLimits,
  parseTokenRateLimit,
  RATE_GROUPS,
} from './rate-limit.js';

describe('rate limit specifications', () => {
  it.each([
    ['600/60s', { index: '600/60s', advisory: '600/60s', backup: '600/60s', search: '600/60s', other: '600/60s' }],
    ['100/1m', { index: '100/60s', advisory: '100/60s', backup: '100/60s', search: '100/60s', other: '100/60s' }],
    ['10/h', { index: '10/3600s', advisory: '10/3600s', backup: '10/3600s', search: '10/3600s', other: '10/3600s' }],
    [
      'unlimited',
      { index: 'unlimited', advisory: 'unlimited', backup: 'unlimited', search: 'unlimited', other: 'unlimited' },
    ],
    [
      'backup=10/1h',
      { index: '600/60s', advisory: '600/60s', backup: '10/3600s', search: '600/60s', other: '600/60s' },
    ],
    [
      '50/10s, index=unlimited',
      { index: 'unlimited', advisory: '50/10s', backup: '50/10s', search: '50/10s', other: '50/10s' },
    ],
    ['5/500ms', { index: '5/500ms', advisory: '5/500ms', backup: '5/500ms', search: '5/500ms', other: '5/500ms' }],
  ])('%j', (text, expected) => {
    const limits = parseRateLimits(text);
    expect(Object.fromEntries(RATE_GROUPS.map((g) => [g, formatBudget(limits[g])]))).toEqual(expected);
  });

  it.each(['600', '0/60s', '600/60', '600/0s', '600/2d', 'fast', 'nope=1/1s', '1/25h'])('rejects %j', (text) => {
    expect(() => parseRateLimits(text)).toThrow(/VULNSCOPE_RATE_LIMIT/);
  });

  it('a token limit replaces the count but keeps the group window; unlimited removes the budget', () => {
    const limits = parseRateLimits('600/60s,backup=10/1h');
    expect(budgetFor(limits, 'index', undefined)).toEqual({ limit: 600, windowMs: 60_000 });
    expect(budgetFor(limits, 'backup', 3)).toEqual({ limit: 3, windowMs: 3_600_000 });
    expect(budgetFor(limits, 'index', 'unlimited')).toBeUndefined();
    expect(budgetFor(parseRateLimits('unlimited'), 'index', 5)).toEqual({ limit: 5, windowMs: 60_000 });
  });

  it.each([
    ['25', 25],
    ['unlimited', 'unlimited'],
    [' UNLIMITED ', 'unlimited'],
  ])('token limit %j', (text, expected) => {
    expect(parseTokenRateLimit(text)).toBe(expected);
  });

  it.each(['0', '-1', '1.5', 'lots', ''])('rejects token limit %j', (text) => {
    expect(() => parseTokenRateLimit(text)).toThrow(/--rate-limit/);
  });

  it('describes a budget with its window', () => {
    expect([500, 1000, 60_000, 90_000, 300_000, 3_600_000, 5_400_000].map(formatWindow)).toEqual([
      '500 ms',
      '1 s',
      '60 s',
      '90 s',
      '5 min',
      '1 h',
      '90 min',
    ]);
    expect(describeBudget({ limit: 600, windowMs: 60_000 })).toBe('600 requests per 60 s');
    expect(describeBudget({ limit: 1, windowMs: 3_600_000 })).toBe('1 request per 1 h');
    expect(describeBudget({ limit: 12_000, windowMs: 60_000 })).toBe('12,000 requests per 60 s');
    expect(describeBudget(undefined)).toBe('unlimited');
  });
});
