import { readFile, stat } from 'node:fs/promises';
import { Reader, type Response } from 'mmdb-lib';
import { countryName } from '../../core/countries.js';
import { invalidInput } from '../../core/errors.js';
import { parseIp } from '../../core/ip.js';
import { parseAsn, readAsDomains } from './as-domains.js';

/** Enrichment for one IP; a field is present only when known (never an empty string). */
export interface GeoInfo {
  /** `AS15169` */
  asn?: string;
  as_name?: string;
  as_domain?: string;
  country?: string;
  /** ISO 3166-1 alpha-2, upper-case */
  country_code?: string;
}

export interface GeoEnricher {
  /** Throws invalid input when `ip` is not an IP address. */
  lookup(ip: string): GeoInfo;
  close(): void;
}

export interface GeoEnricherOptions {
  /** GeoLite2-ASN or ip-location-db ASN database (IPinfo Lite works too). */
  asnMmdb?: string;
  /** GeoLite2-Country/City, or ip-location-db country database (flat `country_code`). */
  countryMmdb?: string;
  /** `asn,domain` CSV supplying as_domain. */
  asDomainCsv?: string;
  /** Bad CSV lines, with file and line; defaults to ignoring them. */
  onWarning?: (message: string) => void;
}

type MmdbRecord = Record<string, unknown>;
type AsPart = Pick<GeoInfo, 'asn' | 'as_name' | 'as_domain'>;
type CountryPart = Pick<GeoInfo, 'country' | 'country_code'>;

/**
 * Loads the configured files into memory once; lookups are then synchronous. Each database is
 * read for both parts (an IPinfo Lite file has AS and country in one record), but the ASN
 * database wins for AS fields and the country database for country fields.
 */
export async function openGeoEnricher(options: GeoEnricherOptions): Promise<GeoEnricher> {
  let asnDb = options.asnMmdb === undefined ? undefined : await openMmdb('asnMmdb', options.asnMmdb);
  let countryDb = options.countryMmdb === undefined ? undefined : await openMmdb('countryMmdb', options.countryMmdb);
  let domains = new Map<number, string>();
  if (options.asDomainCsv !== undefined) {
    await requireFile('asDomainCsv', options.asDomainCsv);
    domains = await readAsDomains(options.asDomainCsv, options.onWarning ?? (() => {}));
  }
  let closed = false;

  return {
    lookup(ip) {
      if (closed) throw new Error('geo enricher used after close()');
      const address = parseIp(ip);
      const asnRecord = asnDb && find(asnDb, address.text, address.version);
      const countryRecord = countryDb && find(countryDb, address.text, address.version);
      const asPart = pickAsPart(asnRecord) ?? pickAsPart(countryRecord) ?? {};
      const countryPart = pickCountryPart(countryRecord) ?? pickCountryPart(asnRecord) ?? {};
      const asNumber = asPart.asn === undefined ? undefined : parseAsn(asPart.asn);
      const domain = asNumber === undefined ? undefined : domains.get(asNumber);
      return withoutEmpty({ ...asPart, ...(domain ? { as_domain: domain } : {}), ...countryPart });
    },
    close() {
      closed = true;
      asnDb = countryDb = undefined;
      domains = new Map();
    },
  };
}

async function openMmdb(option: string, path: string): Promise<Reader<Response>> {
  await requireFile(option, path);
  const buffer = await readFile(path);
  try {
    return new Reader<Response>(buffer);
  } catch (error) {
    throw invalidInput(`${option}: ${path} is not a MaxMind DB file (${(error as Error).message})`);
  }
}

async function requireFile(option: string, path: string): Promise<void> {
  let isFile: boolean;
  try {
    isFile = (await stat(path)).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw invalidInput(`${option}: file not found: ${path}`);
    throw invalidInput(`${option}: cannot read ${path} (${code ?? (error as Error).message})`);
  }
  if (!isFile) throw invalidInput(`${option}: not a file: ${path}`);
}

function find(db: Reader<Response>, ip: string, version: 4 | 6): MmdbRecord | undefined {
  // An IPv4-only tree would read an IPv6 address's first 32 bits as an IPv4 address.
  if (version === 6 && db.metadata.ipVersion === 4) return undefined;
  const record = db.get(ip) as unknown;
  return isObject(record) ? record : undefined;
}

/** GeoLite2 / ip-location-db `autonomous_system_*`, or IPinfo's `asn`/`as_name`/`as_domain`. */
function pickAsPart(record: MmdbRecord | undefined): AsPart | undefined {
  if (!record) return undefined;
  const number = asNumber(record.autonomous_system_number ?? record.asn);
  // AS 0 is reserved: data sets use it for "not announced", which is no AS at all.
  if (number === undefined || number === 0) return undefined;
  return {
    asn: `AS${number}`,
    as_name: text(record.autonomous_system_organization) ?? text(record.as_name),
    as_domain: text(record.as_domain)?.toLowerCase(),
  };
}

/**
 * GeoLite2's `country` (or, when absent, `registered_country`) map with `iso_code` and
 * `names.en`; or ip-location-db's flat `country_code` (IPinfo adds a flat `country` name).
 */
function pickCountryPart(record: MmdbRecord | undefined): CountryPart | undefined {
  if (!record) return undefined;
  const place = [record.country, record.registered_country].find(isObject);
  const code = (text(place?.iso_code) ?? text(record.country_code))?.toUpperCase();
  const names = isObject(place?.names) ? place.names : undefined;
  const name = text(names?.en) ?? (place ? undefined : text(record.country));
  if (code === undefined && name === undefined) return undefined;
  return { country_code: code, country: name ?? (code === undefined ? undefined : countryName(code)) };
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return parseAsn(value);
  return undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function isObject(value: unknown): value is MmdbRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutEmpty(info: GeoInfo): GeoInfo {
  return Object.fromEntries(Object.entries(info).filter(([, value]) => value !== undefined)) as GeoInfo;
}
