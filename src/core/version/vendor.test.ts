import { describe, expect, it } from 'vitest';
import { compareVendor, isComparableVendorVersion } from './vendor.js';

/** `a < b < c …` as adjacent pairs, plus the reversed pair. */
function chain(...versions: string[]): Array<[string, '<', string]> {
  return versions.slice(1).map((v, i) => [versions[i]!, '<', v]);
}

const expectRelation = (a: string, relation: '<' | '=' | '>', b: string) => {
  const order = { '<': -1, '=': 0, '>': 1 }[relation];
  expect(compareVendor(a, b)?.order, `${a} ${relation} ${b}`).toBe(order);
  expect(compareVendor(b, a)?.order, `${b} vs ${a}`).toBe(-order || 0);
};

describe('compareVendor: the test cases of reference-matching.md §3.3', () => {
  const rows: Array<[string, '<' | '=' | '>', string]> = [
    ['7.4p1', '>', '7.4'],
    ...chain('7.4p1', '7.4p2', '7.5'),
    ['9.3p2', '>', '9.3p1'],
    ...chain('1.1.1', '1.1.1k', '1.1.1l', '1.1.2'),
    ['1.0.2u', '<', '1.1.0'],
    ...chain('0.9.8y', '0.9.8za', '0.9.8zb', '0.9.8zh'),
    ['0.9.8zh', '>', '0.9.8zc'],
    ...chain('2.4.5', '2.4.9', '2.4.10', '2.4.49'),
    ...chain('10.0.19041.999', '10.0.19041.1234', '10.0.19042'),
    ...chain('1.9.9', '2.0.0-beta2', '2.0.0-rc1', '2.0.0-rc2', '2.0.0'),
    ['3.0.0-M4', '<', '3.0.0'],
    ['1.0b1', '<', '1.0'],
    ['1.0~rc1', '<', '1.0'],
    ['1.0', '=', '1.0.0'],
    ['153.0', '=', '153.0.0'],
    ['v1.2.3', '=', '1.2.3'],
    ['1.2.3.RELEASE', '=', '1.2.3'],
    ['9.0.62', '<', '9.0.62.1'],
    ['8u20', '<', '8u181'],
    ['1.8.0_20', '<', '1.8.0_181'],
  ];
  it.each(rows)('%s %s %s', (a, relation, b) => expectRelation(a, relation, b));
});

