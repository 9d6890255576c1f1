import type { Fingerprint } from './observation.js';
import type { PageRecord } from './host-record.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isWildcard = (value: string) => value === '*' || value === '-' || value === '';

function distinct(fingerprints: Fingerprint[], field: 'cpe' | 'vendor' | 'product' | 'version'): string[] {
  const values = new Set<string>();
  for (const fp of fingerprints) {
    const value = fp[field];
    if (value !== undefined && !isWildcard(value)) values.add(value);
  }
  return [...values];
}

/**
 * A record in the `api.TargetIntel` shape: `cve` is null (and `contains_cve` false) when there
 * is none; enrichment fields appear only when known; `metadata` is omitted (the two SDK
 * generations disagree on its type).
 */
export function toTargetIntel(record: PageRecord) {
  return {
    ip: record.ip,
    hostname: record.hostname,
    port: record.port,
    timestamp: iso(record.observedAt),
    date_added: iso(record.dateAdded),
    protocol: record.protocol,
    cpe: distinct(record.fingerprints, 'cpe'),
    cve: record.cves.length > 0 ? record.cves : null,
    vendor: distinct(record.fingerprints, 'vendor'),
    product: distinct(record.fingerprints, 'product'),
    version: distinct(record.fingerprints, 'version'),
    fingerprints: record.fingerprints,
    contains_cve: record.cves.length > 0,
    ...(record.asn ? { asn: record.asn } : {}),
    ...(record.asName ? { as_name: record.asName } : {}),
    ...(record.asDomain ? { as_domain: record.asDomain } : {}),
    ...(record.country ? { country: record.country } : {}),
    ...(record.countryCode ? { country_code: record.countryCode } : {}),
    ...(record.classifications.length > 0 ? { classifications: record.classifications } : {}),
  };
}
