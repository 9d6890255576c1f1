/**
 * Knowledge is derived from the advisory store, never ingested on its own: a CVE's applicability
 * is NVD's configurations when the `nist-nvd2` feed serves a record of it with configurations,
 * otherwise its `mitre-cvelist-v5` record's CVE 5 data (CNA, then each ADP: `cpeApplicability`
 * and `affected[]` entries naming CPEs). Rejected records say nothing.
 */
import { applicabilityOfRecord } from '../../core/applicability/extract.js';
import { indexedCriteria } from '../../core/applicability/index-keys.js';
import type { CveApplicability } from '../../core/applicability/types.js';
import type { DerivedKnowledge, KnowledgeDeriver, KnowledgeSources } from '../../storage/index.js';

/**
 * Part of every stored content hash: bump it when the derivation or the index rows change, and
 * `vulnscope knowledge rebuild` re-derives every CVE (otherwise only CVEs whose records changed).
 */
export const DERIVATION_VERSION = 'k1';

const isRejected = (record: unknown): boolean => {
  const metadata = (record as { cveMetadata?: { state?: unknown } } | null)?.cveMetadata;
  return typeof metadata?.state === 'string' && metadata.state.toUpperCase() === 'REJECTED';
};

/** Which record's applicability counts for a CVE (undefined: no record says anything). */
export function applicabilityOfSources(sources: KnowledgeSources): CveApplicability | undefined {
  if (sources.nvd && !isRejected(sources.nvd.record)) {
    const nvd = applicabilityOfRecord(sources.nvd.record, 'nist-nvd2');
    if (nvd) return { ...nvd, cveId: sources.cveId };
  }
  if (sources.cve5 && !isRejected(sources.cve5.record)) {
    const cve5 = applicabilityOfRecord(sources.cve5.record, 'mitre-cvelist-v5');
    if (cve5) return { ...cve5, cveId: sources.cveId };
  }
  return undefined;
}

/**
 * A CVE's knowledge from its current records. A CVE whose records say nothing about where it
 * applies is kept with no statements and no criteria, so its content hash is remembered and a
 * rebuild does not read it again.
 */
export function deriveKnowledge(sources: KnowledgeSources): DerivedKnowledge | undefined {
  if (!sources.nvd && !sources.cve5) return undefined;
  const applicability = applicabilityOfSources(sources);
  if (!applicability) {
    const origin = sources.cve5 ? 'mitre-cvelist-v5' : 'nist-nvd2';
    return { applicability: { cveId: sources.cveId, origin, statements: [] }, criteria: [] };
  }
  return { applicability, criteria: indexedCriteria(applicability) };
}

export const KNOWLEDGE_DERIVER: KnowledgeDeriver = { version: DERIVATION_VERSION, derive: deriveKnowledge };
