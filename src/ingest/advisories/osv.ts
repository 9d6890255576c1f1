/**
 * `osv` (feeds `go-vulndb`, `pypa`, `rustsec`): OSV entries from JSON Lines (`.jsonl[.gz]`), a
 * directory of `.json` files, an OSV `all.zip`, or a single `.json` file (one entry or an array).
 * Mapping: docs/advisory-feeds.md#osv.
 */
import { extensionKey, JSON_NAME, LINES_NAME, list, runAdapter, str, strings } from './common.js';
import { parseCvssVector } from './cvss.js';
import { finalizeRecord, utcTimestamp } from './normalize.js';
import { ConversionError, isObject, type AdvisoryItem, type AdvisoryRecord, type JsonObject } from './types.js';

export const acceptOsvFile = (path: string) => JSON_NAME.test(path) || LINES_NAME.test(path);
export const osvIdOf = (value: unknown) => (isObject(value) ? str(value.id) : undefined);

/** Registry URL (`collectionURL`) per OSV ecosystem (the part before `:`). */
export const COLLECTION_URLS: Record<string, string> = {
  Go: 'https://pkg.go.dev',
  PyPI: 'https://pypi.org',
  'crates.io': 'https://crates.io',
  npm: 'https://registry.npmjs.org',
  Maven: 'https://repo.maven.apache.org/maven2',
  RubyGems: 'https://rubygems.org',
  NuGet: 'https://www.nuget.org',
  Packagist: 'https://packagist.org',
  Hex: 'https://hex.pm',
  Pub: 'https://pub.dev',
  Hackage: 'https://hackage.haskell.org',
  CRAN: 'https://cran.r-project.org',
  SwiftURL: 'https://swiftpackageindex.com',
};

/** purl type per OSV ecosystem. */
const PURL_TYPES: Record<string, string> = {
  Go: 'golang',
  PyPI: 'pypi',
  'crates.io': 'cargo',
  npm: 'npm',
  Maven: 'maven',
  RubyGems: 'gem',
  NuGet: 'nuget',
  Packagist: 'composer',
  Hex: 'hex',
  Pub: 'pub',
  Hackage: 'hackage',
  CRAN: 'cran',
};

/** CVE 5 `versionType` for an OSV range: GIT → git, SEMVER → semver, ECOSYSTEM → by ecosystem. */
const ECOSYSTEM_VERSION_TYPES: Record<string, string> = {
  PyPI: 'python',
  Maven: 'maven',
  RubyGems: 'rubygems',
  npm: 'semver',
  'crates.io': 'semver',
  Go: 'semver',
  Hex: 'semver',
  Pub: 'semver',
  NuGet: 'nuget',
  Packagist: 'composer',
  Debian: 'deb',
  Ubuntu: 'deb',
  Alpine: 'apk',
  'Red Hat': 'rpm',
  AlmaLinux: 'rpm',
  'Rocky Linux': 'rpm',
  openSUSE: 'rpm',
  SUSE: 'rpm',
};

const ecosystemBase = (ecosystem: string) => ecosystem.split(':')[0]!; // split gives at least one part

/** `table[key]` for the table's own keys: an ecosystem such as `constructor` finds nothing. */
const lookup = (table: Record<string, string>, key: string): string | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

const encodeSegments = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** A package URL from ecosystem + name (purl spec type rules for the common ecosystems). */
export function derivePurl(ecosystem: string, name: string): string | undefined {
  const type = lookup(PURL_TYPES, ecosystemBase(ecosystem));
  if (!type) return undefined;
  switch (type) {
    case 'pypi':
      return `pkg:pypi/${encodeURIComponent(name.toLowerCase().replace(/[-_.]+/g, '-'))}`;
    case 'npm':
      return name.startsWith('@') && name.includes('/')
        ? `pkg:npm/%40${encodeSegments(name.slice(1))}`
        : `pkg:npm/${encodeURIComponent(name)}`;
    case 'maven': {
      const [group = '', artifact] = name.split(':'); // split gives at least one part
      return artifact ? `pkg:maven/${encodeURIComponent(group)}/${encodeURIComponent(artifact)}` : undefined;
    }
    case 'golang':
    case 'composer':
      return `pkg:${type}/${encodeSegments(name)}`;
    default:
      return `pkg:${type}/${encodeURIComponent(name)}`;
  }
}

/**
 * OSV range events → CVE 5 versions: each `introduced` opens a range that the next `fixed`
 * (`lessThan`), `last_affected` (`lessThanOrEqual`) or `limit` (`lessThan`) closes; a range left
 * open runs to `lessThan: "*"`. Events are taken in the order given (OSV lists them that way).
 */
