/**
 * The provenance CVE JSON 5 requires of a record: `cveMetadata.assignerOrgId` and
 * `containers.cna.providerMetadata.orgId` (with `shortName`). What the source names stays; what it
 * does not name is the feed's: the version-5 UUID of the feed name in FEED_NAMESPACE, and the feed
 * name as short name. Mapping per feed: docs/advisory-feeds.md#provenance.
 */
import { uuidV5 } from '../uuid.js';

/** The namespace of feed org ids (a fixed, random version-4 UUID chosen for Vulnscope). */
export const FEED_NAMESPACE = '046ee7e0-5375-4bff-b33f-acaba4e8f09b';

/** CVE 5 limits `shortName` to 32 characters. */
const SHORT_NAME_MAX = 32;

export interface Provenance {
  orgId: string;
  shortName: string;
}

/** The org id and short name records of `feed` get where their source names none. */
export function feedProvenance(feed: string): Provenance {
  return { orgId: uuidV5(FEED_NAMESPACE, feed), shortName: feed.slice(0, SHORT_NAME_MAX) };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const named = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/**
 * `record` with the provenance it lacks filled in from `feed` (a copy; the input is not changed,
 * and is returned as is when nothing is missing or it is not a CVE-record-shaped object). A
 * provider without an org id becomes the feed (its short name too, unless it has one); a short
 * name is never added beside an org id the source named, whose name it would not be.
 */
export function withProvenance<T>(record: T, feed: string): T {
  if (!isObject(record) || !isObject(record.cveMetadata) || !isObject(record.containers)) return record;
  const cna = record.containers.cna;
  if (!isObject(cna)) return record;
  const provider = isObject(cna.providerMetadata) ? cna.providerMetadata : undefined;
  const needsAssigner = !named(record.cveMetadata.assignerOrgId);
  const needsProvider = !named(provider?.orgId);
  if (!needsAssigner && !needsProvider) return record;
  const own = feedProvenance(feed);
  const cveMetadata = needsAssigner ? { ...record.cveMetadata, assignerOrgId: own.orgId } : record.cveMetadata;
  const providerMetadata = needsProvider
    ? { ...provider, orgId: own.orgId, ...(named(provider?.shortName) ? {} : { shortName: own.shortName }) }
    : provider;
  return {
    ...record,
    cveMetadata,
    containers: { ...record.containers, cna: { ...cna, providerMetadata } },
  };
}
