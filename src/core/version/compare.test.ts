import { describe, expect, it } from 'vitest';
import { compareVersions, isKnownVersionType } from './compare.js';
import { verrevcmp } from './debian.js';
import { rpmvercmp } from './rpm.js';

type Relation = '<' | '=' | '>';
const ORDER: Record<Relation, -1 | 0 | 1> = { '<': -1, '=': 0, '>': 1 };

function expectOrder(type: string | undefined, a: string, relation: Relation, b: string, confidence = 'exact') {
  expect(compareVersions(a, b, type), `${type}: ${a} ${relation} ${b}`).toEqual({ order: ORDER[relation], confidence });
  expect(compareVersions(b, a, type)?.order, `${type}: ${b} vs ${a}`).toBe(-ORDER[relation] || 0);
}

describe('compareVersions: semver / npm / go (SemVer 2.0, loose)', () => {
  const rows: Array<[string, string, Relation, string]> = [
    ['semver', '1.2.3', '<', '1.2.10'],
    ['semver', '1.0.0-alpha', '<', '1.0.0-alpha.1'],
    ['semver', '1.0.0-alpha.1', '<', '1.0.0-alpha.beta'],
    ['semver', '1.0.0-beta.2', '<', '1.0.0-beta.11'],
    ['semver', '1.0.0-rc.1', '<', '1.0.0'],
    ['semver', '1.0.0-cr1', '<', '1.0.0-m1'], // the schema's note: SemVer orders these by text
    ['semver', '1.0.0+build.1', '=', '1.0.0'], // build metadata is ignored
    ['semver', 'v1.2.3', '=', '1.2.3'],
    ['npm', '4.17.20', '<', '4.17.21'],
    ['npm', '=1.2.3', '=', '1.2.3'],
    ['go', 'v1.6.0', '=', '1.6.0'],
    ['go', 'v0.0.0-20210101000000-abcdef123456', '<', 'v0.0.1'], // pseudo-version
    ['go', 'v2.0.0+incompatible', '=', 'v2.0.0'],
    ['go', 'go1.21.3', '<', '1.21.4'],
    ['SemVer', '2.0.0', '>', '1.9.9'], // versionType is case-insensitive
  ];
  it.each(rows)('%s: %s %s %s', (type, a, relation, b) => expectOrder(type, a, relation, b));

  it('falls back to the vendor comparator, heuristic, for versions that are not SemVer', () => {
    expectOrder('semver', '2.4', '<', '2.4.49', 'heuristic');
    expectOrder('semver', '1.2.3.4', '>', '1.2.3', 'heuristic');
    expectOrder('go', '1.20', '=', '1.20.0', 'heuristic');
  });
});

describe('compareVersions: python (PEP 440)', () => {
  const rows: Array<[string, Relation, string]> = [
    ['1.0.dev1', '<', '1.0a1'],
    ['1.0a1', '<', '1.0a2.dev1'],
    ['1.0a2.dev1', '<', '1.0a2'],
    ['1.0a2', '<', '1.0b1'],
    ['1.0b1', '<', '1.0rc1'],
    ['1.0rc1', '<', '1.0'],
    ['1.0', '<', '1.0.post1.dev1'],
    ['1.0.post1.dev1', '<', '1.0.post1'],
    ['1.0.post1', '<', '1.0.1'],
    ['1.0', '=', '1.0.0'],
    ['1.0', '<', '1.0+local'],
    ['1.0+abc', '<', '1.0+1'],
    ['1.0+1.2', '<', '1.0+1.10'],
    ['1!0.1', '>', '2.0'],
    ['1.0alpha1', '=', '1.0a1'],
    ['1.0c1', '=', '1.0rc1'],
    ['1.0-1', '=', '1.0.post1'],
    ['1.0rev2', '=', '1.0.post2'],
    ['1.0.RC1', '=', '1.0rc1'],
    ['v2.0', '=', '2.0'],
  ];
  it.each(rows)('%s %s %s', (a, relation, b) => expectOrder('python', a, relation, b));
});

describe('compareVersions: maven (ComparableVersion)', () => {
  const rows: Array<[string, Relation, string]> = [
    ['1.0-alpha1', '<', '1.0-beta1'],
    ['1.0-beta1', '<', '1.0-milestone1'],
    ['1.0-milestone1', '<', '1.0-rc1'],
    ['1.0-rc1', '<', '1.0-SNAPSHOT'],
    ['1.0-SNAPSHOT', '<', '1.0'],
    ['1.0', '<', '1.0-sp1'],
    ['1.0-sp1', '<', '1.0-whatever'],
    ['1.0-whatever', '<', '1.0.1'],
    ['1.0.0-m1', '<', '1.0.0-cr1'], // the opposite of SemVer (schema note)
    ['1.0-cr1', '=', '1.0-rc1'],
    ['1.0.0.Final', '=', '1.0'],
    ['1.0-ga', '=', '1'],
    ['1.0a1', '=', '1.0-alpha-1'],
    ['2.0.0.RELEASE', '=', '2.0.0'],
    ['1.10', '>', '1.9'],
    ['2.17.0', '>', '2.15.0'],
    ['3.0.0-M4', '<', '3.0.0'],
    ['1.0-constructor', '<', '1.0-d'], // a qualifier like any other, not Object.prototype's
  ];
  it.each(rows)('%s %s %s', (a, relation, b) => expectOrder('maven', a, relation, b));
});

