/**
 * Service identity of a fingerprint list: the stable key of target-intel records and the
 * normalised form fingerprints are stored in.
 */
import { createHash } from 'node:crypto';
import { ANY, concreteWfnValue, formatCpe23, parseCpe, quoteWfnValue, type Wfn } from './cpe.js';
import { boundedMemo } from './memo.js';
import type { Fingerprint } from './observation.js';

const KEY_LENGTH = 32;
const FILLED_FIELDS = ['vendor', 'product', 'version'] as const;

/**
 * Stable key of a service identity: sha256 (hex, first 32 chars) of the sorted, de-duplicated
 * list of per-fingerprint identities. An identity is the fingerprint's CPE (parsed and re-formatted
 * as lower-case CPE 2.3) when it has a valid one, else `vendor:product:version` lower-cased and
 * trimmed. Volatile fields (banner, extrainfo, service…) never influence it. No fingerprints (or
 * none with any identity) -> '' (empty string).
 */
export function fingerprintKey(fingerprints: Fingerprint[]): string {
  const identities = new Set<string>();
  for (const fingerprint of fingerprints) {
    const identity = identityOf(fingerprint);
    if (identity !== undefined) identities.add(identity);
  }
  if (identities.size === 0) return '';
  // JSON keeps the list unambiguous whatever characters the identities hold.
  return keyOfCanonical(JSON.stringify([...identities].sort()));
}

const keyOfCanonical = boundedMemo((canonical) =>
  createHash('sha256').update(canonical).digest('hex').slice(0, KEY_LENGTH),
);

function identityOf(fingerprint: Fingerprint): string | undefined {
  const cpe = canonicalCpe(fingerprint.cpe);
  if (cpe) return cpe.formatted;
  const fields = [fingerprint.vendor, fingerprint.product, fingerprint.version].map((field) =>
    (field ?? '').trim().toLowerCase(),
  );
  return fields.every((field) => field === '') ? undefined : fields.join(':');
}

/**
 * Fills vendor/product/version from the CPE when missing (values unquoted, e.g. 2.4.49) and
 * normalises the cpe to a CPE 2.3 formatted string (2.2 URIs converted). An invalid CPE string is
 * dropped from the `cpe` field, the rest kept. Returns a new object.
 */
export function normaliseFingerprint(fp: Fingerprint): Fingerprint {
  const { cpe, ...rest } = fp;
  const parsed = canonicalCpe(cpe);
  if (!parsed) return rest;
  let wfn = parsed.wfn;
  let formatted = parsed.formatted;
  // nmap emits version-less CPEs beside the version it detected; the CPE must carry it, or two
  // versions of a product would share one identity and CPE matching would see no version.
  const version = present(fp.version);
  if (wfn.version === ANY && version !== undefined) {
    const quoted = tryQuote(version.trim());
    if (quoted !== undefined && concreteWfnValue(quoted) !== undefined) {
      wfn = { ...wfn, version: quoted };
      formatted = formatCpe23(wfn);
    }
  }
  const normalised: Fingerprint = { ...rest, cpe: formatted };
  // The CPE's own values are remembered with it; only a version filled in above needs working out.
  const shown = wfn === parsed.wfn ? parsed.shown : shownValues(wfn);
  for (const field of FILLED_FIELDS) {
    const value = present(fp[field]) ?? shown[field];
    if (value !== undefined) normalised[field] = value;
  }
  return normalised;
}

/** A version that cannot be a CPE value (e.g. it has spaces) leaves the CPE version-less. */
function tryQuote(version: string): string | undefined {
  try {
    return quoteWfnValue(version);
  } catch {
    return undefined;
  }
}

/** A CPE parsed, re-formatted, and its vendor/product/version as plain text (where concrete). */
export interface CanonicalCpe {
  wfn: Readonly<Wfn>;
  formatted: string;
  shown: Readonly<ShownValues>;
}

type ShownValues = Partial<Record<(typeof FILLED_FIELDS)[number], string>>;

/** A fingerprint's CPE parsed and re-formatted (remembered); undefined when it is missing or invalid. */
export function canonicalCpe(text: string | undefined): CanonicalCpe | undefined {
  return text === undefined ? undefined : parsedCpe(text);
}

const parsedCpe = boundedMemo((text): CanonicalCpe | undefined => {
  if (text.trim() === '') return undefined;
  try {
    const wfn = parseCpe(text.trim());
    return { wfn, formatted: formatCpe23(wfn), shown: shownValues(wfn) };
  } catch {
    return undefined;
  }
});

function shownValues(wfn: Readonly<Wfn>): ShownValues {
  const shown: ShownValues = {};
  for (const field of FILLED_FIELDS) {
    const value = concreteWfnValue(wfn[field]);
    if (value !== undefined) shown[field] = value;
  }
  return shown;
}

const present = (value: string | undefined) => (value !== undefined && value.trim() !== '' ? value : undefined);
