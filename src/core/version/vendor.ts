/**
 * The "vendor" comparator for versions with no declared scheme (NVD/CPE versions, CVE `custom`
 * ranges, unknown version types): libversion's algorithm with the four fixes of
 * reference-matching.md §3.3 — POST keywords rank above ZERO (`7.4p1 > 7.4`), letter suffixes
 * compare as whole strings (`0.9.8za < 0.9.8zb`), neutral words are dropped
 * (`1.2.3.RELEASE == 1.2.3`) and `~` sorts before everything (`1.0~rc1 < 1.0`).
 */
import { isAllVersions, isPlaceholderVersion } from './placeholders.js';
import { sign, type Comparison, type Order } from './comparison.js';

/** Token ranks, lowest first. Missing trailing tokens compare as ZERO (`1.0 == 1.0.0`). */
export enum Rank {
  Tilde = 0,
  Pre = 1,
  Zero = 2,
  Post = 3,
  NonZero = 4,
  Letter = 5,
}

export type VendorToken =
  | { rank: Rank.Tilde }
  | { rank: Rank.Zero }
  | { rank: Rank.NonZero; value: bigint }
  /** `keyword` is the position in {@link PRE_RELEASE_ORDER}; -1 for a word we do not know. */
  | { rank: Rank.Pre; keyword: number; word: string }
  | { rank: Rank.Post; word: string }
  | { rank: Rank.Letter; word: string };

export interface TokenizedVersion {
  tokens: VendorToken[];
  /** True when an unknown word was ranked as a pre-release by default. */
  guessed: boolean;
}

const PRE_RELEASE_ORDER = ['dev', 'snapshot', 'ea', 'alpha', 'beta', 'milestone', 'rc'] as const;
type PreReleaseKeyword = (typeof PRE_RELEASE_ORDER)[number];
// Maps, like the sets below: a word such as `constructor` must not find what every object inherits.
/** Multi-letter pre-release words and their canonical keyword; synonyms compare equal. */
const PRE_RELEASE_WORDS = new Map<string, PreReleaseKeyword>([
  ['dev', 'dev'],
  ['snapshot', 'snapshot'],
  ['ea', 'ea'],
  ['alpha', 'alpha'],
  ['beta', 'beta'],
  ['milestone', 'milestone'],
  ['rc', 'rc'],
  ['cr', 'rc'],
  ['pre', 'rc'],
  ['preview', 'rc'],
]);
/** Single letters that mean a pre-release only when a number follows (`1.0b1`, `3.0.0-M4`). */
const PRE_RELEASE_LETTERS = new Map<string, PreReleaseKeyword>([
  ['a', 'alpha'],
  ['b', 'beta'],
  ['m', 'milestone'],
]);
const POST_RELEASE_WORDS = new Set(['pl', 'patch', 'post', 'sp', 'update', 'rev', 'hotfix', 'fix', 'build', 'errata']);
/** Single letters that mean a post-release only when a number follows (`7.4p1`, `8u181`). */
const POST_RELEASE_LETTERS = new Set(['p', 'u', 'r']);
const NEUTRAL_WORDS = new Set(['final', 'ga', 'release', 'stable']);

const ZERO_TOKEN: VendorToken = { rank: Rank.Zero };

/** Trim, lower-case, and drop a `v` that introduces a number (`v1.2.3` → `1.2.3`). */
export function normalizeVendorVersion(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/^v(?=\d)/, '');
}

const comparable = new Map<string, boolean>();

/** Whether a text can be ordered at all: placeholders, wildcards and digit-less words cannot. */
export function isComparableVendorVersion(text: string): boolean {
  // Every comparison asks this of both sides, and matching meets the same bounds over and over.
  let result = comparable.get(text);
  if (result === undefined) {
    const version = normalizeVendorVersion(text);
    result =
      !isPlaceholderVersion(version) &&
      !isAllVersions(version) &&
      // `2.4.*` and `2.x` are release-line patterns, not versions.
      !/[*?]/.test(version) &&
      !/(?:^|\.)x(?:\.|$)/.test(version) &&
      /\d/.test(version);
    if (comparable.size >= TOKENIZED_CACHE_MAX) comparable.clear();
    comparable.set(text, result);
  }
  return result;
}

