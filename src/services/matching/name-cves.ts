/**
 * CPE search's `cves`: for each concrete name, the CVEs with a criterion (or CVE 5 affected entry)
 * covering it — per criterion, as NVD's cpeName search does, without evaluating AND
 * configurations; with `vulnerableOnly`, only criteria that make the name the vulnerable element.
 * Answered from the per-product structures of search/cpe-cves (one index per storage, shared by
 * every caller); a name whose part, vendor or product is not concrete is evaluated directly.
 */
import { applicabilityCoversName } from '../../core/applicability/criterion.js';
import { parseCpe } from '../../core/cpe.js';
import { CpeCveIndex } from '../../search/cpe-cves/cpe-cve-index.js';
import { type CveList, stringList } from '../../search/cpe-cves/cve-list.js';
import type { Storage } from '../../storage/index.js';

const indexes = new WeakMap<Storage, CpeCveIndex>();

/** The CPE → CVE index of a storage (created on first use). */
export function cpeCveIndexOf(storage: Storage): CpeCveIndex {
  let index = indexes.get(storage);
  if (!index) {
    index = new CpeCveIndex(storage.knowledge);
    indexes.set(storage, index);
  }
  return index;
}

export async function cvesOfNames(
  storage: Storage,
  cpes: readonly string[],
  vulnerableOnly: boolean,
): Promise<string[][]> {
  return (await cveListsOfNames(storage, cpes, vulnerableOnly)).map((list) => list.ids());
}

/** The same answers as lists that write their JSON without a string per CVE (for large pages). */
export async function cveListsOfNames(
  storage: Storage,
  cpes: readonly string[],
  vulnerableOnly: boolean,
): Promise<CveList[]> {
  const indexed = await cpeCveIndexOf(storage).cveListsOfNames(cpes, vulnerableOnly);
  const rest = cpes.filter((_, i) => indexed[i] === undefined);
  if (rest.length === 0) return indexed as CveList[];
  const evaluated = await cvesOfNamesByEvaluation(storage, rest, vulnerableOnly);
  let next = 0;
  return indexed.map((list) => list ?? stringList(evaluated[next++]!));
}

/**
 * The same answer by evaluating every candidate criterion of each name (the criteria index, one
 * query per product): the reference the indexed answer is tested against.
 */
export async function cvesOfNamesByEvaluation(
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
