import type { HostWrite } from '../storage/hosts.js';
import type { ContextMatch, MatchContext } from './knowledge/matcher.js';

/**
 * The pipeline stage that maps records' fingerprints to CVEs (see knowledge/matcher.ts). A
 * record's `cve` is the scanner-reported CVEs united with the knowledge-confirmed ones.
 */
export interface CveMatcher {
  matchAll(contexts: MatchContext[]): Promise<ContextMatch[]>;
}

export const contextOf = (record: Pick<HostWrite, 'fingerprints' | 'osCpes'>): MatchContext => ({
  fingerprintCpes: record.fingerprints.flatMap((fp) => (fp.cpe ? [fp.cpe] : [])),
  osCpes: record.osCpes,
});

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort();

/** Sets each write's knowledge-confirmed CVEs and its `cves` (scanner ∪ confirmed). */
export async function applyKnowledge(writes: HostWrite[], matcher: CveMatcher): Promise<void> {
  const matches = await matcher.matchAll(writes.map(contextOf));
  writes.forEach((write, i) => {
    write.knowledgeCves = matches[i].confirmed;
    write.cves = union(write.scannerCves, write.knowledgeCves);
  });
}
