/**
 * What `/v3/purl` reports of one advisory record that affects a package version: its CVE ids
 * (the record's own and, for OSV records, its CVE aliases) and the version that fixes it.
 */
import { containersOf, matchEntry, type MatchEntry } from './facts.js';
import { fixedVersion } from './fixed-version.js';
import { isAffected } from './version-match.js';

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;

export interface PackageFinding {
  cves: readonly string[];
  fixedVersion?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** CVE ids a record names: `cveMetadata.cveId` and the OSV `aliases` kept as `x_aliases`. */
export function recordCveIds(record: unknown): string[] {
  const json = isObject(record) ? record : {};
  const metadata = isObject(json.cveMetadata) ? json.cveMetadata : {};
  const containers = isObject(json.containers) ? json.containers : {};
  const cna = isObject(containers.cna) ? containers.cna : {};
  const aliases = Array.isArray(cna.x_aliases) ? cna.x_aliases : [];
  const ids = [metadata.cveId, ...aliases].filter((id): id is string => typeof id === 'string' && CVE_ID.test(id));
  return [...new Set(ids)];
}

/**
 * The fixing version from a record's affected entries (in record order) for the package `key`
 * at `version`: that of the first entry naming the package, affected, with a fix.
 */
export function entriesFixedVersion(entries: Iterable<MatchEntry>, key: string, version: string): string | undefined {
  for (const entry of entries) {
    if (!entry.packages?.includes(key) || !isAffected(version, entry)) continue;
    const fixed = fixedVersion(version, entry);
    if (fixed !== undefined) return fixed;
  }
  return undefined;
}

function* affectedEntries(record: Record<string, unknown>): Iterable<MatchEntry> {
  for (const container of containersOf(record)) {
    const affected = Array.isArray(container.affected) ? container.affected.filter(isObject) : [];
    for (const item of affected) yield matchEntry(item);
  }
}

/** The finding of `record` for the package `key` (`type:name`) at `version`, read from the whole record. */
export function packageFinding(record: unknown, key: string, version: string): PackageFinding {
  const fixed = entriesFixedVersion(affectedEntries(isObject(record) ? record : {}), key, version);
  return { cves: recordCveIds(record), ...(fixed !== undefined ? { fixedVersion: fixed } : {}) };
}

/** CVE ids in (year, number) order. */
export function sortCveIds(ids: Iterable<string>): string[] {
  // Each id split once: splitting in the comparator was most of a 500-advisory lookup.
  const keyed = [...ids].map((id) => {
    const [, year, number] = id.split('-');
    return { id, year: Number(year), number: Number(number) };
  });
  keyed.sort((a, b) => a.year - b.year || a.number - b.number);
  return keyed.map((entry) => entry.id);
}
