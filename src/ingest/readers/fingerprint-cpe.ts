/**
 * Scanner CPEs (nmap's 2.2 URIs, Shodan's possibly truncated 2.3 strings) as CPE 2.3 names and
 * fingerprint identities. Conversion always goes through the WFN (src/core/cpe.ts).
 */
import { concreteWfnValue, formatCpe23, parseCpe, parseCpeQuery, quoteWfnValue, type Wfn } from '../../core/cpe.js';
import { canonicalCpe } from '../../core/fingerprint.js';
import { boundedMemo } from '../../core/memo.js';
import type { Fingerprint } from '../../core/observation.js';

export interface ScannerCpe {
  wfn: Wfn;
  /** CPE 2.3 formatted string. */
  cpe: string;
}

/**
 * Parses a CPE URI or 2.3 string; a 2.3 string with missing trailing attributes (Shodan's
 * `cpe:2.3:a:embedthis:goahead`) is padded with ANY. Undefined when it is not a valid CPE.
 */
export function readScannerCpe(text: unknown): ScannerCpe | undefined {
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  return parseScannerCpe(text);
}

/** Parsed CPEs by their text (undefined: not a CPE). Entries are shared, never mutated. */
const parseScannerCpe = boundedMemo((text): ScannerCpe | undefined => {
  try {
    const wfn = parseCpeQuery(text.trim());
    return { wfn, cpe: formatCpe23(wfn) };
  } catch {
    return undefined;
  }
});

/** A CPE as a normalised 2.3 string; throws (invalid input) when it is not a complete CPE. */
export function strictCpe23(text: string): string {
  const parsed = canonicalCpe(text);
  if (parsed) return parsed.formatted;
  // Not remembered, so parse again for the reason (invalid CPEs are rare).
  return formatCpe23(parseCpe(text.trim()));
}

/**
 * The identity of a CPE (URI or 2.3): its normalised 2.3 string plus vendor/product/version (see
 * {@link fingerprintFromCpe}); throws (invalid input) when it is not a complete CPE. One lookup by
 * the text as given; shared, never mutated.
 */
export const identityOfCpe = boundedMemo((text): Fingerprint => {
  const parsed = canonicalCpe(text);
  if (!parsed) throw invalidCpe(text);
  return fingerprintFromCpe({ wfn: parsed.wfn, cpe: parsed.formatted });
});

function invalidCpe(text: string): Error {
  try {
    strictCpe23(text);
  } catch (error) {
    return error as Error;
  }
  return new TypeError(`not a CPE: ${text}`);
}

export const isApplication = (cpe: ScannerCpe) => cpe.wfn.part === 'a';

/** Fingerprint identity from a CPE: the 2.3 name plus unquoted vendor/product/version when set. */
export function fingerprintFromCpe({ wfn, cpe }: ScannerCpe): Fingerprint {
  const fingerprint: Fingerprint = { cpe };
  for (const attribute of ['vendor', 'product', 'version'] as const) {
    const value = concreteWfnValue(wfn[attribute]);
    if (value !== undefined) fingerprint[attribute] = value;
  }
  return fingerprint;
}

/**
 * One fingerprint per distinct CPE the scanner reported for the service, whatever its part (a
 * FortiGate's `o:fortinet:fortios` on 443 is the service's own identity), applications first.
 * Scanners often emit a version-less application CPE beside the version they detected
 * (`cpe:/a:igor_sysoev:nginx` + "1.18.0"): when that CPE is the only application one, the version
 * goes into it, so the identity and CVE matching see it. A version that cannot be a CPE value
 * (spaces, non-ASCII) is left out rather than disagree with the CPE.
 */
export function fingerprintsOfCpes(cpes: ScannerCpe[], detectedVersion?: string): ServiceCpeFingerprints {
  const seen = new Set<string>();
  const distinct = cpes.filter((c) => !seen.has(c.cpe) && seen.add(c.cpe));
  const applications = distinct.filter(isApplication);
  const platforms = distinct.filter((c) => !isApplication(c)).map(fingerprintFromCpe);
  const only = applications.length === 1 ? applications[0] : undefined;
  if (only && detectedVersion && !hasVersion(only)) {
    const versioned = withVersion(only, detectedVersion);
    if (versioned) return { applications: [fingerprintFromCpe(versioned)], platforms };
  }
  return { applications: applications.map(fingerprintFromCpe), platforms };
}

export interface ServiceCpeFingerprints {
  applications: Fingerprint[];
  /** OS and hardware CPEs the service reported (a device's firmware, an appliance). */
  platforms: Fingerprint[];
}

/**
 * A service's fingerprints: its application CPEs, else the scanner's product text (`product`),
 * then its OS/hardware CPEs; the scanner's own fields (`extras`) ride on the first.
 */
export function withScannerFields(
  { applications, platforms }: ServiceCpeFingerprints,
  product: Fingerprint | undefined,
  extras: Record<string, string>,
): Fingerprint[] {
  const identities = applications.length > 0 ? [...applications] : product ? [product] : [];
  identities.push(...platforms);
  if (identities.length === 0) return Object.keys(extras).length > 0 ? [extras] : [];
  identities[0] = { ...identities[0], ...extras };
  return identities;
}

const hasVersion = (cpe: ScannerCpe) => concreteWfnValue(cpe.wfn.version) !== undefined;

/** The same CPE with `version` filled in; undefined when the version cannot be a WFN value. */
function withVersion(cpe: ScannerCpe, version: string): ScannerCpe | undefined {
  try {
    const wfn: Wfn = { ...cpe.wfn, version: quoteWfnValue(version.trim()) };
    return { wfn, cpe: formatCpe23(wfn) };
  } catch {
    return undefined;
  }
}
