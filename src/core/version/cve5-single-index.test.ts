import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { affectedStatus, scannedAffectedStatus, type Cve5Product, type Cve5VersionEntry } from './cve5-affected.js';
import { INDEXED_LIST_MIN, singleVersionIndex } from './cve5-single-index.js';
import { isComparableVendorVersion } from './vendor.js';

/** Versions that collide textually, by order only (`1.0` = `1.0.0`), by case, or not at all; some unreadable. */
const text = fc.constantFrom(
  '1.0',
  '1.0.0',
  'V1.0',
  '1.0a',
  '1.0-beta2',
  '1.0beta2',
  '2.4.49',
  '2.4.50',
  '15.2(4)M3',
  '15.2(4)m3',
  '15.2(4)M10',
  '12.2(33)SXI',
  '7.4p1',
  '7.4foo',
  '7.4-foo',
  '7.4_FOO',
  'build 12',
  'abc',
  'n-a',
  '1.0,1.1',
  '3',
  '3.0',
);
const entry: fc.Arbitrary<Cve5VersionEntry> = fc.record(
  {
    version: text,
    status: fc.constantFrom('affected', 'affected', 'unaffected', 'unknown', 'odd'),
    versionType: fc.constantFrom('custom', 'patch', ' ', 'Custom'),
  },
  { requiredKeys: ['version', 'status'] },
);
const product: fc.Arbitrary<Cve5Product> = fc.record(
  {
    versions: fc.array(entry, { minLength: INDEXED_LIST_MIN, maxLength: INDEXED_LIST_MIN + 12 }),
    defaultStatus: fc.constantFrom('affected', 'unaffected', 'unknown'),
  },
  { requiredKeys: ['versions'] },
);
const version = fc.oneof(text, fc.constantFrom('1.0.0.0', 'v2.4.49', '15.2(4)M9', '4.0', '7.4bar', '7.4.foo'));

describe('indexed CVE 5 lists of single versions', () => {
  it('give the scan’s status, confidence and reason (property)', () => {
    fc.assert(
      fc.property(product, version, (p, v) => {
        expect(singleVersionIndex(p.versions)).toBeDefined();
        fc.pre(isComparableVendorVersion(v));
        expect(affectedStatus(v, p), `${v} in ${JSON.stringify(p)}`).toEqual(scannedAffectedStatus(v, p));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['short lists', Array.from({ length: INDEXED_LIST_MIN - 1 }, () => ({ version: '1.0', status: 'affected' }))],
    [
      'a range among singles',
      [{ version: '0', lessThan: '2.0', status: 'affected' }, ...Array(20).fill({ version: '3.0' })],
    ],
    [
      'changes',
      Array(20).fill({ version: '1.0', status: 'affected', changes: [{ at: '1.0.1', status: 'unaffected' }] }),
    ],
    ['a known scheme', Array(20).fill({ version: '1.0.0', status: 'affected', versionType: 'semver' })],
    ['a git commit', Array(20).fill({ version: 'abc123', status: 'affected', versionType: 'git' })],
    ['range text', Array(20).fill({ version: '< 2.0', status: 'affected' })],
    ['a release line', Array(20).fill({ version: '2.x', status: 'affected' })],
  ])('are scanned as before for %s', (_label, versions) => {
    expect(singleVersionIndex(versions as Cve5VersionEntry[])).toBeUndefined();
  });
});
