/** The knowledge matcher over storage: one per storage handle, so every route shares its caches. */
import type { Storage } from '../../storage/index.js';
import { KnowledgeMatcher, type KnowledgeSource } from './matcher.js';
import { cpeCveIndexOf } from './name-cves.js';

export function storageKnowledgeSource(storage: Storage): KnowledgeSource {
  const knowledge = storage.knowledge;
  return {
    generation: () => knowledge.generation(),
    aliases: (productKeys) => knowledge.aliasesOf(productKeys),
    productHasCriteria: (name, generation) => cpeCveIndexOf(storage).hasCriteria(name, generation),
    candidates: async (name, generation) =>
      (await cpeCveIndexOf(storage).candidatesOfName(name, generation)) ?? knowledge.candidateCves([name]),
    applicability: (cveIds) => knowledge.applicability(cveIds),
    confirmations: (wfn, cpe, generation) => cpeCveIndexOf(storage).confirmationsOfName(wfn, cpe, generation),
  };
}

const explaining = new WeakMap<Storage, KnowledgeMatcher>();
const confirming = new WeakMap<Storage, KnowledgeMatcher>();

/** The matcher that keeps evidence, for `explain=true`. */
export function knowledgeMatcher(storage: Storage): KnowledgeMatcher {
  return memoized(explaining, storage, true);
}

/** The matcher for ingest and re-mapping: confirmed CVEs only, so its caches stay small. */
export function confirmingMatcher(storage: Storage): KnowledgeMatcher {
  return memoized(confirming, storage, false);
}

function memoized(matchers: WeakMap<Storage, KnowledgeMatcher>, storage: Storage, evidence: boolean): KnowledgeMatcher {
  let matcher = matchers.get(storage);
  if (!matcher) {
    matcher = new KnowledgeMatcher(storageKnowledgeSource(storage), { evidence });
    matchers.set(storage, matcher);
  }
  return matcher;
}
