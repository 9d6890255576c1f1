/** Answers purls from the advisory index: the records whose affected entries hold the package version. */
import { sortCveIds } from '../../../core/advisory/package-finding.js';
import { badRequest } from '../../../core/errors.js';
import type { AdvisoryIndex } from '../../../search/advisories/advisory-index.js';
import type { PurlQuestion } from './parse.js';

/** Advisories listed per purl; `total_documents` still counts them all. */
export const VULNERABILITIES_MAX = 1_000;
/** Advisory records one request may read, over all its purls. */
export const RECORDS_PER_REQUEST_MAX = 10_000;

export interface PurlAnswer {
  cves: string[];
  vulnerabilities: Array<{ detection: string; fixed_version?: string }>;
  total: number;
}

/** Counts the records a request reads, refusing past the bound. */
export class RecordBudget {
  private read = 0;

  spend(records: number): void {
    this.read += records;
    if (this.read > RECORDS_PER_REQUEST_MAX) {
      throw badRequest(
        `the purls of this request match more than ${RECORDS_PER_REQUEST_MAX.toLocaleString('en')} advisories; send fewer purls per request`,
      );
    }
  }
}

export async function lookupPurl(
  index: AdvisoryIndex,
  feeds: readonly string[],
  question: PurlQuestion,
  budget: RecordBudget,
): Promise<PurlAnswer> {
  const found = await index.packageFindings(feeds, question.key, question.version, VULNERABILITIES_MAX);
  budget.spend(found.records.length);
  const cves = new Set<string>();
  const vulnerabilities = new Map<string, { detection: string; fixed_version?: string }>();
  for (const { recordId, finding } of found.records) {
    for (const cve of finding.cves) cves.add(cve);
    // The same advisory in two feeds is one vulnerability; a fixed version from either is kept.
    const known = vulnerabilities.get(recordId);
    if (known?.fixed_version !== undefined) continue;
    vulnerabilities.set(recordId, {
      detection: recordId,
      ...(finding.fixedVersion !== undefined ? { fixed_version: finding.fixedVersion } : {}),
    });
  }
  // Duplicates across feeds were read but are one vulnerability each.
  const total = found.filtered - (found.records.length - vulnerabilities.size);
  return { cves: sortCveIds(cves), vulnerabilities: [...vulnerabilities.values()], total };
}
