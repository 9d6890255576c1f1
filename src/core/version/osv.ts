/**
 * OSV `affected[]` evaluation (reference-matching.md §2.6, OSV schema): `introduced` (where `0`
 * is the beginning) opens, `fixed` closes at its version, `last_affected` closes after it, `limit`
 * is for GIT only. Alternating events are read as intervals in their written order; other event
 * lists are sorted in the ecosystem's order and replayed as the OSV specification describes.
 * Ranges are ORed with each other and with an exact hit in `versions[]`; an entry with neither
 * ranges nor versions is `unknown`.
 *
 * GIT ranges are commit ancestry and never decide for a release version. When an entry also
 * carries SEMVER/ECOSYSTEM ranges, those describe the same fix in release terms and are used;
 * a GIT-only entry answers `affected` when V is listed in `versions[]` and `unknown` otherwise.
 */
import { compareVersions } from './compare.js';
import type { Comparison } from './comparison.js';
import { isComparableVendorVersion } from './vendor.js';

export type OsvEvent = { introduced?: string; fixed?: string; last_affected?: string; limit?: string };

export interface OsvRange {
  type: string;
  repo?: string;
  events: OsvEvent[];
}

export interface OsvAffected {
  package?: { ecosystem?: string; name?: string; purl?: string };
  ranges?: OsvRange[];
  versions?: string[];
}

export type OsvStatus = 'affected' | 'unaffected' | 'unknown';

/** OSV ecosystem (the part before any `:` such as `Debian:11`) → version scheme. */
const ECOSYSTEM_SCHEMES: Record<string, string> = {
  go: 'go',
  pypi: 'python',
  'crates.io': 'semver',
  npm: 'npm',
  maven: 'maven',
  rubygems: 'gem',
  nuget: 'semver',
  hex: 'semver',
  pub: 'semver',
  swifturl: 'semver',
  bitnami: 'semver',
  debian: 'deb',
  ubuntu: 'deb',
  'red hat': 'rpm',
  almalinux: 'rpm',
  'rocky linux': 'rpm',
  opensuse: 'rpm',
  suse: 'rpm',
  mageia: 'rpm',
  openeuler: 'rpm',
};

/**
 * The comparison scheme for an OSV ecosystem; unknown ecosystems (Packagist, Alpine, …) use
 * `custom`, i.e. the vendor comparator with heuristic confidence.
 */
export function osvVersionScheme(ecosystem: string | undefined): string {
  const base = (ecosystem ?? '').split(':')[0]!.trim().toLowerCase(); // split gives at least one part
  return Object.hasOwn(ECOSYSTEM_SCHEMES, base) ? ECOSYSTEM_SCHEMES[base]! : 'custom';
}

type EventKind = 'introduced' | 'fixed' | 'last_affected';
interface Event {
  kind: EventKind;
  version: string;
}

function eventsOf(range: OsvRange): Event[] {
  const events: Event[] = [];
  for (const event of range.events ?? []) {
    for (const kind of ['introduced', 'fixed', 'last_affected'] as const) {
      const version = event[kind];
      if (version !== undefined) events.push({ kind, version });
    }
  }
  return events;
}

const isBeginning = (event: Event) => event.kind === 'introduced' && event.version === '0';

interface Interval {
  start: Event;
  end?: Event;
}

/**
 * The events read as intervals in the order the producer wrote them (introduced, then its fixed
 * or last_affected; a last introduced may stay open). `undefined` when they do not alternate.
 */
function intervalsOf(events: Event[]): Interval[] | undefined {
  const intervals: Interval[] = [];
  for (let i = 0; i < events.length; i += 2) {
    const start = events[i]!;
    const end = events[i + 1]; // the last introduced may stay open
    if (start.kind !== 'introduced' || (end && end.kind === 'introduced')) return undefined;
    intervals.push({ start, end });
  }
  return intervals;
}

