import type { CveEvidence } from '../../../core/applicability/types.js';
import { contextOf, type CveMatcher } from '../../../core/matching.js';
import type { HostRecord } from '../../../core/host-record.js';

/** One `cve_evidence` entry as served (snake_case like the rest of the record). */
export interface EvidenceOut {
  cve: string;
  source: string;
  kind: string;
  confirmed: boolean;
  confidence: string;
  cpe?: string;
  alias?: string;
  criterion?: string;
  range?: string;
  vulnerable?: boolean;
  configuration?: string;
}

function fromKnowledge(e: CveEvidence): EvidenceOut {
  return {
    cve: e.cve,
    source: e.source,
    kind: e.kind,
    confirmed: e.confirmed,
    confidence: e.confidence,
    cpe: e.cpe,
    ...(e.alias ? { alias: e.alias } : {}),
    criterion: e.criterion,
    ...(e.range ? { range: e.range } : {}),
    vulnerable: e.vulnerable,
    configuration: e.configuration,
  };
}

/** A scanner's own CVE claim: kept as reported, not confirmed by knowledge. */
const fromScanner = (cve: string): EvidenceOut => ({
  cve,
  source: 'scanner',
  kind: 'scanner_reported',
  confirmed: false,
  confidence: 'medium',
});

/**
 * Why each record carries (or might carry) each CVE: the knowledge matcher's evidence for the
 * record's CPEs as knowledge stands now, then the scanner-reported CVEs. Ordered by CVE.
 */
export async function explainRecords(records: HostRecord[], matcher: CveMatcher): Promise<EvidenceOut[][]> {
  const matches = await matcher.matchAll(records.map(contextOf));
  return records.map((record, i) => {
    const out = [...matches[i]!.evidence.map(fromKnowledge), ...record.scannerCves.map(fromScanner)]; // one match per record
    return out.sort((a, b) => (a.cve < b.cve ? -1 : a.cve > b.cve ? 1 : 0));
  });
}
