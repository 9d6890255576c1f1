import type { CveEvidence } from '../../../core/applicability/types.js';
import { type ContextMatch, contextOf, type CveMatcher } from '../../../core/matching.js';
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

const byCve = (a: EvidenceOut, b: EvidenceOut) => (a.cve < b.cve ? -1 : a.cve > b.cve ? 1 : 0);

const knowledgeEvidence = (match: ContextMatch): EvidenceOut[] => match.evidence.map(fromKnowledge);

/** Per cached context result, its served evidence as JSON bytes: pages of CVE-dense records are mostly this. */
const encoded = new WeakMap<ContextMatch, Buffer>();

function knowledgeEvidenceJson(match: ContextMatch): Buffer {
  let bytes = encoded.get(match);
  if (!bytes) {
    bytes = Buffer.from(JSON.stringify(knowledgeEvidence(match).sort(byCve)));
    encoded.set(match, bytes);
  }
  return bytes;
}

/**
 * Why each record carries (or might carry) each CVE, as JSON bytes per record: the knowledge
 * matcher's evidence for the record's CPEs as knowledge stands now, then the scanner-reported
 * CVEs, ordered by CVE. A context's list is serialised once and shared by every page and record
 * that has it (a page of 100 CVE-dense records carries ~20 MiB of it).
 */
export async function explainRecordsJson(records: HostRecord[], matcher: CveMatcher): Promise<Buffer[]> {
  const matches = await matcher.matchAll(records.map(contextOf));
  return records.map((record, i) => {
    const match = matches[i]!; // one match per record
    if (record.scannerCves.length === 0) return knowledgeEvidenceJson(match);
    const evidence = [...knowledgeEvidence(match), ...record.scannerCves.map(fromScanner)].sort(byCve);
    return Buffer.from(JSON.stringify(evidence));
  });
}
