/** The pipeline stage that sets each record's knowledge-confirmed CVEs; its `cve` is the scanner's CVEs united with those. */
import type { HostWrite } from '../core/host-record.js';
import { contextOf, type CveMatcher } from '../core/matching.js';

/** Sorted and unique; most records have no confirmed CVEs, and then the scanner's list is kept as it is. */
const union = (a: string[], b: string[]) => (b.length === 0 ? a : [...new Set([...a, ...b])].sort());

/** Sets each write's knowledge-confirmed CVEs and its `cves` (scanner ∪ confirmed). */
export async function applyKnowledge(writes: HostWrite[], matcher: CveMatcher): Promise<void> {
  const matches = await matcher.matchAll(writes.map(contextOf));
  writes.forEach((write, i) => {
    write.knowledgeCves = matches[i]!.confirmed; // one match per context, in order
    write.cves = union(write.scannerCves, write.knowledgeCves);
  });
}
