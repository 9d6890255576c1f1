/**
 * Vulnscope observation NDJSON, our own format: one JSON object per line (a JSON array of the
 * same objects also reads). Specification: docs/observation-format.md.
 */
import { invalidInput } from '../../core/errors.js';
import type { Fingerprint, Observation, ReadItem } from '../../core/observation.js';
import { identityOfCpe, strictCpe23 } from './fingerprint-cpe.js';
import { readJsonRecords } from './json-records.js';
import { parseTimestamp } from './timestamps.js';
import { rejected, reasonOf } from './types.js';
import {
  asList,
  canonicalIp,
  extraFieldText,
  isObject,
  normaliseAsn,
  normaliseClassifications,
  normaliseCountryCode,
  normaliseCves,
  normaliseHostnames,
  optionalText,
  parsePort,
  parseTransport,
  unique,
  type JsonObject,
} from './values.js';

export async function* readVulnscopeNdjson(input: NodeJS.ReadableStream, file: string): AsyncGenerator<ReadItem> {
  for await (const record of readJsonRecords(input, file)) {
    if ('reason' in record) {
      yield rejected(record.at, record.reason);
      continue;
    }
    try {
      yield { kind: 'observation', observation: observationFromRecord(record.value), at: record.at };
    } catch (error) {
      yield rejected(record.at, reasonOf(error));
    }
  }
}

/** Validates and normalises one Vulnscope observation object; throws with the reason. */
export function observationFromRecord(value: unknown): Observation {
  if (!isObject(value)) throw invalidInput(`expected a JSON object, got ${describe(value)}`);
  if ('__NmapReport__' in value) {
    throw invalidInput(
      'this is a python-libnmap JSON report, not Vulnscope observations; import the nmap XML (-oX) instead',
    );
  }
  const observation: Observation = {
    ip: canonicalIp(value.ip),
    port: parsePort(value.port),
    protocol: transportOf(value),
    hostnames: hostnamesOf(value),
    timestamp: parseTimestamp(value.timestamp),
    fingerprints: listField(value, 'fingerprints').map(fingerprintOf).filter(hasFields),
    osCpes: unique(listField(value, 'os_cpes').map((cpe, i) => cpeOf(cpe, `os_cpes[${i}]`))),
    cves: normaliseCves(listField(value, 'cves'), 'strict'),
    classifications: normaliseClassifications(listField(value, 'classifications')),
  };
  if (value.asn !== undefined && value.asn !== null) observation.asn = normaliseAsn(value.asn);
  const asName = optionalText(value.as_name);
  if (asName) observation.asName = asName;
  const country = optionalText(value.country);
  if (country) observation.country = country;
  if (value.country_code !== undefined && value.country_code !== null) {
    observation.countryCode = normaliseCountryCode(value.country_code);
  }
  return observation;
}

function hostnamesOf(value: JsonObject): string[] {
  const names = [...asList(value.hostname), ...listField(value, 'hostnames')];
  const bad = names.find((name) => typeof name !== 'string');
  if (bad !== undefined) throw invalidInput(`hostnames must be strings, got ${describe(bad)}`);
  return normaliseHostnames(names);
}

/** `protocol` and its alias `transport`; tcp when neither is given. */
function transportOf(value: JsonObject): Observation['protocol'] {
  const protocol = value.protocol ?? value.transport;
  const transport = parseTransport(protocol, 'tcp');
  if (value.protocol != null && value.transport != null && parseTransport(value.transport) !== transport) {
    throw invalidInput(`protocol "${value.protocol}" and transport "${value.transport}" disagree`);
  }
  return transport;
}

function listField(value: JsonObject, name: string): unknown[] {
  const field = value[name];
  if (field === undefined || field === null) return [];
  if (!Array.isArray(field)) throw invalidInput(`${name} must be an array, got ${describe(field)}`);
  return field;
}

/**
 * `{cpe, vendor, product, version, …extras}`; the CPE is validated and normalised to 2.3, and
 * vendor/product/version not given explicitly are taken from it.
 */
function fingerprintOf(value: unknown, index: number): Fingerprint {
  if (!isObject(value)) throw invalidInput(`fingerprints[${index}] must be an object, got ${describe(value)}`);
  const fingerprint: Fingerprint = {};
  const cpeText = extraFieldText(value.cpe);
  if (cpeText !== undefined) {
    Object.assign(fingerprint, cpeIdentityOf(cpeText, `fingerprints[${index}].cpe`));
  }
  for (const [key, field] of Object.entries(value)) {
    if (key === 'cpe') continue;
    const text = extraFieldText(field);
    if (text !== undefined) fingerprint[key] = text;
  }
  return fingerprint;
}

const hasFields = (fingerprint: Fingerprint) => Object.keys(fingerprint).length > 0;

function cpeIdentityOf(text: string, field: string): Fingerprint {
  try {
    return identityOfCpe(text);
  } catch (error) {
    throw invalidInput(`${field}: ${reasonOf(error)}`);
  }
}

function cpeOf(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalidInput(`${field} must be a CPE string, got ${describe(value)}`);
  try {
    return strictCpe23(value);
  } catch (error) {
    throw invalidInput(`${field}: ${reasonOf(error)}`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 40))}` : typeof value;
}
