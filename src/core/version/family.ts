/**
 * Family versions: a scanner often reports only the start of a version (nmap's OS guess
 * `linux_kernel:4`, a banner's `2.4`). Compared with a bound that has more components, such a
 * version stands for every release under it (`4` → 4.x), and a bound that falls inside that family
 * cuts it: some of its releases are in the range and some are not, so the range decides nothing.
 */
import { compareVersions } from './compare.js';
import type { Cve5VersionEntry } from './cve5-affected.js';
import type { VersionRange } from './range.js';

type BoundKind = keyof VersionRange;

const NUMERIC = /^\d+(?:\.\d+)*$/;

/** The first version after the family (`4` → `5`, `2.4` → `2.5`), or undefined when it is not numeric. */
export function nextFamily(version: string): string | undefined {
  if (!NUMERIC.test(version)) return undefined;
  const parts = version.split('.');
  const last = parts.length - 1;
  parts[last] = String(BigInt(parts[last]!) + 1n);
  return parts.join('.');
}

function componentCount(version: string): number {
  let count = 1;
  for (let i = 0; i < version.length; i++) if (version.charCodeAt(i) === 46 /* . */) count++;
  return count;
}

/** Whether `bound` (of the given kind) lets some releases of the family `version` in and keeps others out. */
export function cutsFamily(version: string, bound: string, kind: BoundKind, versionType?: string): boolean {
  if (!NUMERIC.test(version) || componentCount(bound) <= componentCount(version)) return false;
  return cutsFrom(version, nextFamily(version)!, bound, kind, versionType);
}

function cutsFrom(version: string, next: string, bound: string, kind: BoundKind, versionType?: string): boolean {
  const fromStart = compareVersions(bound, version, versionType);
  const fromNext = compareVersions(bound, next, versionType);
  if (!fromStart || !fromNext || fromStart.order < 0 || fromNext.order >= 0) return false;
  // A bound equal to the family's first release cuts only when it keeps that release alone in or out.
  if (fromStart.order === 0) return kind === 'endIncluding' || kind === 'startExcluding';
  return true;
}

/** A range whose start lies above its end (or meets it with a strict side) lets no release in: it cuts nothing. */
function isEmptyRange(range: VersionRange, versionType?: string): boolean {
  const start = range.startIncluding ?? range.startExcluding;
  const end = range.endIncluding ?? range.endExcluding;
  if (start === undefined || end === undefined) return false;
  const comparison = compareVersions(start, end, versionType);
  if (!comparison) return false;
  const strict = range.startIncluding === undefined || range.endIncluding === undefined;
  return comparison.order > 0 || (comparison.order === 0 && strict);
}

/** Whether any bound of the range cuts the family `version`. */
export function rangeCutsFamily(version: string, range: VersionRange, versionType?: string): boolean {
  if (!NUMERIC.test(version) || isEmptyRange(range, versionType)) return false;
  const components = componentCount(version);
  let next: string | undefined;
  for (const kind of ['startIncluding', 'startExcluding', 'endIncluding', 'endExcluding'] as const) {
    const bound = range[kind];
    if (typeof bound !== 'string' || componentCount(bound) <= components) continue;
    next ??= nextFamily(version)!;
    if (cutsFrom(version, next, bound, kind, versionType)) return true;
  }
  return false;
}

const isRangeEntry = (entry: Cve5VersionEntry) => entry.lessThan !== undefined || entry.lessThanOrEqual !== undefined;

const deepestBounds = new WeakMap<readonly Cve5VersionEntry[], number>();

/** The most components any bound of the list's range entries has (0: no range entry). */
function deepestBound(entries: readonly Cve5VersionEntry[]): number {
  let deepest = deepestBounds.get(entries);
  if (deepest === undefined) {
    deepest = 0;
    for (const entry of entries) {
      if (!isRangeEntry(entry)) continue;
      for (const bound of [entry.version, entry.lessThan, entry.lessThanOrEqual])
        if (typeof bound === 'string') deepest = Math.max(deepest, componentCount(bound));
    }
    deepestBounds.set(entries, deepest);
  }
  return deepest;
}

/** Whether a range entry of a CVE 5 `versions` list (`version` up to `lessThan`/`lessThanOrEqual`) cuts the family. */
export function entriesCutFamily(version: string, entries: readonly Cve5VersionEntry[]): boolean {
  // Only a bound with more components than the version can cut it (cutsFamily).
  if (!NUMERIC.test(version) || componentCount(version) >= deepestBound(entries)) return false;
  return entries.some(
    (entry) =>
      isRangeEntry(entry) &&
      rangeCutsFamily(
        version,
        {
          ...(entry.version !== undefined ? { startIncluding: entry.version } : {}),
          ...(entry.lessThan !== undefined ? { endExcluding: entry.lessThan } : {}),
          ...(entry.lessThanOrEqual !== undefined ? { endIncluding: entry.lessThanOrEqual } : {}),
        },
        entry.versionType,
      ),
  );
}
