/** The knowledge matcher over storage: one per storage handle, so every route shares its caches. */
import type { Storage } from '../../storage/index.js';
import { KnowledgeMatcher, type KnowledgeSource } from './matcher.js';

export function storageKnowledgeSource(storage: Storage): KnowledgeSource {
  const knowledge = storage.knowledge;
  return {
    generation: () => knowledge.generation(),
    aliases: (productKeys) => knowledge.aliasesOf(productKeys),
    candidates: (name) => knowledge.candidateCves([name]),
    applicability: (cveIds) => knowledge.applicability(cveIds),
  };
}

const matchers = new WeakMap<Storage, KnowledgeMatcher>();

export function knowledgeMatcher(storage: Storage): KnowledgeMatcher {
  let matcher = matchers.get(storage);
  if (!matcher) matchers.set(storage, (matcher = new KnowledgeMatcher(storageKnowledgeSource(storage))));
  return matcher;
}
