import { cpeMatches, parseCpe } from '../../../core/cpe.js';
import { badRequest } from '../../../core/errors.js';
import type { LruCache } from '../../../core/lru.js';
import type { CpeNameIndex } from '../../../search/cpe-names/index.js';
import { cpeCveIndexOf, cvesOfNamesByEvaluation } from '../../../services/matching/name-cves.js';
import type { Storage } from '../../../storage/index.js';
import { type KeptAnswer, keepsAnswer, keptAnswerKey, keptAnswers } from './kept-answers.js';
import type { CpeLookup } from './query.js';

/** Names one lookup may unite; as many as CPE search can page through. */
export const MAX_NAMES = 10_000;
const PAGE = 1_000;

const tooMany = (lookup: CpeLookup, total: number, maxNames: number) =>
  badRequest(
    `parameter "cpe": "${lookup.cpe}" matches ${total} CPE names, more than the ${maxNames} one lookup unites; name a version (a trailing * is a prefix) or the vendor and product`,
  );

/** The CPE names of the index the lookup selects: by part, vendor, product and version, then by the other attributes. */
async function namesOf(
  names: CpeNameIndex,
  lookup: CpeLookup,
  maxNames: number,
): Promise<{ cpes: string[]; total: number }> {
  const selected: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await names.search({ ...lookup.names, order: 'asc', offset, limit: PAGE });
    if (page.total > maxNames) throw tooMany(lookup, page.total, maxNames);
    for (const name of page.names)
      if (!lookup.filterExtras || cpeMatches(lookup.wfn, parseCpe(name.cpe))) selected.push(name.cpe);
    if (offset + PAGE >= page.total) return { cpes: selected, total: page.total };
  }
}

/**
 * The CVE ids (ascending) of a lookup, united afresh: those covering the CPE itself when it is a
 * name, and those of every CPE name of the index it matches, as CPE search lists them per name.
 * `products` is undefined when some names were evaluated outside the products' structures.
 */
export async function unitedCves(
  storage: Storage,
  names: CpeNameIndex,
  lookup: CpeLookup,
  maxNames = MAX_NAMES,
): Promise<Omit<KeptAnswer, 'names' | 'knowledge' | 'products'> & { products?: KeptAnswer['products'] }> {
  const { cpes, total } = await namesOf(names, lookup, maxNames);
  if (lookup.ownName !== undefined) cpes.push(lookup.ownName);
  const { ids, unindexed, products } = await cpeCveIndexOf(storage).cveUnionOfNames(cpes, lookup.isVulnerable);
  if (unindexed.length === 0) return { ids, total, products };
  const evaluated = await cvesOfNamesByEvaluation(storage, unindexed, lookup.isVulnerable);
  return { ids: [...new Set([...ids, ...evaluated.flat()])].sort(), total };
}

const keptByIndex = new WeakMap<CpeNameIndex, LruCache<string, KeptAnswer>>();

function keptOf(names: CpeNameIndex): LruCache<string, KeptAnswer> {
  let kept = keptByIndex.get(names);
  if (!kept) {
    kept = keptAnswers();
    keptByIndex.set(names, kept);
  }
  return kept;
}

/**
 * The answer of unitedCves, kept for lookups without an exact version (kept-answers.ts) and
 * reused while neither the names nor the knowledge of the products it was read from changed.
 * The array may be shared between callers: it must not be changed.
 */
export async function lookupCpe(
  storage: Storage,
  names: CpeNameIndex,
  lookup: CpeLookup,
  maxNames = MAX_NAMES,
): Promise<readonly string[]> {
  if (!keepsAnswer(lookup)) return (await unitedCves(storage, names, lookup, maxNames)).ids;
  const cves = cpeCveIndexOf(storage);
  const kept = keptOf(names);
  const key = keptAnswerKey(lookup);
  await names.catchUp();
  const namesGeneration = names.generation;
  const knowledge = await cves.generation();
  const answer = kept.get(key);
  if (answer && answer.names === namesGeneration && cves.unchangedSince(answer.products, answer.knowledge)) {
    if (answer.total > maxNames) throw tooMany(lookup, answer.total, maxNames);
    return answer.ids;
  }
  const { ids, total, products } = await unitedCves(storage, names, lookup, maxNames);
  if (products !== undefined) kept.set(key, { ids, total, names: namesGeneration, knowledge, products });
  return ids;
}
