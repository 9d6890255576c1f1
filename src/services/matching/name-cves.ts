/**
 * CPE search's `cves`: for each concrete name, the CVEs with a criterion (or CVE 5 affected entry)
 * covering it — per criterion, as NVD's cpeName search does, without evaluating AND
 * configurations; with `vulnerableOnly`, only criteria that make the name the vulnerable element.
 * Candidates come from the criteria index in one query per product on the page.
 */
import { applicabilityCoversName } from '../../core/applicability/criterion.js';
import { parseCpe } from '../../core/cpe.js';
import type { Storage } from '../../storage/index.js';

export async function cvesOfNames(
  storage: Storage,
  cpes: readonly string[],
  vulnerableOnly: boolean,
): Promise<string[][]> {
  const { names, applicability } = await storage.knowledge.criteriaForNames(cpes);
  return names.map(({ cpe, criteria }) => {
    const wfn = parseCpe(cpe);
    const cveIds = [...new Set(criteria.map((criterion) => criterion.cveId))].sort();
    return cveIds.filter((cveId) => {
      const app = applicability.get(cveId);
      return app !== undefined && applicabilityCoversName(app, wfn, { vulnerableOnly });
    });
  });
}
