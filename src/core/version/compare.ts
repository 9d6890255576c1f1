/**
 * Version comparison dispatched on the scheme (CVE 5 `versionType`, OSV ecosystem, purl type),
 * reference-matching.md §3.3 step 1.
 *
 * - `semver`, `npm`: SemVer 2.0 (loose: a leading `v` or `=` is accepted); `go`: the same plus the
 *   toolchain's `go1.21.3` spelling.
 * - `python`/`pep440`, `maven`, `deb`/`debian`, `rpm`, `gem`/`rubygems`: the ecosystem's own order.
 * - A version the declared scheme cannot parse (`2.4` under `semver`) falls back to the vendor
 *   comparator, and the result is marked `heuristic`.
 * - `custom` and every unknown type (`patch`, `original_commit_for_fix`, …) use the vendor
 *   comparator, always `heuristic`; no type at all (NVD/CPE versions) uses it with its own
 *   confidence.
 * - `git` (and `hg`) are commit graphs, not orders: always `undefined`, so a git range never
 *   decides anything.
 * - Placeholders (`*`, `-`, `n/a`, `unspecified`, empty) are never comparable, in any scheme.
 */
import type { Comparison, Order } from './comparison.js';
import { compareDebian } from './debian.js';
import { compareMaven } from './maven.js';
import { comparePep440 } from './pep440.js';
import { compareRpm } from './rpm.js';
import { compareGem } from './rubygems.js';
import { compareGo, compareSemver } from './semver-order.js';
import { compareVendor, isComparableVendorVersion } from './vendor.js';

type SchemeComparator = (a: string, b: string) => Comparison | undefined;

const exactly =
  (compare: (a: string, b: string) => Order | undefined): SchemeComparator =>
  (a, b) => {
    const order = compare(a, b);
    return order === undefined ? undefined : { order, confidence: 'exact' };
  };

const compareRpmVersions: SchemeComparator = (a, b) => {
  const result = compareRpm(a, b);
  return result && { order: result.order, confidence: result.releaseAssumed ? 'heuristic' : 'exact' };
};

const SCHEMES: Record<string, SchemeComparator> = {
  semver: exactly(compareSemver),
  npm: exactly(compareSemver),
  go: exactly(compareGo),
  golang: exactly(compareGo),
  python: exactly(comparePep440),
  pep440: exactly(comparePep440),
  pypi: exactly(comparePep440),
  maven: exactly(compareMaven),
  deb: exactly(compareDebian),
  debian: exactly(compareDebian),
  rpm: compareRpmVersions,
  gem: exactly(compareGem),
  rubygems: exactly(compareGem),
};

/** The comparator of a scheme: the table's own entries only, never `constructor` or `__proto__`. */
const schemeOf = (type: string): SchemeComparator | undefined =>
  Object.hasOwn(SCHEMES, type) ? SCHEMES[type] : undefined;

/** Commit-graph version types: "≤" means ancestry, which no string comparison can decide. */
const GRAPH_TYPES = new Set(['git', 'hg']);

/** True when `versionType` names a scheme with a real ordering here (not vendor guessing). */
export function isKnownVersionType(versionType: string | undefined): boolean {
  return versionType !== undefined && schemeOf(versionType.trim().toLowerCase()) !== undefined;
}

export function isGraphVersionType(versionType: string | undefined): boolean {
  return versionType !== undefined && GRAPH_TYPES.has(versionType.trim().toLowerCase());
}

const asHeuristic = (comparison: Comparison | undefined): Comparison | undefined =>
  comparison && { order: comparison.order, confidence: 'heuristic' };

export function compareVersions(a: string, b: string, versionType?: string): Comparison | undefined {
  if (!isComparableVendorVersion(a) || !isComparableVendorVersion(b)) return undefined;
  const type = versionType?.trim().toLowerCase();
  if (type === undefined || type === '') return compareVendor(a, b);
  if (GRAPH_TYPES.has(type)) return undefined;
  const scheme = schemeOf(type);
  return scheme?.(a, b) ?? asHeuristic(compareVendor(a, b));
}
