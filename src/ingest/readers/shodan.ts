/**
 * Shodan banners: one banner object per line (download/export JSONL), a JSON array of banners,
 * or host-API objects (`{ip_str, data: [banners], hostnames, asn, org, country_code, vulns}`,
 * pretty-printed or not). `failed: true` entries are skipped. Rules: docs/observation-format.md.
 */
import { invalidInput } from '../../core/errors.js';
import type { Observation, ReadItem } from '../../core/observation.js';
import { fingerprintsOfCpes, readScannerCpe, withScannerFields, type ScannerCpe } from './fingerprint-cpe.js';
import { readJsonRecords } from './json-records.js';
import { parseTimestamp } from './timestamps.js';
import { rejected, reasonOf } from './types.js';
import {
  asList,
  canonicalIp,
  compactFields,
  ipv4FromNumber,
  isObject,
  normaliseAsn,
  normaliseCountryCode,
  normaliseCves,
  normaliseHostnames,
  optionalText,
  parsePort,
  parseTransport,
  truncateText,
  unique,
  type JsonObject,
} from './values.js';

/** Shodan tags whose meaning matches one of our classifications; other tags are ignored. */
const CLASSIFICATION_BY_TAG = new Map([
  ['honeypot', 'honeypot'],
  ['c2', 'c2'],
  ['proxy', 'proxy'],
  ['scanner', 'scanner'],
  ['cdn', 'cdn'],
  ['tor', 'proxy:tor'],
]);

export async function* readShodan(input: NodeJS.ReadableStream, file: string): AsyncGenerator<ReadItem> {
  for await (const record of readJsonRecords(input, file)) {
    if ('reason' in record) {
      yield rejected(record.at, record.reason);
      continue;
    }
    const { value, at } = record;
    if (!isObject(value)) {
      yield rejected(at, 'expected a Shodan banner or host object');
      continue;
    }
    if (value.failed === true) continue;
    if (!Array.isArray(value.data)) {
      yield itemFromBanner(value, undefined, at, '');
      continue;
    }
    const host = hostDefaults(value, value.data.length);
    for (const [index, banner] of value.data.entries()) {
      if (isObject(banner) && banner.failed === true) continue;
      yield itemFromBanner(banner, host, at, `data[${index}]: `);
    }
  }
}

function itemFromBanner(banner: unknown, host: JsonObject | undefined, at: ReadItem['at'], where: string): ReadItem {
  try {
    return { kind: 'observation', observation: observationFromBanner(banner, host), at };
  } catch (error) {
    return rejected(at, where + reasonOf(error));
  }
}

/**
 * What a host-API object says about all its banners. Its `vulns` list is only used for a
 * single-banner host: Shodan derives it from the banners, and pinning it on every port would
 * put one service's CVEs on another.
 */
function hostDefaults(host: JsonObject, bannerCount: number): JsonObject {
  const { ip_str, ip, hostnames, asn, org, country_code, country_name, tags, last_update } = host;
  return {
    ip_str,
    ip,
    hostnames,
    asn,
    org,
    tags,
    last_update,
    location: { country_code, country_name },
    vulns: bannerCount === 1 ? host.vulns : undefined,
  };
}

export function observationFromBanner(banner: unknown, host: JsonObject = {}): Observation {
  if (!isObject(banner)) throw invalidInput('expected a banner object');
  const location = isObject(banner.location) ? banner.location : {};
  const hostLocation = isObject(host.location) ? host.location : {};
  const observation: Observation = {
    ip: bannerIp(banner) ?? bannerIp(host) ?? canonicalIp(undefined),
    port: parsePort(banner.port),
    protocol: parseTransport(banner.transport, 'tcp'),
    hostnames: normaliseHostnames(nonEmptyList(banner.hostnames) ?? asList(host.hostnames)),
    timestamp: parseTimestamp(banner.timestamp ?? host.last_update, { zonelessIsUtc: true }),
    ...identities(banner),
    cves: unique([...vulnIds(banner.vulns), ...vulnIds(host.vulns)]),
    classifications: unique([...asList(banner.tags), ...asList(host.tags)].flatMap(classificationOfTag)),
  };
  const asn = lenient(normaliseAsn, banner.asn ?? host.asn);
  if (asn) observation.asn = asn;
  const asName = optionalText(banner.org) ?? optionalText(host.org);
  if (asName) observation.asName = asName;
  const country = optionalText(location.country_name) ?? optionalText(hostLocation.country_name);
  if (country) observation.country = country;
  const countryCode = lenient(normaliseCountryCode, location.country_code ?? hostLocation.country_code);
  if (countryCode) observation.countryCode = countryCode;
  return observation;
}

function bannerIp(source: JsonObject): string | undefined {
  if (typeof source.ip_str === 'string' && source.ip_str !== '') return canonicalIp(source.ip_str);
  if (typeof source.ip === 'number') return canonicalIp(ipv4FromNumber(source.ip));
  if (typeof source.ip === 'string' && source.ip !== '') return canonicalIp(source.ip);
  return undefined;
}

/**
 * The banner's CPEs (`cpe23`, else `cpe`) give one fingerprint each, whatever their part (a lone
 * versionless application CPE takes the banner's `version`). Without a CPE, `product`/`version`.
 * A banner describes one service, so nothing in it is the host's OS guess.
 */
function identities(banner: JsonObject): Pick<Observation, 'fingerprints' | 'osCpes'> {
  const cpes = parsedCpes(banner.cpe23) ?? parsedCpes(banner.cpe) ?? [];
  const version = optionalText(banner.version);
  const fromCpes = fingerprintsOfCpes(cpes, version);
  const extras = compactFields({
    service: isObject(banner._shodan) ? banner._shodan.module : undefined,
    banner: typeof banner.data === 'string' ? truncateText(banner.data) : undefined,
    // Kept when it could not go into the CPE, so it is not lost.
    shodan_version:
      fromCpes.applications.length > 0 && fromCpes.applications.every((f) => f.version === undefined)
        ? version
        : undefined,
  });
  const product = optionalText(banner.product);
  const fingerprints = withScannerFields(
    fromCpes,
    product ? { product, ...(version ? { version } : {}) } : undefined,
    extras,
  );
  return { fingerprints, osCpes: [] };
}

/** The parsable CPEs of a list; undefined when none parse, so the other list is tried. */
function parsedCpes(list: unknown): ScannerCpe[] | undefined {
  const cpes = asList(list)
    .map(readScannerCpe)
    .filter((cpe) => cpe !== undefined);
  return cpes.length > 0 ? cpes : undefined;
}

/** Banner `vulns` is a dict keyed by CVE id; the host API has a plain list. */
function vulnIds(vulns: unknown): string[] {
  const ids = isObject(vulns) ? Object.keys(vulns) : asList(vulns);
  return normaliseCves(ids, 'lenient');
}

function classificationOfTag(tag: unknown): string[] {
  const classification = typeof tag === 'string' ? CLASSIFICATION_BY_TAG.get(tag.trim().toLowerCase()) : undefined;
  return classification ? [classification] : [];
}

function nonEmptyList(value: unknown): unknown[] | undefined {
  return Array.isArray(value) && value.length > 0 ? value : undefined;
}

/** Scanner enrichment that does not validate is dropped, not a reason to lose the banner. */
function lenient<T>(normalise: (value: unknown) => T, value: unknown): T | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  try {
    return normalise(value);
  } catch {
    return undefined;
  }
}
