import { describe, expect, it } from 'vitest';
import { formatShare, guardFailure, parseMaxRejected } from './load-guard.js';

describe('the load guard', () => {
  it.each([
    [{ accepted: 0, rejected: 0 }, {}, 'nothing was read from x.json', { allowEmpty: true }],
    [
      { accepted: 0, rejected: 1 },
      {},
      'the one record read from x.json was rejected',
      { allowEmpty: true, maxRejectedPercent: 100 },
    ],
    [
      { accepted: 0, rejected: 5 },
      { allowEmpty: true },
      'all 5 records read from x.json were rejected',
      { maxRejectedPercent: 100 },
    ],
    [
      { accepted: 0, rejected: 5 },
      { maxRejected: 1 },
      'all 5 records read from x.json were rejected',
      { allowEmpty: true },
    ],
    [
      { accepted: 1_990, rejected: 21 },
      {},
      '21 of 2,011 records read from x.json were rejected (1.04%, more than the 1% allowed)',
      { maxRejectedPercent: 2 },
    ],
    [
      { accepted: 9, rejected: 1 },
      { maxRejected: 0.05 },
      '1 of 10 records read from x.json was rejected (10%, more than the 5% allowed)',
      { maxRejectedPercent: 10 },
    ],
  ])('%j with %j is refused: %s', (tally, guard, reason, overrides) => {
    expect(guardFailure(tally, guard, { from: 'x.json' })).toEqual({ reason, overrides });
  });

  it.each([
    [{ accepted: 100, rejected: 1 }, {}],
    [{ accepted: 99, rejected: 1 }, {}],
    [{ accepted: 0, rejected: 0 }, { allowEmpty: true }],
    [
      { accepted: 0, rejected: 3 },
      { allowEmpty: true, maxRejected: 1 },
    ],
    [{ accepted: 5, rejected: 5 }, { maxRejected: 0.5 }],
  ])('%j with %j passes', (tally, guard) => {
    expect(guardFailure(tally, guard)).toBeUndefined();
  });

  it('parses --max-rejected percentages and formats shares', () => {
    expect(parseMaxRejected('5%')).toBe(0.05);
    expect(parseMaxRejected('0.5%')).toBe(0.005);
    expect(parseMaxRejected('100')).toBe(1);
    expect(parseMaxRejected('0%')).toBe(0);
    for (const bad of ['101%', '-1%', 'lots', '', '5%%']) expect(() => parseMaxRejected(bad)).toThrow(/--max-rejected/);
    expect([0.01, 0.0125, 0.00333, 0.5, 1].map((share) => formatShare(share))).toEqual([
      '1%',
      '1.3%',
      '0.33%',
      '50%',
      '100%',
    ]);
  });
});