describe('compareVendor: each classification rule', () => {
  const rows: Array<[string, string, '<' | '=' | '>', string]> = [
    ['padding with ZERO', '1', '=', '1.0.0.0'],
    ['ZERO < NONZERO', '1.0', '<', '1.0.1'],
    ['numbers compare as integers, not text', '1.10', '>', '1.9'],
    ['leading zeros do not matter', '1.01', '=', '1.1'],
    ['big numbers (BigInt)', '1.99999999999999999999', '<', '1.100000000000000000000'],
    ['dates compare numerically', '2021-03-01', '<', '2021-12-01'],
    ['~ sorts before everything, even pre-releases', '1.0~', '<', '1.0-alpha'],
    ['~ sorts before the end of the version', '1.0~rc1', '<', '1.0'],
    ['pre-release order: dev < snapshot', '1.0-dev', '<', '1.0-snapshot'],
    ['pre-release order: snapshot < ea', '1.0-snapshot', '<', '1.0-ea'],
    ['pre-release order: ea < alpha', '1.0-ea', '<', '1.0-alpha'],
    ['pre-release order: alpha < beta', '1.0-alpha', '<', '1.0-beta'],
    ['pre-release order: beta < milestone', '1.0-beta', '<', '1.0-milestone'],
    ['pre-release order: milestone < rc', '1.0-milestone', '<', '1.0-rc'],
    ['a before a digit means alpha', '1.0a1', '=', '1.0-alpha1'],
    ['b before a digit means beta', '1.0b2', '=', '1.0-beta2'],
    ['m before a digit means milestone', '3.0.0-m4', '=', '3.0.0-milestone4'],
    ['cr, pre and preview are rc', '1.0-cr1', '=', '1.0-rc1'],
    ['preview is rc', '1.0-preview', '=', '1.0-pre'],
    ['pre-release numbers', '1.0-rc2', '<', '1.0-rc10'],
    ['PRE < ZERO', '1.0-rc1', '<', '1.0.0'],
    ['POST p', '7.4p1', '>', '7.4'],
    ['POST pl', '1.0pl1', '>', '1.0'],
    ['POST patch', '1.0-patch1', '>', '1.0'],
    ['POST post', '1.0.post1', '>', '1.0'],
    ['POST sp', '5.1.52sp1', '>', '5.1.52'],
    ['POST u', '8u181', '>', '8'],
    ['POST update', '1.0-update2', '>', '1.0'],
    ['POST r before a digit', '22.7r2.1', '>', '22.7'],
    ['POST rev', '1.0-rev3', '>', '1.0'],
    ['POST hotfix', '1.0-hotfix1', '>', '1.0'],
    ['POST fix', '1.0-fix1', '>', '1.0'],
    ['POST build', '1.0-build5', '>', '1.0'],
    ['POST errata', '1.0-errata1', '>', '1.0'],
    ['POST < NONZERO', '7.4p1', '<', '7.4.1'],
    ['POST compares as the whole string', '1.0-patch1', '<', '1.0-pl1'],
    ['NEUTRAL final', '1.0-final', '=', '1.0'],
    ['NEUTRAL ga', '1.0-ga', '=', '1.0'],
    ['NEUTRAL release', '1.0.release', '=', '1.0'],
    ['NEUTRAL stable', '1.0-stable', '=', '1.0'],
    ['LETTER suffix glued to a number', '1.0a', '>', '1.0'],
    ['LETTER > NONZERO at the same position', '1.0a', '>', '1.0.1'],
    ['LETTER whole-string (libversion compares first letters only)', '0.9.8za', '>', '0.9.8z'],
    ['LETTER: single letters p, u, r without a number are suffixes', '1.1.1p', '>', '1.1.1o'],
    ['LETTER: OpenSSL 1.1.1u > 1.1.1t', '1.1.1u', '>', '1.1.1t'],
    ['a multi-letter pre-release word glued to a number stays PRE', '2.0rc', '<', '2.0'],
    ['case does not matter', '1.0-RC1', '=', '1.0-rc1'],
    ['separators do not matter', '1_0-1', '=', '1.0.1'],
    ['whitespace is trimmed', ' 1.0 ', '=', '1.0'],
  ];
  it.each(rows)('%s: %s %s %s', (_rule, a, relation, b) => expectRelation(a, relation, b));
});

describe('compareVendor: confidence', () => {
  it('is exact when every word is known', () => {
    expect(compareVendor('2.0.0-rc1', '2.0.0')).toEqual({ order: -1, confidence: 'exact' });
  });
  it('ranks an unknown word as a pre-release, with heuristic confidence', () => {
    expect(compareVendor('1.0-foo', '1.0')).toEqual({ order: -1, confidence: 'heuristic' });
    expect(compareVendor('1.0', '1.0-nightly')).toEqual({ order: 1, confidence: 'heuristic' });
    // Names every object has are unknown words too.
    expect(compareVendor('1.0-constructor', '1.0')).toEqual({ order: -1, confidence: 'heuristic' });
    expect(compareVendor('1.0constructor1', '1.0')).toEqual({ order: -1, confidence: 'heuristic' });
  });
  it('orders unknown words below known pre-release keywords, then by spelling', () => {
    expect(compareVendor('1.0-foo', '1.0-dev')?.order).toBe(-1);
    expect(compareVendor('1.0-bar', '1.0-foo')?.order).toBe(-1);
  });
  it('treats a lone letter that is neither glued nor followed by a number as unknown', () => {
    expect(compareVendor('1.0 a', '1.0')).toEqual({ order: -1, confidence: 'heuristic' });
  });
});

describe('compareVendor: uncomparable values give undefined', () => {
  it.each([
    '',
    '   ',
    '*',
    '-',
    'n/a',
    'N/A',
    'unspecified',
    'unknown',
    'all versions',
    'trunk',
    '2.4.*',
    '2.x',
    '1.2.x',
    '?',
  ])('%j', (value) => {
    expect(isComparableVendorVersion(value)).toBe(false);
    expect(compareVendor(value, '1.0')).toBeUndefined();
    expect(compareVendor('1.0', value)).toBeUndefined();
  });
});