/**
 * Whether V lies in one interval. Reading intervals in the written order keeps overlapping or
 * unsorted ranges (PyPA's pyspark, apache-iotdb) and empty ones (RustSec's `introduced X,
 * fixed X`) meaning what their authors meant, where sorting would have to break ties blindly.
 */
function intervalContains(
  interval: Interval,
  compare: (a: string, b: string) => Comparison | undefined,
  version: string,
): boolean | undefined {
  const afterStart = isBeginning(interval.start) ? 0 : compare(version, interval.start.version)?.order;
  if (afterStart === undefined) return undefined;
  if (afterStart < 0) return false;
  if (!interval.end) return true;
  const beforeEnd = compare(version, interval.end.version)?.order;
  if (beforeEnd === undefined) return undefined;
  return interval.end.kind === 'fixed' ? beforeEnd < 0 : beforeEnd <= 0;
}

/** The OSV specification's algorithm: sort the events, then replay them over V. */
function replayEvents(
  version: string,
  events: Event[],
  compare: (a: string, b: string) => Comparison | undefined,
): boolean | undefined {
  let comparable = true;
  const sorted = [...events].sort((a, b) => {
    if (isBeginning(a) || isBeginning(b)) return Number(isBeginning(b)) - Number(isBeginning(a));
    const order = compare(a.version, b.version)?.order;
    if (order === undefined) comparable = false;
    return order ?? 0;
  });
  let vulnerable = false;
  for (const event of sorted) {
    const order = isBeginning(event) ? 0 : compare(version, event.version)?.order;
    if (order === undefined) {
      comparable = false;
      continue;
    }
    if (event.kind === 'introduced' && order >= 0) vulnerable = true;
    if (event.kind === 'fixed' && order >= 0) vulnerable = false;
    if (event.kind === 'last_affected' && order > 0) vulnerable = false;
  }
  return comparable ? vulnerable : undefined;
}

/** Evaluates one SEMVER/ECOSYSTEM range; `undefined` when some comparison is impossible. */
function rangeAffects(version: string, range: OsvRange, scheme: string): boolean | undefined {
  const events = eventsOf(range);
  const compare = (a: string, b: string) => compareVersions(a, b, scheme);
  const intervals = intervalsOf(events);
  if (!intervals) return replayEvents(version, events, compare);
  let undecided = false;
  for (const interval of intervals) {
    const contains = intervalContains(interval, compare, version);
    if (contains === true) return true;
    if (contains === undefined) undecided = true;
  }
  return undecided ? undefined : false;
}

/** Whether `version` is affected according to one OSV `affected[]` entry. */
export function osvAffected(version: string, affected: OsvAffected, ecosystem?: string): OsvStatus {
  const scheme = osvVersionScheme(ecosystem ?? affected.package?.ecosystem);
  let undecided = false;
  for (const listedVersion of affected.versions ?? []) {
    if (listedVersion === version) return 'affected';
    const comparison = compareVersions(listedVersion, version, scheme);
    if (comparison?.order === 0) {
      if (comparison.confidence === 'exact') return 'affected';
      undecided = true;
    }
  }
  if (!isComparableVendorVersion(version)) return 'unknown';
  const ranges = affected.ranges ?? [];
  // An entry naming the package with neither ranges nor versions says nothing about any version.
  if (ranges.length === 0 && (affected.versions ?? []).length === 0) return 'unknown';
  const releaseRanges = ranges.filter((range) => range.type === 'SEMVER' || range.type === 'ECOSYSTEM');
  if (ranges.some((range) => !['SEMVER', 'ECOSYSTEM', 'GIT'].includes(range.type))) undecided = true;
  if (releaseRanges.length === 0 && ranges.some((range) => range.type === 'GIT')) undecided = true;
  for (const range of releaseRanges) {
    const rangeScheme = range.type === 'ECOSYSTEM' || scheme === 'go' ? scheme : 'semver';
    const affects = rangeAffects(version, range, rangeScheme);
    if (affects === true) return 'affected';
    if (affects === undefined) undecided = true;
  }
  return undecided ? 'unknown' : 'unaffected';
}
