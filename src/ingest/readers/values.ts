/**
 * Field rules shared by every reader: what a valid ip, port, transport, hostname, CVE id,
 * classification, ASN or country code is, and how extra fingerprint fields become strings.
 * Functions throw invalid input naming the value; readers turn that into a rejection.
 */
import { normaliseClassification } from '../../core/classification.js';
import { invalidInput } from '../../core/errors.js';
import { parseIp } from '../../core/ip.js';
import type { Transport } from '../../core/observation.js';

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
const PORT_TEXT = /^\d{1,5}$/;

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/** Canonical IP text (compressed IPv6, dotted IPv4). */
export function canonicalIp(value: unknown): string {
  if (value === undefined || value === null || value === '') throw invalidInput('missing ip');
  if (typeof value !== 'string') throw invalidInput(`invalid ip ${JSON.stringify(value)}: expected a string`);
  try {
    return parseIp(value.trim()).text;
  } catch {
    throw invalidInput(`invalid ip "${value}"`);
  }
}

/** Shodan's numeric `ip` (an unsigned 32-bit IPv4 address) as dotted text. */
export function ipv4FromNumber(value: number): string {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw invalidInput(`invalid ip ${value}: expected an unsigned 32-bit integer`);
  }
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}

/** An integer port 1–65535 given as a number or a string of digits. */
export function parsePort(value: unknown): number {
  if (value === undefined || value === null || value === '') throw invalidInput('missing port');
  const port =
    typeof value === 'number' ? value : typeof value === 'string' && PORT_TEXT.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(port)) throw invalidInput(`invalid port ${JSON.stringify(value)}: expected an integer`);
  if (port < 1 || port > 65535) throw invalidInput(`port ${port} out of range 1–65535`);
  return port;
}

/** `tcp` or `udp` in any case; `fallback` applies when the input has no transport at all. */
export function parseTransport(value: unknown, fallback?: Transport): Transport {
  if ((value === undefined || value === null || value === '') && fallback) return fallback;
  if (value === undefined || value === null || value === '') throw invalidInput('missing transport');
  const transport = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (transport === 'tcp' || transport === 'udp') return transport;
  throw invalidInput(`unknown transport ${JSON.stringify(value)}: expected tcp or udp`);
}

/** Lower-cased, trimmed, without a trailing root dot, empty ones dropped, first occurrence kept. */
export function normaliseHostnames(values: readonly unknown[]): string[] {
  const names = values
    .filter((value): value is string => typeof value === 'string')
    .map((value) => value.trim().toLowerCase().replace(/\.$/, ''))
    .filter((value) => value !== '');
  return unique(names);
}

/** Upper-cased, deduplicated CVE ids. Strict mode rejects a malformed id; lenient mode skips it. */
export function normaliseCves(values: readonly unknown[], mode: 'strict' | 'lenient'): string[] {
  const ids: string[] = [];
  for (const value of values) {
    const id = typeof value === 'string' ? value.trim().toUpperCase() : '';
    if (CVE_ID.test(id)) ids.push(id);
    else if (mode === 'strict') {
      throw invalidInput(`invalid CVE id ${JSON.stringify(value)}: expected CVE-YYYY-NNNN`);
    }
  }
  return unique(ids);
}

/** Every CVE id mentioned in free text (script output), upper-cased and deduplicated. */
export function cvesInText(text: string): string[] {
  return unique([...text.matchAll(/\bCVE-\d{4}-\d{4,}\b/gi)].map((m) => m[0].toUpperCase()));
}

/** Validated classification values (`type[:product]`); an unknown type throws. */
export function normaliseClassifications(values: readonly unknown[]): string[] {
  return unique(
    values.map((value) => {
      if (typeof value !== 'string') {
        throw invalidInput(`invalid classification ${JSON.stringify(value)}: expected a string`);
      }
      return normaliseClassification(value);
    }),
  );
}

/** `AS15169` from `AS15169`, `as15169`, `15169` or the number 15169. */
export function normaliseAsn(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const match = /^(?:AS)?(\d{1,10})$/i.exec(text);
  const asn = match ? Number(match[1]) : NaN;
  if (!Number.isInteger(asn) || asn > 0xffffffff) {
    throw invalidInput(`invalid asn ${JSON.stringify(value)}: expected AS followed by a number`);
  }
  return `AS${asn}`;
}

/** ISO 3166-1 alpha-2 code, upper-cased. */
export function normaliseCountryCode(value: unknown): string {
  if (typeof value === 'string' && /^[A-Za-z]{2}$/.test(value.trim())) return value.trim().toUpperCase();
  throw invalidInput(`invalid country_code ${JSON.stringify(value)}: expected two letters`);
}

/** A non-empty trimmed string, or undefined. */
export function optionalText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return text === '' ? undefined : text;
}

/**
 * An extra fingerprint field as a string: numbers and booleans are stringified, objects and
 * arrays serialised as JSON; null, empty strings and empty objects/arrays are dropped.
 */
export function extraFieldText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? undefined : JSON.stringify(value);
  if (isObject(value)) return Object.keys(value).length === 0 ? undefined : JSON.stringify(value);
  return undefined;
}

/** Keeps only the fields that have a string value after {@link extraFieldText}. */
export function compactFields(fields: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    const text = extraFieldText(value);
    if (text !== undefined) out[key] = text;
  }
  return out;
}

export const BANNER_LIMIT = 1024;

/** Cuts banner text to `limit` UTF-16 units without splitting a surrogate pair. */
export function truncateText(text: string, limit = BANNER_LIMIT): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** A value that may be one item or a list, as a list (absent → empty). */
export function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
