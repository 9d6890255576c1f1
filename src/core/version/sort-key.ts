/**
 * A byte-sortable index key for vendor versions (reference-matching.md §3.3 step 7): comparing
 * two keys as strings (or as bytes, e.g. SQLite BINARY) gives the same order as
 * {@link compareVendor}, and equal versions (`1.0`, `1.0.0`) get equal keys, so a version range
 * becomes a B-tree scan `key >= start AND key < end`.
 */
import { Rank, tokenizeVendorVersion, type VendorToken } from './vendor.js';

/*
 * Each token becomes a rank letter plus a payload. The end of a version stands for an endless
 * run of ZERO tokens, so trailing zeros are dropped and the END marker has to sort between
 * "zero, then something lower than zero" and "zero, then something higher": a ZERO token is
 * therefore written as ZERO_THEN_LOWER or ZERO_THEN_HIGHER depending on the next non-zero token.
 */
const TAG = {
  tilde: 'a',
  pre: 'b',
  zeroThenLower: 'c',
  end: 'd',
  zeroThenHigher: 'e',
  post: 'f',
  nonZero: 'g',
  letter: 'h',
} as const;
/** Ends a word; sorts below every letter so that `z` < `za`. */
const WORD_END = '!';

/** Digits prefixed by their count (itself prefixed by its own length), so longer means larger. */
function encodeNumber(value: bigint): string {
  const digits = value.toString();
  const count = String(digits.length);
  return String(count.length) + count + digits;
}

function encodeToken(token: VendorToken, nextNonZero: VendorToken | undefined): string {
  switch (token.rank) {
    case Rank.Tilde:
      return TAG.tilde;
    case Rank.Pre:
      // Known keywords are canonical, so only unknown words (keyword -1) need their spelling.
      return TAG.pre + String(token.keyword + 1) + (token.keyword < 0 ? token.word + WORD_END : '');
    case Rank.Zero:
      return nextNonZero && nextNonZero.rank < Rank.Zero ? TAG.zeroThenLower : TAG.zeroThenHigher;
    case Rank.Post:
      return TAG.post + token.word + WORD_END;
    case Rank.NonZero:
      return TAG.nonZero + encodeNumber(token.value);
    case Rank.Letter:
      return TAG.letter + token.word + WORD_END;
  }
}

/** The index key of a vendor version, or `undefined` when the version is not comparable. */
export function versionSortKey(version: string): string | undefined {
  const tokenized = tokenizeVendorVersion(version);
  if (!tokenized) return undefined;
  const tokens = [...tokenized.tokens];
  while (tokens.length > 0 && tokens[tokens.length - 1]!.rank === Rank.Zero) tokens.pop();
  let key = '';
  for (let i = 0; i < tokens.length; i++) {
    const nextNonZero = tokens.slice(i + 1).find((t) => t.rank !== Rank.Zero);
    key += encodeToken(tokens[i]!, nextNonZero);
  }
  return key + TAG.end;
}
