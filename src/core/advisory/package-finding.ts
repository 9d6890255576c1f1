/**
 * What `/v3/purl` reports of one advisory record that affects a package version: its CVE ids
 * (the record's own and, for OSV records, its CVE aliases) and the version that fixes it.
 */
import { containersOf, matchEntry } from './facts.js';
import { fixedVersion } from './fixed-version.js';
import { isAffected } from './version-match.js';

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;

export interface PackageFinding {
  cves: string[];
  fixedVersion?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** CVE ids a record names: `cveMetadata.cveId` and the OSV `aliases` kept as `x_aliases`. */
function cvesOf(record: Record<string, unknown>): string[] {
  const metadata = isObject(record.cveMetadata) ? record.cveMetadata : {};
  const containers = isObject(record.containers) ? record.containers : {};
  const cna = isObject(containers.cna) ? containers.cna : {};
  const aliases = Array.isArray(cna.x_aliases) ? cna.x_aliases : [];
  const ids = [metadata.cveId, ...aliases].filter((id): id is string => typeof id === 'string' && CVE_ID.test(id));
  return [...new Set(ids)];
}

/** The finding of `record` for the package `key` (`type:name`) at `version`. */
export function packageFinding(record: unknown, key: string, version: string): PackageFinding {
  const json = isObject(record) ? record : {};
  const finding: PackageFinding = { cves: cvesOf(json) };
  for (const container of containersOf(json)) {
    const affected = Array.isArray(container.affected) ? container.affected.filter(isObject) : [];
    for (const item of affected) {
      const entry = matchEntry(item);
      if (!entry.packages?.includes(key) || !isAffected(version, entry)) continue;
      const fixed = fixedVersion(version, entry);
      if (fixed !== undefined) return { ...finding, fixedVersion: fixed };
    }
  }
  return finding;
}

/** CVE ids in (year, number) order. */
export function sortCveIds(ids: Iterable<string>): string[] {
  const parts = (id: string) => id.split('-').slice(1).map(Number) as [number, number];
  return [...ids].sort((a, b) => {
    const [ya, na] = parts(a);
    const [yb, nb] = parts(b);
    return ya - yb || na - nb;
  });
}
