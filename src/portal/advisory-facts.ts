/**
 * What an advisory record says, gathered from the places the feeds put it (the CNA container, the
 * ADP containers and the `x_*` members of docs/advisory-feeds.md), for the advisory pages. Every
 * value is a string the page renders as text.
 */
import type { AdvisoryRecord } from '../client/index.js';

/** A text with its language (descriptions, solutions, …). */
interface LangText {
  lang?: string;
  value?: string;
}
type Texts = LangText[] | undefined;

interface Version {
  version?: string;
  versionType?: string;
  status?: string;
  lessThan?: string;
  lessThanOrEqual?: string;
}

interface Cvss {
  version?: string;
  vectorString?: string;
  baseScore?: number;
  baseSeverity?: string;
}

interface CpeMatch {
  criteria?: string;
  vulnerable?: boolean;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
}

/**
 * A container as the feeds fill it (the SDK's record type leaves the nested objects open, as the
 * records pass through from the feeds; these are the members the pages read, each still checked).
 */
interface Container {
  title?: string;
  descriptions?: LangText[];
  affected?: Array<{
    vendor?: string;
    product?: string;
    packageName?: string;
    packageURL?: string;
    collectionURL?: string;
    platforms?: string[];
    cpes?: string[];
    defaultStatus?: string;
    versions?: Version[];
  }>;
  references?: Array<{ url?: string; name?: string; tags?: string[] }>;
  problemTypes?: Array<{ descriptions?: Array<{ cweId?: string; description?: string }> }>;
  metrics?: Array<{
    cvssV2_0?: Cvss;
    cvssV3_0?: Cvss;
    cvssV3_1?: Cvss;
    cvssV4_0?: Cvss;
    other?: { type?: string; content?: unknown };
  }>;
  providerMetadata?: { shortName?: string };
  cpeApplicability?: Array<{ mcpeapplicability?: { nodes?: Array<{ cpeMatch?: CpeMatch[] }> } }>;
  solutions?: LangText[];
  workarounds?: LangText[];
  datePublic?: string;
  rejectedReasons?: LangText[];
}

