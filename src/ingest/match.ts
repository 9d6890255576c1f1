import type { HostWrite } from '../storage/hosts.js';
import type { ContextMatch, MatchContext } from './knowledge/matcher.js';

/**
 * The pipeline stage that maps records' fingerprints to CVEs (see knowledge/matcher.ts). A
 * record's `cve` is the scanner-reported CVEs united with the knowledge-confirmed ones.
 */
export interface CveMatcher {
  matchAll(contexts: MatchContext[]): Promise<ContextMatch[]>;
}

export function contextOf(record: Pick<HostWrite, 'fingerprints' | 'osCpes'>): MatchContext {
  const fingerprintCpes: string[] = [];
  for (const fp of record.fingerprints) if (fp.cpe) fingerprintCpes.push(fp.cpe);
  return { fingerprintCpes, osCpes: record.osCpes };
}

/** Sorted and unique; most records have no confirmed CVEs, and then the scanner's list is kept as it is. */
const union = (a: string[], b: string[]) => (b.length === 0 ? a : [...new Set([...a, ...b])].sort());

/** Sets each write's knowledge-confirmed CVEs and its `cves` (scanner ∪ confirmed). */
export async function applyKnowledge(writes: HostWrite[], matcher: CveMatcher): Promise<void> {
  const matches = await matcher.matchAll(writes.map(contextOf));
  writes.forEach((write, i) => {
    write.knowledgeCves = matches[i].confirmed;
    write.cves = union(write.scannerCves, write.knowledgeCves);
  });
}