function classifyWord(
  word: string,
  gluedAfterNumber: boolean,
  numberFollows: boolean,
): VendorToken | 'drop' | 'unknown' {
  if (NEUTRAL_WORDS.has(word)) return 'drop';
  const pre = PRE_RELEASE_WORDS.get(word);
  if (pre) return { rank: Rank.Pre, keyword: PRE_RELEASE_ORDER.indexOf(pre), word: pre };
  if (POST_RELEASE_WORDS.has(word)) return { rank: Rank.Post, word };
  // `1.1.1k`, `0.9.8za`, `18c`: a letter suffix is a later release, whatever the letters say.
  if (gluedAfterNumber && !numberFollows) return { rank: Rank.Letter, word };
  const letter = numberFollows ? PRE_RELEASE_LETTERS.get(word) : undefined;
  if (letter) return { rank: Rank.Pre, keyword: PRE_RELEASE_ORDER.indexOf(letter), word: letter };
  if (numberFollows && POST_RELEASE_LETTERS.has(word)) return { rank: Rank.Post, word };
  return 'unknown';
}

const tokenized = new Map<string, TokenizedVersion | null>();
const TOKENIZED_CACHE_MAX = 100_000;

/**
 * Splits a version into classified tokens; `undefined` when it is not comparable. Matching
 * compares the same few thousand bounds against every fingerprint, so results are remembered
 * (they are never mutated by callers).
 */
export function tokenizeVendorVersion(text: string): TokenizedVersion | undefined {
  let result = tokenized.get(text);
  if (result === undefined) {
    result = tokenize(text) ?? null;
    if (tokenized.size >= TOKENIZED_CACHE_MAX) tokenized.clear();
    tokenized.set(text, result);
  }
  return result ?? undefined;
}

function tokenize(text: string): TokenizedVersion | undefined {
  if (!isComparableVendorVersion(text)) return undefined;
  const version = normalizeVendorVersion(text);
  const tokens: VendorToken[] = [];
  let guessed = false;
  let previousEnd = -1;
  let previousWasNumber = false;
  for (const match of version.matchAll(/\d+|[a-z]+|~/g)) {
    const run = match[0];
    const start = match.index ?? 0;
    const end = start + run.length;
    if (run === '~') {
      tokens.push({ rank: Rank.Tilde });
      previousWasNumber = false;
    } else if (/^\d/.test(run)) {
      const value = BigInt(run);
      tokens.push(value === 0n ? ZERO_TOKEN : { rank: Rank.NonZero, value });
      previousWasNumber = true;
    } else {
      const gluedAfterNumber = previousWasNumber && previousEnd === start;
      const numberFollows = /\d/.test(version.charAt(end));
      const token = classifyWord(run, gluedAfterNumber, numberFollows);
      if (token === 'unknown') {
        // libversion's default: an unknown word is a pre-release, and we say we guessed.
        tokens.push({ rank: Rank.Pre, keyword: -1, word: run });
        guessed = true;
      } else if (token !== 'drop') {
        tokens.push(token);
      }
      previousWasNumber = false;
    }
    previousEnd = end;
  }
  return { tokens, guessed };
}

const compareStrings = (a: string, b: string): Order => (a < b ? -1 : a > b ? 1 : 0);

/** Orders two tokens; the caller pads the shorter version with ZERO tokens. */
export function compareVendorTokens(a: VendorToken, b: VendorToken): Order {
  if (a.rank !== b.rank) return sign(a.rank - b.rank);
  switch (a.rank) {
    case Rank.NonZero:
      return sign(a.value - (b as typeof a).value);
    case Rank.Pre: {
      const other = b as typeof a;
      return sign(a.keyword - other.keyword) || compareStrings(a.word, other.word);
    }
    case Rank.Post:
    case Rank.Letter:
      return compareStrings(a.word, (b as typeof a).word);
    default:
      return 0;
  }
}

export function compareTokenLists(a: VendorToken[], b: VendorToken[]): Order {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const order = compareVendorTokens(a[i] ?? ZERO_TOKEN, b[i] ?? ZERO_TOKEN);
    if (order !== 0) return order;
  }
  return 0;
}

/**
 * Compares two free-form vendor versions. `undefined` when either is not a version
 * (empty, `*`, `-`, `n/a`, `unspecified`, no digits); `heuristic` when an unknown word
 * had to be ranked as a pre-release.
 */
export function compareVendor(a: string, b: string): Comparison | undefined {
  const left = tokenizeVendorVersion(a);
  const right = tokenizeVendorVersion(b);
  if (!left || !right) return undefined;
  return {
    order: compareTokenLists(left.tokens, right.tokens),
    confidence: left.guessed || right.guessed ? 'heuristic' : 'exact',
  };
}