export function versionsFromRange(rangeObject: JsonObject, versionType: string): JsonObject[] {
  const out: JsonObject[] = [];
  let start: string | undefined;
  const close = (key: 'lessThan' | 'lessThanOrEqual', value: string) => {
    out.push({ version: start ?? '0', status: 'affected', [key]: value, versionType });
    start = undefined;
  };
  for (const event of list(rangeObject.events).filter(isObject)) {
    if (typeof event.introduced === 'string') {
      if (start !== undefined) close('lessThan', '*');
      start = event.introduced;
    } else if (typeof event.fixed === 'string') close('lessThan', event.fixed);
    else if (typeof event.last_affected === 'string') close('lessThanOrEqual', event.last_affected);
    else if (typeof event.limit === 'string') {
      if (start !== undefined) close('lessThan', event.limit);
    }
  }
  if (start !== undefined) close('lessThan', '*');
  return out;
}

function convertAffected(item: JsonObject): JsonObject {
  const pkg = isObject(item.package) ? item.package : {};
  const ecosystem = str(pkg.ecosystem) ?? '';
  const name = str(pkg.name);
  const entry: JsonObject = {};
  if (name) {
    entry.packageName = name;
    entry.product = name;
  }
  const collectionURL = lookup(COLLECTION_URLS, ecosystemBase(ecosystem));
  if (collectionURL) entry.collectionURL = collectionURL;
  const purl = str(pkg.purl) ?? (name ? derivePurl(ecosystem, name) : undefined);
  if (purl) entry.packageURL = purl;

  const versions: JsonObject[] = [];
  // GIT ranges order commits, not releases: placed last, they cannot leave undecided a release that
  // a range or the versions list holds (the CVE 5 algorithm lets the first entry holding V decide).
  const gitVersions: JsonObject[] = [];
  for (const r of list(item.ranges).filter(isObject)) {
    const type = str(r.type)?.toUpperCase();
    const versionType =
      type === 'GIT'
        ? 'git'
        : type === 'SEMVER'
          ? 'semver'
          : (lookup(ECOSYSTEM_VERSION_TYPES, ecosystemBase(ecosystem)) ?? 'custom');
    if (type === 'GIT' && str(r.repo) && entry.repo === undefined) entry.repo = r.repo;
    (type === 'GIT' ? gitVersions : versions).push(...versionsFromRange(r, versionType));
  }
  for (const v of strings(item.versions)) versions.push({ version: v, status: 'affected' });
  versions.push(...gitVersions);
  if (versions.length > 0) entry.versions = versions;
  entry.defaultStatus = 'unaffected';

  // Go: imported packages, their vulnerable symbols and GOOS restrictions;
  // RustSec: `affects.functions` (paths) and `affects.os`.
  const specific = isObject(item.ecosystem_specific) ? item.ecosystem_specific : {};
  const imports = list(specific.imports).filter(isObject);
  const affects = isObject(specific.affects) ? specific.affects : {};
  const modules = [...new Set(imports.map((i) => str(i.path)).filter((p): p is string => p !== undefined))];
  if (modules.length > 0) entry.modules = modules;
  const routines = [...new Set([...imports.flatMap((i) => strings(i.symbols)), ...strings(affects.functions)])];
  if (routines.length > 0) entry.programRoutines = routines.map((name) => ({ name }));
  const platforms = [...new Set([...imports.flatMap((i) => strings(i.goos)), ...strings(affects.os)])];
  if (platforms.length > 0) entry.platforms = platforms;
  return entry;
}

function convertSeverity(severity: unknown): JsonObject[] {
  const metrics: JsonObject[] = [];
  for (const s of list(severity).filter(isObject)) {
    const score = str(s.score);
    const parsed = score && /^CVSS_V[234]$/.test(String(s.type)) ? parseCvssVector(score) : undefined;
    if (parsed) metrics.push({ format: 'CVSS', [parsed.key]: parsed.cvss });
    else metrics.push({ other: { type: String(s.type ?? 'unknown'), content: { ...s } } });
  }
  return metrics;
}

/** OSV credit types → CVE 5 credit types (`REMEDIATION_DEVELOPER` → `remediation developer`). */
const creditType = (type: unknown) => (typeof type === 'string' ? type.toLowerCase().replace(/_/g, ' ') : undefined);

/** OSV ids: printable, no spaces (`GO-2022-0360`, `RUSTSEC-2016-0005`, or a CVE id). */
const ANY_ID = /^\S+$/;
const ZERO_TIME = /^0001-01-01T00:00:00(\.0+)?Z$/;
const EXPECTED_TYPES: Record<string, 'array' | 'string'> = {
  id: 'string',
  aliases: 'array',
  summary: 'string',
  details: 'string',
  published: 'string',
  modified: 'string',
  withdrawn: 'string',
  references: 'array',
  affected: 'array',
};
const MAPPED = new Set([
  'id',
  'aliases',
  'summary',
  'details',
  'published',
  'modified',
  'withdrawn',
  'references',
  'affected',
]);
// severity → metrics and credits → credits are mapped too, but not losslessly (contacts, unparsed
// scores): they are also kept verbatim (x_osvSeverity, x_osvCredits).

