/**
 * The version that fixes an affected package version, read from one CVE 5 affected entry (OSV
 * ranges arrive converted: `introduced` → `version`, `fixed` → `lessThan`): the upper bound of the
 * affected range holding the version, or the first `unaffected` change after it.
 */
import { compareVersions } from '../version/compare.js';
import type { Cve5VersionEntry } from '../version/cve5-affected.js';
import { isAllVersions, isPlaceholderVersion } from '../version/placeholders.js';
import type { MatchEntry } from './facts.js';

/** The order of `a` against `b`, when it is known exactly. */
function order(a: string, b: string, versionType: string | undefined): number | undefined {
  const comparison = compareVersions(a, b, versionType);
  return comparison?.confidence === 'exact' ? comparison.order : undefined;
}

/** A bound that names a version (not `*`, `n/a`, …). */
const concrete = (bound: string | undefined): bound is string =>
  bound !== undefined && !isAllVersions(bound) && !isPlaceholderVersion(bound);

function holds(version: string, entry: Cve5VersionEntry): boolean {
  const start = entry.version ?? '0';
  const type = entry.versionType;
  const fromStart = start === '0' || !concrete(start) || (order(version, start, type) ?? -1) >= 0;
  if (!fromStart) return false;
  if (entry.lessThan !== undefined) return !concrete(entry.lessThan) || order(version, entry.lessThan, type) === -1;
  if (entry.lessThanOrEqual !== undefined)
    return !concrete(entry.lessThanOrEqual) || (order(version, entry.lessThanOrEqual, type) ?? 1) <= 0;
  return false;
}

/** The first `unaffected` change after `version`, in version order. */
function firstFixingChange(version: string, entry: Cve5VersionEntry): string | undefined {
  let fixed: string | undefined;
  for (const change of entry.changes ?? []) {
    if (change.status !== 'unaffected' || !concrete(change.at)) continue;
    if (order(change.at, version, entry.versionType) !== 1) continue;
    if (fixed === undefined || order(change.at, fixed, entry.versionType) === -1) fixed = change.at;
  }
  return fixed;
}

/** The fixing version for `version` per `entry`; undefined when the entry names none (open range, `lessThanOrEqual`). */
export function fixedVersion(version: string, entry: MatchEntry): string | undefined {
  for (const range of entry.versions ?? []) {
    if (range.status !== 'affected' || !holds(version, range)) continue;
    const change = firstFixingChange(version, range);
    if (change !== undefined) return change;
    return range.lessThan !== undefined && concrete(range.lessThan) ? range.lessThan : undefined;
  }
  return undefined;
}
