/**
 * The orders the `version` filter compares in (compare.ts), one class per comparator: boundaries
 * of one class can be sorted once and a queried version placed among them by binary search.
 * `vendor` is the comparator of single versions without a `versionType` and of NVD criteria
 * ranges; its byte-sortable key (sort-key.ts) orders exactly like compareVendor.
 */
import { compareVersions, isGraphVersionType, isKnownVersionType } from '../../core/version/compare.js';
import type { Order } from '../../core/version/comparison.js';
import { versionSortKey } from '../../core/version/sort-key.js';
import { tokenizeVendorVersion } from '../../core/version/vendor.js';

export type VersionClass = 'semver' | 'go' | 'pep440' | 'maven' | 'deb' | 'rpm' | 'gem' | 'vendor';

/** Each known versionType → its comparator's class (the versionType spellings of compare.ts). */
const CLASS_OF_TYPE = new Map<string, VersionClass>([
  ['semver', 'semver'],
  ['npm', 'semver'],
  ['go', 'go'],
  ['golang', 'go'],
  ['python', 'pep440'],
  ['pep440', 'pep440'],
  ['pypi', 'pep440'],
  ['maven', 'maven'],
  ['deb', 'deb'],
  ['debian', 'deb'],
  ['rpm', 'rpm'],
  ['gem', 'gem'],
  ['rubygems', 'gem'],
]);

/** The versionType handed to compareVersions for a class. */
const TYPE_OF_CLASS: Record<VersionClass, string | undefined> = {
  semver: 'semver',
  go: 'go',
  pep440: 'python',
  maven: 'maven',
  deb: 'deb',
  rpm: 'rpm',
  gem: 'gem',
  vendor: undefined,
};

/**
 * The class of a versionType: `vendor` for none, `undefined` for `custom`, unknown types and
 * commit graphs, whose comparisons are never exact.
 */
export function classOfType(versionType: string | undefined): VersionClass | undefined {
  if (versionType === undefined) return 'vendor';
  const type = versionType.trim().toLowerCase();
  if (type === '') return 'vendor';
  if (isGraphVersionType(type) || !isKnownVersionType(type)) return undefined;
  return CLASS_OF_TYPE.get(type);
}

/** compareVersions(a, b) in a class, as the reference calls it. */
export const compareIn = (cls: VersionClass, a: string, b: string) => compareVersions(a, b, TYPE_OF_CLASS[cls]);

/**
 * Whether comparisons of `text` in the class are exact (it parses in the scheme; for `vendor`, no
 * word had to be guessed). Two such texts compare exactly, except in `rpm` when one of two equal
 * heads has a release and the other not (see {@link rpmHeadRun}).
 */
export function exactIn(cls: VersionClass, text: string): boolean {
  if (cls === 'vendor') {
    const tokens = tokenizeVendorVersion(text);
    return tokens !== undefined && !tokens.guessed;
  }
  return compareIn(cls, text, text)?.confidence === 'exact';
}

/** Orders two texts that are both exact in the class. */
export function orderIn(cls: VersionClass, a: string, b: string): Order {
  if (cls === 'vendor') {
    const left = versionSortKey(a)!;
    const right = versionSortKey(b)!;
    return left < right ? -1 : left > right ? 1 : 0;
  }
  return compareIn(cls, a, b)!.order;
}

/** An RPM version without its release (`1:2.3-4.el8` → `1:2.3`). */
export function rpmHead(text: string): string {
  const match = /^(\s*(?:\d+:)?[^-\s]+)(?:-[^-\s]+)?\s*$/.exec(text);
  return match ? match[1]! : text;
}
