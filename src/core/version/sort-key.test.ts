import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sign } from './comparison.js';
import { versionSortKey } from './sort-key.js';
import { compareVendor } from './vendor.js';

const compareKeys = (a: string, b: string) => sign(a < b ? -1 : a > b ? 1 : 0);

function keyOrder(a: string, b: string): number {
  const left = versionSortKey(a);
  const right = versionSortKey(b);
  if (left === undefined || right === undefined) throw new Error(`no key for ${a} or ${b}`);
  return compareKeys(left, right);
}

/** Version strings built from the pieces the vendor comparator distinguishes. */
const piece = fc.oneof(
  fc.constantFrom('0', '00', '1', '2', '9', '10', '49', '181', '999999999999999999999'),
  fc.constantFrom('a', 'b', 'm', 'p', 'u', 'r', 'k', 'z', 'za', 'zb'),
  fc.constantFrom('alpha', 'beta', 'rc', 'cr', 'pre', 'preview', 'dev', 'snapshot', 'ea', 'milestone'),
  fc.constantFrom('patch', 'post', 'sp', 'pl', 'update', 'rev', 'hotfix', 'build', 'errata'),
  fc.constantFrom('final', 'ga', 'release', 'stable', 'foo', 'nightly'),
  fc.constantFrom('~'),
);
const separator = fc.constantFrom('', '', '.', '.', '-', '_', '+');
const version = fc
  .tuple(fc.constantFrom('', 'v'), fc.nat({ max: 30 }), fc.array(fc.tuple(separator, piece), { maxLength: 7 }))
  .map(([prefix, first, rest]) => prefix + String(first) + rest.map(([s, p]) => s + p).join(''));

describe('versionSortKey: string order of keys equals compareVendor order', () => {
  it('holds for generated versions (digits, dots, letters, pre/post words, ~)', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(keyOrder(a, b), `${a} vs ${b}`).toBe(compareVendor(a, b)?.order);
      }),
      { numRuns: 5000 },
    );
  });

  it('holds for versions that differ only in their tail (the hard case for trailing zeros)', () => {
    const tail = fc
      .array(fc.tuple(separator, piece), { maxLength: 4 })
      .map((parts) => parts.map(([s, p]) => s + p).join(''));
    fc.assert(
      fc.property(fc.constantFrom('1', '1.0', '1.0.0', '2.4'), tail, tail, (stem, x, y) => {
        const a = stem + x;
        const b = `${stem}.${y}`;
        expect(keyOrder(a, b), `${a} vs ${b}`).toBe(compareVendor(a, b)?.order);
      }),
      { numRuns: 3000 },
    );
  });

  const rows: Array<[string, '<' | '=', string]> = [
    ['1.0', '=', '1.0.0'],
    ['153.0', '=', '153.0.0'],
    ['v1.2.3', '=', '1.2.3'],
    ['1.2.3.RELEASE', '=', '1.2.3'],
    ['1.0~rc1', '<', '1.0'],
    ['1.0.0~rc1', '<', '1.0'],
    ['1.0-rc1', '<', '1.0'],
    ['1.0', '<', '1.0p1'],
    ['1.0', '<', '1.0.0.1'],
    ['1.0.0-rc1', '<', '1.0'],
    ['1', '<', '1.0.0a'],
    ['0.9.8z', '<', '0.9.8za'],
    ['2.4.9', '<', '2.4.10'],
    ['9', '<', '10'],
    ['99999999999', '<', '100000000000'],
    ['8u20', '<', '8u181'],
  ];
  it.each(rows)('%s %s %s', (a, relation, b) => {
    expect(keyOrder(a, b)).toBe(relation === '=' ? 0 : -1);
    if (relation === '=') expect(versionSortKey(a)).toBe(versionSortKey(b));
  });

  it('is printable ASCII, so it sorts the same as bytes', () => {
    fc.assert(fc.property(version, (v) => /^[\x20-\x7e]+$/.test(versionSortKey(v) ?? '')));
  });

  it.each(['', '*', '-', 'n/a', 'unspecified'])('has no key for %j', (value) => {
    expect(versionSortKey(value)).toBeUndefined();
  });
});
