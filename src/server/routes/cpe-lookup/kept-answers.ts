/**
 * Answers of lookups without an exact version (a whole product: 9,592 names for linux_kernel at
 * the benchmark size), kept while the names and the products they were read from are unchanged:
 * uniting the names again costs ~30 µs a name, checking a kept answer a few map lookups.
 */
import { CPE_ATTRIBUTES } from '../../../core/cpe.js';
import { LruCache } from '../../../core/lru.js';
import type { ProductIdentity } from '../../../storage/index.js';
import type { CpeLookup } from './query.js';

export interface KeptAnswer {
  ids: readonly string[];
  /** Names the lookup's search matched (before the attributes past the version filtered them). */
  total: number;
  /** The name index's generation, read before its names were searched. */
  names: number;
  /** The knowledge generation, read before the products' CVEs were. */
  knowledge: number;
  /** The products the ids were read from. */
  products: readonly ProductIdentity[];
}

/** Default bytes kept answers may hold in all. */
export const KEPT_ANSWER_BYTES = 16 * 2 ** 20;

/** Bytes an answer may come to hold: its array, and its id strings once their product structure is gone. */
const bytesOf = (answer: KeptAnswer) => 256 + answer.ids.length * 48 + answer.products.length * 64;

/** Whether a lookup is kept: those naming an exact version select a few names and are answered directly. */
export const keepsAnswer = (lookup: CpeLookup) => lookup.names.version === undefined || lookup.names.versionPrefix;

export const keptAnswerKey = (lookup: CpeLookup) =>
  `${lookup.isVulnerable ? 'v' : 'a'}${CPE_ATTRIBUTES.map((attribute) => lookup.wfn[attribute]).join('\u0000')}`;

export const keptAnswers = (maxBytes = KEPT_ANSWER_BYTES) => new LruCache<string, KeptAnswer>(maxBytes, bytesOf);