/** An open object's member, when it is a string. */
function text(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function member(source: unknown, name: string): unknown {
  return typeof source === 'object' && source !== null ? (source as Record<string, unknown>)[name] : undefined;
}

/** The CNA container. */
export const cnaOf = (record: AdvisoryRecord): Container => record.containers.cna as unknown as Container;

/** The CNA container, then each ADP container, each with who provided it. */
export function containersOf(record: AdvisoryRecord): Array<{ container: Container; provider: string | undefined }> {
  const { cna, adp = [] } = record.containers as unknown as { cna: Container; adp?: Container[] };
  return [cna, ...adp].map((container) => ({
    container,
    provider:
      typeof container.providerMetadata?.shortName === 'string' ? container.providerMetadata.shortName : undefined,
  }));
}

/** The record's title: the CNA's, else the KEV vulnerability name a feed carries (ADP titles name the ADP). */
export function titleOf(record: AdvisoryRecord): string | undefined {
  const cna = cnaOf(record);
  return (
    text(cna, 'title') ||
    text(member(cna, 'x_kev'), 'vulnerabilityName') ||
    text(member(cna, 'x_cisaKev'), 'cisaVulnerabilityName')
  );
}

/** Texts in English first (any `en-*`), then the others; empty values left out. */
export function textsOf(texts: Texts): Array<{ lang: string | undefined; value: string }> {
  const items = (texts ?? []).filter((item) => item.value?.trim()) as Array<{ lang?: string; value: string }>;
  const english = (lang: string | undefined) => (lang ?? '').toLowerCase().startsWith('en');
  return [...items.filter((item) => english(item.lang)), ...items.filter((item) => !english(item.lang))].map(
    (item) => ({ lang: item.lang, value: item.value }),
  );
}

/** The record's descriptions: the CNA's, else the first ADP container's that has some. */
export function descriptionsOf(record: AdvisoryRecord): Array<{ lang: string | undefined; value: string }> {
  for (const { container } of containersOf(record)) {
    const texts = textsOf(container.descriptions);
    if (texts.length > 0) return texts;
  }
  return [];
}

/** The first description, cut to about `length` characters, for a list. */
export function summaryOf(record: AdvisoryRecord, length = 220): string | undefined {
  const first = descriptionsOf(record)[0]?.value.replace(/\s+/g, ' ').trim();
  if (!first) return undefined;
  return first.length > length ? `${first.slice(0, length - 1).trimEnd()}…` : first;
}

export interface CvssScore {
  version: string;
  score: number | undefined;
  severity: string | undefined;
  vector: string | undefined;
  source: string | undefined;
}

const CVSS_MEMBERS = [
  ['cvssV4_0', '4.0'],
  ['cvssV3_1', '3.1'],
  ['cvssV3_0', '3.0'],
  ['cvssV2_0', '2.0'],
] as const;

/** A severity from a score where the metric names none (CVSS v2 has no severity of its own). */
function severityOfScore(score: number | undefined, version: string): string | undefined {
  if (score === undefined) return undefined;
  if (version === '2.0') return score >= 7 ? 'HIGH' : score >= 4 ? 'MEDIUM' : 'LOW';
  if (score === 0) return 'NONE';
  return score >= 9 ? 'CRITICAL' : score >= 7 ? 'HIGH' : score >= 4 ? 'MEDIUM' : 'LOW';
}

/** Every CVSS metric of every container, newest CVSS version first. */
export function cvssOf(record: AdvisoryRecord): CvssScore[] {
  const scores: CvssScore[] = [];
  for (const { container, provider } of containersOf(record)) {
    for (const metric of container.metrics ?? []) {
      for (const [name, version] of CVSS_MEMBERS) {
        const cvss = metric[name];
        if (!cvss) continue;
        const score = typeof cvss.baseScore === 'number' ? cvss.baseScore : undefined;
        const severity =
          text(cvss, 'baseSeverity') ??
          text(member(metric, 'x_nvd'), 'baseSeverity') ??
          severityOfScore(score, cvss.version ?? version);
        scores.push({
          version: cvss.version ?? version,
          score,
          severity: severity?.toUpperCase(),
          vector: cvss.vectorString,
          source: text(member(metric, 'x_nvd'), 'source') ?? provider,
        });
      }
    }
  }
  const rank = (version: string) => -Number.parseFloat(version || '0');
  return scores.sort((a, b) => rank(a.version) - rank(b.version));
}

export interface KevFacts {
  name?: string | undefined;
  dateAdded?: string | undefined;
  dueDate?: string | undefined;
  requiredAction?: string | undefined;
  ransomware?: string | undefined;
  notes?: string | undefined;
  reference?: string | undefined;
  source: string;
}

/**
 * The KEV facts a record carries: the cisa-kev feed's `x_kev`, NVD's `x_cisaKev`, or a CISA ADP
 * container's `kev` metric (vulnrichment). Undefined when none.
 */
export function kevOf(record: AdvisoryRecord): KevFacts | undefined {
  const cna = cnaOf(record);
  const kev = member(cna, 'x_kev');
  if (kev) {
    return {
      name: text(kev, 'vulnerabilityName'),
      dateAdded: text(kev, 'dateAdded'),
      dueDate: text(kev, 'dueDate'),
      requiredAction: text(kev, 'requiredAction'),
      ransomware: text(kev, 'knownRansomwareCampaignUse'),
      notes: text(kev, 'notes'),
      source: 'CISA KEV catalog',
    };
  }
  const nvd = member(cna, 'x_cisaKev');
  if (nvd) {
    return {
      name: text(nvd, 'cisaVulnerabilityName'),
      dateAdded: text(nvd, 'cisaExploitAdd'),
      dueDate: text(nvd, 'cisaActionDue'),
      requiredAction: text(nvd, 'cisaRequiredAction'),
      source: 'NVD (from the CISA KEV catalog)',
    };
  }
  for (const { container, provider } of containersOf(record)) {
    for (const metric of container.metrics ?? []) {
      const other = metric.other;
      if (other?.type?.toLowerCase() !== 'kev') continue;
      return {
        dateAdded: text(other.content, 'dateAdded'),
        reference: text(other.content, 'reference'),
        source: provider ?? 'ADP',
      };
    }
  }
  return undefined;
}

/** One `versions[]` entry in words: `2.4.49`, `from 2.4.0 before 2.4.50`, `from 0 up to 1.2`. */
export function versionRange(version: Version): string {
  const start = version.version?.trim();
  const upper = version.lessThan
    ? `before ${version.lessThan}`
    : version.lessThanOrEqual
      ? `up to ${version.lessThanOrEqual}`
      : undefined;
  const range = upper ? `${start && start !== '0' ? `from ${start} ` : ''}${upper}` : (start ?? '');
  const type = version.versionType && version.versionType !== 'custom' ? ` (${version.versionType})` : '';
  return `${range}${type}`;
}

export interface AffectedProduct {
  vendor: string | undefined;
  product: string | undefined;
  packageName: string | undefined;
  packageUrl: string | undefined;
  collectionUrl: string | undefined;
  platforms: string[];
  affected: string[];
  unaffected: string[];
  other: string[];
  defaultStatus: string | undefined;
  cpes: string[];
  source: string | undefined;
}

/** The `affected` entries of every container, their versions sorted by status. */
export function affectedOf(record: AdvisoryRecord): AffectedProduct[] {
  const products: AffectedProduct[] = [];
  for (const { container, provider } of containersOf(record)) {
    for (const entry of container.affected ?? []) {
      const by = (status: string) =>
        (entry.versions ?? []).filter((version) => version.status === status).map(versionRange);
      products.push({
        vendor: entry.vendor,
        product: entry.product,
        packageName: entry.packageName,
        packageUrl: entry.packageURL,
        collectionUrl: entry.collectionURL,
        platforms: entry.platforms ?? [],
        affected: by('affected'),
        unaffected: by('unaffected'),
        other: (entry.versions ?? [])
          .filter((version) => version.status !== 'affected' && version.status !== 'unaffected')
          .map((version) => `${versionRange(version)}: ${version.status ?? 'unknown'}`),
        defaultStatus: entry.defaultStatus,
        cpes: entry.cpes ?? [],
        source: provider,
      });
    }
  }
  return products;
}

export interface CpeCriterion {
  criteria: string;
  vulnerable: boolean;
  range: string | undefined;
}

/** The CPE applicability criteria (NVD configurations) of every container, each once. */
export function cpeCriteriaOf(record: AdvisoryRecord): CpeCriterion[] {
  const seen = new Set<string>();
  const criteria: CpeCriterion[] = [];
  for (const { container } of containersOf(record)) {
    for (const applicability of container.cpeApplicability ?? []) {
      for (const node of applicability.mcpeapplicability?.nodes ?? []) {
        for (const match of node.cpeMatch ?? []) {
          if (!match.criteria) continue;
          const bounds = [
            match.versionStartIncluding && `from ${match.versionStartIncluding}`,
            match.versionStartExcluding && `after ${match.versionStartExcluding}`,
            match.versionEndIncluding && `up to ${match.versionEndIncluding}`,
            match.versionEndExcluding && `before ${match.versionEndExcluding}`,
          ].filter(Boolean);
          const range = bounds.length > 0 ? bounds.join(' ') : undefined;
          const key = `${match.criteria} ${range ?? ''} ${match.vulnerable}`;
          if (seen.has(key)) continue;
          seen.add(key);
          criteria.push({ criteria: match.criteria, vulnerable: match.vulnerable !== false, range });
        }
      }
    }
  }
  return criteria.sort((a, b) => Number(b.vulnerable) - Number(a.vulnerable));
}

export interface Reference {
  url: string;
  name: string | undefined;
  tags: string[];
}

/** The references of every container, each URL once (its tags merged). */
export function referencesOf(record: AdvisoryRecord): Reference[] {
  const byUrl = new Map<string, Reference>();
  for (const { container } of containersOf(record)) {
    for (const reference of container.references ?? []) {
      const url = reference.url?.trim();
      if (!url) continue;
      const known = byUrl.get(url);
      if (known) {
        for (const tag of reference.tags ?? []) if (!known.tags.includes(tag)) known.tags.push(tag);
      } else {
        byUrl.set(url, { url, name: reference.name, tags: [...(reference.tags ?? [])] });
      }
    }
  }
  return [...byUrl.values()];
}

/** The weaknesses (CWE ids and texts) of every container, each once. */
export function weaknessesOf(record: AdvisoryRecord): string[] {
  const seen = new Set<string>();
  for (const { container } of containersOf(record)) {
    for (const problem of container.problemTypes ?? []) {
      for (const description of problem.descriptions ?? []) {
        const id = description.cweId?.trim();
        const words = description.description?.trim();
        const label = id && words && !words.startsWith(id) ? `${id}: ${words}` : (words ?? id);
        if (label) seen.add(label);
      }
    }
  }
  return [...seen];
}

/** The record's dates, in the order they happen. */
export function datesOf(record: AdvisoryRecord): Array<[string, string]> {
  const meta = record.cveMetadata;
  const cna = cnaOf(record);
  const dates: Array<[string, string | undefined]> = [
    ['Reserved', meta.dateReserved],
    ['Made public', cna.datePublic],
    ['Published', meta.datePublished],
    ['Updated', meta.dateUpdated],
    ['Rejected', meta.dateRejected],
  ];
  return dates.filter((entry): entry is [string, string] => Boolean(entry[1]));
}

/** The update time the API filters by: `dateUpdated`, else `datePublished`, else `dateReserved`. */
export function updatedOf(record: AdvisoryRecord): string | undefined {
  const meta = record.cveMetadata;
  return meta.dateUpdated ?? meta.datePublished ?? meta.dateReserved;
}

/** A date or date-time as the feeds give it, shortened to the day and minute in UTC. */
export function formatDate(value: string | undefined): string {
  if (!value) return '';
  const time = Date.parse(value);
  if (Number.isNaN(time)) return value;
  const iso = new Date(time).toISOString();
  return /T00:00:00(\.0+)?(Z|[+-]00:?00)?$/i.test(value) || /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? iso.slice(0, 10)
    : `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** A CVE id (as `/v3/index/target-intel?cve=` takes it), as opposed to an advisory id. */
export const isCveId = (id: string): boolean => /^CVE-\d{4}-\d{4,}$/i.test(id.trim());
