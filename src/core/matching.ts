import type { CveEvidence } from './applicability/types.js';
import type { HostWrite } from './host-record.js';

/**
 * The version of the rules that decide a record's knowledge CVEs; raised whenever a change to
 * them changes what stored records should hold, so servers re-map the records matched before.
 * 2: the host's OS guesses no longer add CVEs; short versions are families.
 */
export const MATCHING_RULES_VERSION = 2;

/** What CVE matching reads of a record: its fingerprints' CPEs and the host's OS CPEs (AND configurations need the platform). */
export interface MatchContext {
  fingerprintCpes: string[];
  osCpes: string[];
}

export interface ContextMatch {
  /** Knowledge-confirmed CVEs, sorted. */
  confirmed: string[];
  /** Every relation found, confirmed or not. */
  evidence: CveEvidence[];
}

/** Maps records' fingerprint contexts to CVEs (the knowledge matcher of the services layer is one). */
export interface CveMatcher {
  matchAll(contexts: MatchContext[]): Promise<ContextMatch[]>;
}

export function contextOf(record: Pick<HostWrite, 'fingerprints' | 'osCpes'>): MatchContext {
  const fingerprintCpes: string[] = [];
  for (const fp of record.fingerprints) if (fp.cpe) fingerprintCpes.push(fp.cpe);
  return { fingerprintCpes, osCpes: record.osCpes };
}