const realDate = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' && !ZERO_TIME.test(value.trim())
    ? utcTimestamp(value.trim())
    : undefined;

/** The CVE id a record is served under: the only CVE alias, else the first of several (by year, then number), else the OSV id. */
export function osvCveId(id: string, aliases: string[]): string {
  // The year and number of a CVE id; only ids of the form CVE-YYYY-NNNN get here (filtered below).
  const number = (cve: string): [number, number] => {
    const [, year, sequence] = cve.split('-');
    return [Number(year), Number(sequence)];
  };
  const cves = aliases
    .filter((a) => /^CVE-\d{4}-\d{4,}$/.test(a))
    .sort((a, b) => {
      const [ya, na] = number(a);
      const [yb, nb] = number(b);
      return ya - yb || na - nb;
    });
  return cves[0] ?? id;
}

/** One OSV entry → a servable record. */
export function convertOsv(value: unknown): AdvisoryRecord {
  if (!isObject(value)) throw new ConversionError('OSV entry is not an object');
  const id = str(value.id)?.trim();
  if (!id) throw new ConversionError('OSV entry without id');
  const aliases = strings(value.aliases);
  const withdrawn = str(value.withdrawn);
  const cveMetadata: JsonObject = { cveId: osvCveId(id, aliases), state: withdrawn ? 'REJECTED' : 'PUBLISHED' };
  // Go's vulndb writes the zero time (0001-01-01T00:00:00Z) for unknown dates: not a date, so it is
  // left out (kept verbatim as x_osvPublished / x_osvModified); dateUpdated falls back to published.
  const published = realDate(value.published);
  const modified = realDate(value.modified);
  if (published) cveMetadata.datePublished = published;
  const updated = modified ?? published;
  if (updated) cveMetadata.dateUpdated = updated;
  if (withdrawn) cveMetadata.dateRejected = utcTimestamp(withdrawn);

  const cna: JsonObject = {};
  // The provider's org id and short name are the feed's (runAdapter): OSV names no CVE org.
  cna.providerMetadata = { ...(updated ? { dateUpdated: updated } : {}) };
  const summary = str(value.summary);
  const details = str(value.details);
  if (summary) cna.title = summary;
  const text = details ?? summary;
  if (text) cna.descriptions = [{ lang: 'en', value: text }];

  const affected = list(value.affected).filter(isObject);
  if (affected.length > 0) {
    cna.affected = affected.map(convertAffected);
    cna.x_osvAffected = value.affected;
  }
  const references = list(value.references)
    .filter(isObject)
    .filter((r) => str(r.url) !== undefined)
    .map((r) => (str(r.type) ? { url: r.url, tags: [(r.type as string).toLowerCase()] } : { url: r.url }));
  if (references.length > 0) cna.references = references;

  const metrics = convertSeverity(value.severity);
  if (metrics.length > 0) cna.metrics = metrics;
  const cwes = isObject(value.database_specific) ? strings(value.database_specific.cwe_ids) : [];
  if (cwes.length > 0) {
    cna.problemTypes = [{ descriptions: cwes.map((c) => ({ lang: 'en', type: 'CWE', cweId: c, description: c })) }];
  }
  const credits = list(value.credits)
    .filter(isObject)
    .filter((c) => str(c.name) !== undefined)
    .map((c) => {
      const credit: JsonObject = { lang: 'en', value: c.name };
      const type = creditType(c.type);
      if (type) credit.type = type;
      return credit;
    });
  if (credits.length > 0) cna.credits = credits;

  cna.x_osvId = id;
  if (aliases.length > 0) cna.x_aliases = aliases;
  if (str(value.published) && !published) cna.x_osvPublished = value.published;
  if (str(value.modified) && !modified) cna.x_osvModified = value.modified;
  // severity, credits (with contacts), database_specific, related, schema_version, … verbatim.
  for (const [key, item] of Object.entries(value)) {
    // Unmapped members, and mapped ones of an unexpected type (kept, not dropped).
    const expected = EXPECTED_TYPES[key];
    const unexpected =
      expected !== undefined && (expected === 'array' ? !Array.isArray(item) : typeof item !== 'string');
    if (!MAPPED.has(key) || unexpected) cna[extensionKey('osv', key)] = item;
  }
  return finalizeRecord({ dataType: 'CVE_RECORD', dataVersion: '5.0', cveMetadata, containers: { cna } }, ANY_ID);
}

export function osv(source: string, feed: string): AsyncIterable<AdvisoryItem> {
  return runAdapter(source, feed, acceptOsvFile, [], osvIdOf, (value) => {
    const record = convertOsv(value);
    return [{ kind: 'record', record, sourceId: record.containers.cna.x_osvId as string }];
  });
}
