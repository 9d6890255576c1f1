/**
 * The reference evaluation of a purl: each matched record read from storage and its affected
 * entries parsed again. `lookupPurl` answers from the index instead; tests and the benchmark
 * hold it to this answer.
 */
import { packageFinding, sortCveIds } from '../../../core/advisory/package-finding.js';
import type { AdvisoryIndex } from '../../../search/advisories/advisory-index.js';
import { VULNERABILITIES_MAX, type PurlAnswer } from './lookup.js';
import type { PurlQuestion } from './parse.js';

const decoder = new TextDecoder();

export async function lookupPurlByRecords(
  index: AdvisoryIndex,
  feeds: readonly string[],
  question: PurlQuestion,
): Promise<PurlAnswer> {
  const found = await index.search(
    feeds,
    { packageKey: question.key, version: question.version },
    { mode: 'offset', offset: 0, limit: VULNERABILITIES_MAX },
  );
  const cves = new Set<string>();
  const vulnerabilities = new Map<string, { detection: string; fixed_version?: string }>();
  for (const hit of found.records) {
    const finding = packageFinding(JSON.parse(decoder.decode(hit.json)), question.key, question.version);
    for (const cve of finding.cves) cves.add(cve);
    const known = vulnerabilities.get(hit.recordId);
    if (known?.fixed_version !== undefined) continue;
    vulnerabilities.set(hit.recordId, {
      detection: hit.recordId,
      ...(finding.fixedVersion !== undefined ? { fixed_version: finding.fixedVersion } : {}),
    });
  }
  const total = found.filtered - (found.records.length - vulnerabilities.size);
  return { cves: sortCveIds(cves), vulnerabilities: [...vulnerabilities.values()], total };
}
