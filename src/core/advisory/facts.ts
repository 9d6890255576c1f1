/**
 * What storage keeps beside an advisory record to filter it: the CVE id and update time, the
 * searchable terms, and the compact "match data" (affected entries and CPE criteria) that the
 * version and CPE filters evaluate, so a query never has to parse whole records.
 */
import type { VersionRange } from '../version/range.js';
import type { Cve5VersionEntry } from '../version/cve5-affected.js';
import { collectionKey, cpeTermOf, normalizeLang, normalizeText, packageUrlKey, TERM, type TermKind } from './terms.js';

/** One `affected[]` product of the CNA or an ADP container, normalised for matching. */
export interface MatchEntry {
  vendor?: string;
  product?: string;
  platforms?: string[];
  packageName?: string;
  /** Package keys (`type:name`) from `packageURL` and from `collectionURL` + `packageName`. */
  packages?: string[];
  cpes?: string[];
  versions?: Cve5VersionEntry[];
  defaultStatus?: string;
}

/** A vulnerable `cpeMatch` of `cpeApplicability` (NVD configurations land there too). */
export interface MatchCriterion {
  criteria: string;
  range?: VersionRange;
}

export interface MatchData {
  entries: MatchEntry[];
  criteria: MatchCriterion[];
}

export interface AdvisoryFacts {
  cveId: string;
  /** The record's update time in epoch ms ({@link advisoryUpdateTime}), when it has one. */
  updatedAt?: number;
  terms: Array<[TermKind, string]>;
  matchData: MatchData;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;
const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => text(v) !== undefined) : [];

/** Index keys have a size limit (PostgreSQL B-tree rows hold ~2.7 kB); longer values are compared by this prefix. */
export const TERM_VALUE_MAX = 600;
export const termValue = (value: string) => value.slice(0, TERM_VALUE_MAX);

/** The CNA container, then every ADP container. */
export function containersOf(record: Json): Json[] {
  const containers = isObject(record.containers) ? record.containers : {};
  return [...(isObject(containers.cna) ? [containers.cna] : []), ...objects(containers.adp)];
}

/** One `affected[]` item as the filters compare it. */
export function matchEntry(affected: Json): MatchEntry {
  const entry: MatchEntry = {};
  const vendor = text(affected.vendor);
  const product = text(affected.product);
  const packageName = text(affected.packageName);
  if (vendor) entry.vendor = normalizeText(vendor);
  if (product) entry.product = normalizeText(product);
  const platforms = texts(affected.platforms).map(normalizeText);
  if (platforms.length > 0) entry.platforms = platforms;
  if (packageName) entry.packageName = packageName.trim().toLowerCase();
  const packages = new Set<string>();
  const packageURL = text(affected.packageURL);
  const fromUrl = packageURL ? packageUrlKey(packageURL) : undefined;
  if (fromUrl) packages.add(fromUrl);
  const collectionURL = text(affected.collectionURL);
  const fromCollection = collectionURL && packageName ? collectionKey(collectionURL, packageName) : undefined;
  if (fromCollection) packages.add(fromCollection);
  if (packages.size > 0) entry.packages = [...packages];
  const cpes = texts(affected.cpes);
  if (cpes.length > 0) entry.cpes = cpes;
  const versions = objects(affected.versions) as Cve5VersionEntry[];
  if (versions.length > 0) entry.versions = versions;
  const defaultStatus = text(affected.defaultStatus);
  if (defaultStatus) entry.defaultStatus = defaultStatus;
  return entry;
}

function criteriaOf(container: Json): MatchCriterion[] {
  const out: MatchCriterion[] = [];
  for (const item of objects(container.cpeApplicability)) {
    const configuration = isObject(item.mcpeapplicability) ? item.mcpeapplicability : item;
    for (const node of objects(configuration.nodes)) {
      for (const match of objects(node.cpeMatch)) {
        const criteria = text(match.criteria);
        if (!criteria || match.vulnerable === false) continue;
        const range: VersionRange = {};
        const bounds = [
          ['startIncluding', match.versionStartIncluding],
          ['startExcluding', match.versionStartExcluding],
          ['endIncluding', match.versionEndIncluding],
          ['endExcluding', match.versionEndExcluding],
        ] as const;
        for (const [key, value] of bounds) if (text(value)) range[key] = value as string;
        out.push(Object.keys(range).length > 0 ? { criteria, range } : { criteria });
      }
    }
  }
  return out;
}

/** `vendor:product` → its parts (the vendor holds no unquoted `:`; the product may). */
function splitCpeTerm(term: string): [string, string] {
  const colon = term.indexOf(':');
  return [term.slice(0, colon), term.slice(colon + 1)];
}

function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

/**
 * When a record was last updated, for `updatedAfter`/`updatedBefore`: `cveMetadata.dateUpdated`,
 * else `datePublished` (a record never updated since it was published), else `dateReserved`;
 * undefined when it has none of them readable. Many records carry no `dateUpdated` (a CVE record
 * never updated since it was published, a source that gives no modification time), and filtering
 * on it alone left them out of every update-time query.
 */
export function advisoryUpdateTime(record: unknown): number | undefined {
  const metadata = isObject(record) && isObject(record.cveMetadata) ? record.cveMetadata : {};
  return parseTime(metadata.dateUpdated) ?? parseTime(metadata.datePublished) ?? parseTime(metadata.dateReserved);
}

/** Facts of one record (in the served CVE-record shape). */
export function advisoryFacts(record: unknown): AdvisoryFacts {
  const json = isObject(record) ? record : {};
  const metadata = isObject(json.cveMetadata) ? json.cveMetadata : {};
  const terms = new Map<string, [TermKind, string]>();
  const add = (kind: TermKind, value: string | undefined) => {
    if (value === undefined || value === '') return;
    const stored = termValue(value);
    terms.set(`${kind}\u0000${stored}`, [kind, stored]);
  };
  const entries: MatchEntry[] = [];
  const criteria: MatchCriterion[] = [];
  for (const container of containersOf(json)) {
    for (const affected of objects(container.affected)) {
      const entry = matchEntry(affected);
      entries.push(entry);
      add(TERM.vendor, entry.vendor);
      add(TERM.product, entry.product);
      if (entry.platforms) for (const platform of entry.platforms) add(TERM.platform, platform);
      add(TERM.packageName, entry.packageName);
      if (entry.packages) for (const key of entry.packages) add(TERM.package, key);
      if (entry.cpes) for (const cpe of entry.cpes) add(TERM.cpe, cpeTermOf(cpe));
    }
    for (const criterion of criteriaOf(container)) {
      criteria.push(criterion);
      const term = cpeTermOf(criterion.criteria);
      add(TERM.cpe, term);
      // The criterion's product is an affected product too (what the vendor/product filters find).
      if (term) {
        const [vendor, product] = splitCpeTerm(term);
        add(TERM.vendor, normalizeText(vendor));
        if (product !== '*') add(TERM.product, normalizeText(product));
      }
    }
    for (const reference of objects(container.references)) {
      add(TERM.referenceUrl, text(reference.url)?.trim());
      for (const tag of texts(reference.tags)) add(TERM.referenceTag, normalizeText(tag));
    }
    for (const description of objects(container.descriptions)) {
      const lang = text(description.lang);
      if (lang) add(TERM.descriptionLang, normalizeLang(lang));
    }
  }
  const updatedAt = advisoryUpdateTime(json);
  return {
    cveId: text(metadata.cveId)?.trim() ?? '',
    ...(updatedAt !== undefined ? { updatedAt } : {}),
    terms: [...terms.values()],
    matchData: { entries, criteria },
  };
}
