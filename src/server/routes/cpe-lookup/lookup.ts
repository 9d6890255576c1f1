import { cpeMatches, parseCpe } from '../../../core/cpe.js';
import { badRequest } from '../../../core/errors.js';
import type { CpeNameIndex } from '../../../search/cpe-names/index.js';
import { cpeCveIndexOf, cvesOfNamesByEvaluation } from '../../../services/matching/name-cves.js';
import type { Storage } from '../../../storage/index.js';
import type { CpeLookup } from './query.js';

/** Names one lookup may unite; as many as CPE search can page through. */
export const MAX_NAMES = 10_000;
const PAGE = 1_000;

/** The CPE names of the index the lookup selects: by part, vendor, product and version, then by the other attributes. */
async function namesOf(names: CpeNameIndex, lookup: CpeLookup, maxNames: number): Promise<string[]> {
  const selected: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await names.search({ ...lookup.names, order: 'asc', offset, limit: PAGE });
    if (page.total > maxNames)
      throw badRequest(
        `parameter "cpe": "${lookup.cpe}" matches ${page.total} CPE names, more than the ${maxNames} one lookup unites; name a version (a trailing * is a prefix) or the vendor and product`,
      );
    for (const name of page.names)
      if (!lookup.filterExtras || cpeMatches(lookup.wfn, parseCpe(name.cpe))) selected.push(name.cpe);
    if (offset + PAGE >= page.total) return selected;
  }
}

/**
 * The CVE ids (ascending) of a lookup: those covering the CPE itself when it is a name, and those
 * of every CPE name of the index it matches, as CPE search lists them per name.
 */
export async function lookupCpe(
  storage: Storage,
  names: CpeNameIndex,
  lookup: CpeLookup,
  maxNames = MAX_NAMES,
): Promise<string[]> {
  const cpes = await namesOf(names, lookup, maxNames);
  if (lookup.ownName !== undefined) cpes.push(lookup.ownName);
  const { ids, unindexed } = await cpeCveIndexOf(storage).cveUnionOfNames(cpes, lookup.isVulnerable);
  if (unindexed.length === 0) return ids;
  const evaluated = await cvesOfNamesByEvaluation(storage, unindexed, lookup.isVulnerable);
  return [...new Set([...ids, ...evaluated.flat()])].sort();
}
