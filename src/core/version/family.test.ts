import { describe, expect, it } from 'vitest';
import type { VersionRange } from './range.js';
import { cutsFamily, nextFamily, rangeCutsFamily } from './family.js';

describe('family versions', () => {
  it.each([
    ['4', '5'],
    ['2.4', '2.5'],
    ['4.19', '4.20'],
    ['9', '10'],
    ['8.5p1', undefined],
    ['1.0-rc1', undefined],
  ])('the family after %s is %s', (version, next) => {
    expect(nextFamily(version)).toBe(next);
  });

  it.each([
    { version: '4', bound: '4.19.2', kind: 'endExcluding', cuts: true },
    { version: '4', bound: '5.0', kind: 'endExcluding', cuts: false },
    { version: '4', bound: '3.9.9', kind: 'endExcluding', cuts: false },
    { version: '4', bound: '4.0', kind: 'endExcluding', cuts: false },
    { version: '4', bound: '4.0', kind: 'endIncluding', cuts: true },
    { version: '4', bound: '4.0', kind: 'startIncluding', cuts: false },
    { version: '4', bound: '4.0', kind: 'startExcluding', cuts: true },
    { version: '4', bound: '4', kind: 'endExcluding', cuts: false },
    { version: '4', bound: '5', kind: 'endExcluding', cuts: false },
    { version: '2.4', bound: '2.4.50', kind: 'endExcluding', cuts: true },
    { version: '2.4', bound: '2.40.1', kind: 'endExcluding', cuts: false },
    { version: '2.4.49', bound: '2.4.50', kind: 'endExcluding', cuts: false },
    { version: '8.5p1', bound: '8.5.1', kind: 'endExcluding', cuts: false },
  ] as const)('$version against $kind $bound: cut $cuts', ({ version, bound, kind, cuts }) => {
    expect(cutsFamily(version, bound, kind)).toBe(cuts);
  });

  it.each<{ version: string; range: VersionRange; cuts: boolean }>([
    { version: '4', range: { startIncluding: '4.1', endExcluding: '4.5' }, cuts: true },
    { version: '4', range: { startIncluding: '3.0', endExcluding: '4.19.2' }, cuts: true },
    { version: '4', range: { startIncluding: '5.0' }, cuts: false },
    // A range that lets no release in (start above end, or meeting it with a strict side) cuts nothing.
    { version: '4', range: { startIncluding: '4.5', endExcluding: '4.1' }, cuts: false },
    { version: '4', range: { startExcluding: '4.2', endIncluding: '4.2' }, cuts: false },
    { version: '4', range: { startIncluding: '4.2', endIncluding: '4.2' }, cuts: true },
  ])('$version against $range: cut $cuts', ({ version, range, cuts }) => {
    expect(rangeCutsFamily(version, range)).toBe(cuts);
  });
});