describe('compareVersions: deb (dpkg)', () => {
  const rows: Array<[string, Relation, string]> = [
    ['1.0~rc1', '<', '1.0'],
    ['1.0~~', '<', '1.0~'],
    ['1.0', '<', '1.0a'],
    ['1.0a', '<', '1.0+'],
    ['1:1.0', '>', '2.0'],
    ['1.0-1', '<', '1.0-2'],
    ['1.0-1', '<', '1.0-1ubuntu1'],
    ['8.9p1-3ubuntu0.10', '<', '8.9p1-3ubuntu0.13'],
    ['2.4.52-1ubuntu4.6', '<', '2.4.52-1ubuntu4.10'],
    ['1.2.3', '=', '1.2.3-0'],
    ['1.10', '>', '1.9'],
  ];
  it.each(rows)('%s %s %s', (a, relation, b) => expectOrder('deb', a, relation, b));

  it('verrevcmp follows dpkg: ~ < end < letters < other characters', () => {
    expect(verrevcmp('~', '')).toBe(-1);
    expect(verrevcmp('', 'a')).toBe(-1);
    expect(verrevcmp('a', '.')).toBe(-1);
    expect(verrevcmp('007', '7')).toBe(0);
  });
});

describe('compareVersions: rpm (rpmvercmp)', () => {
  const rows: Array<[string, Relation, string]> = [
    ['1.0', '<', '1.0.1'],
    ['1.0a', '<', '1.0.1'],
    ['1.0~rc1', '<', '1.0'],
    ['1.0^git1', '>', '1.0'],
    ['1.0^git1', '<', '1.0.1'],
    ['2.0', '>', '1.10'],
    ['1.10', '>', '1.9'],
    ['1:1.0-1', '>', '2.0-1'],
    ['4.18.0-372.el9', '<', '4.18.0-425.el9'],
    ['0:1.2.3-1.el8', '=', '1.2.3-1.el8'],
    ['1.0-1.el8_2', '>', '1.0-1.el8'],
  ];
  it.each(rows)('%s %s %s', (a, relation, b) => expectOrder('rpm', a, relation, b));

  it('rpmvercmp: numbers beat letters, leading zeros are ignored', () => {
    expect(rpmvercmp('1.0.1', '1.0.a')).toBe(1);
    expect(rpmvercmp('1.01', '1.1')).toBe(0);
  });

  it('is heuristic when only one side has a release and the versions are equal', () => {
    expect(compareVersions('1.2.3', '1.2.3-1', 'rpm')).toEqual({ order: -1, confidence: 'heuristic' });
    expect(compareVersions('1.2.3', '1.2.4-1', 'rpm')).toEqual({ order: -1, confidence: 'exact' });
  });
});

describe('compareVersions: gem (Gem::Version)', () => {
  const rows: Array<[string, Relation, string]> = [
    ['1.0.0.pre1', '<', '1.0.0'],
    ['1.0.0-rc1', '<', '1.0.0'],
    ['1.0.a', '<', '1.0.0'],
    ['1.0.0.a', '<', '1.0.0.b'],
    ['1.0', '=', '1.0.0'],
    ['1.10', '>', '1.9'],
    ['6.1.7.3', '>', '6.1.7'],
  ];
  it.each(rows)('%s %s %s', (a, relation, b) => expectOrder('gem', a, relation, b));
});

describe('compareVersions: custom, unknown types, git, no type', () => {
  it('custom uses the vendor comparator and is always heuristic', () => {
    expectOrder('custom', '7.4p1', '>', '7.4', 'heuristic');
  });
  it.each(['patch', 'original_commit_for_fix', 'release', 'firmware'])(
    'unknown type %s is vendor, heuristic',
    (type) => {
      expectOrder(type, '6.10', '>', '6.9', 'heuristic');
    },
  );
  it.each(['constructor', '__proto__', 'toString'])('%s, a name every object has, is an unknown type', (type) => {
    expectOrder(type, '6.10', '>', '6.9', 'heuristic');
    expect(isKnownVersionType(type)).toBe(false);
  });
  it.each(['git', 'hg', 'GIT'])('%s is never comparable', (type) => {
    expect(compareVersions('abc123', 'def456', type)).toBeUndefined();
    expect(compareVersions('1.0', '1.0', type)).toBeUndefined();
  });
  it('no type means an NVD/CPE version: vendor comparator with its own confidence', () => {
    expectOrder(undefined, '7.4p1', '>', '7.4', 'exact');
    expectOrder('', '1.0-foo', '<', '1.0', 'heuristic');
  });
  it.each(['semver', 'python', 'maven', 'deb', 'rpm', 'custom', undefined])(
    'placeholders are never comparable (%s)',
    (type) => {
      for (const junk of ['*', '-', 'n/a', 'unspecified', '']) {
        expect(compareVersions(junk, '1.0', type)).toBeUndefined();
        expect(compareVersions('1.0', junk, type)).toBeUndefined();
      }
    },
  );
});
