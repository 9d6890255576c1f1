/**
 * RubyGems' Gem::Version ordering: `-` means `.pre.`, segments are number or letter runs, any
 * letter segment makes a pre-release (letters sort below numbers), trailing zeros of the
 * release and pre-release parts are ignored. `undefined`: not a gem version.
 */
import { sign, type Order } from './comparison.js';

const GEM_VERSION = /^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

type Segment = bigint | string;

function canonicalSegments(text: string): Segment[] | undefined {
  const version = text.trim();
  if (!GEM_VERSION.test(version)) return undefined;
  const segments: Segment[] = (version.replaceAll('-', '.pre.').match(/[0-9]+|[a-z]+/gi) ?? []).map((s) =>
    /^\d/.test(s) ? BigInt(s) : s,
  );
  const firstString = segments.findIndex((s) => typeof s === 'string');
  const split = firstString === -1 ? segments.length : firstString;
  const withoutTrailingZeros = (part: Segment[]) => {
    const copy = [...part];
    while (copy.length > 0 && copy[copy.length - 1] === 0n) copy.pop();
    return copy;
  };
  return [...withoutTrailingZeros(segments.slice(0, split)), ...withoutTrailingZeros(segments.slice(split))];
}

export function compareGem(a: string, b: string): Order | undefined {
  const left = canonicalSegments(a);
  const right = canonicalSegments(b);
  if (!left || !right) return undefined;
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? 0n;
    const y = right[i] ?? 0n;
    if (x === y) continue;
    if (typeof x === 'string' && typeof y !== 'string') return -1;
    if (typeof x !== 'string' && typeof y === 'string') return 1;
    if (typeof x === 'bigint' && typeof y === 'bigint') return sign(x - y);
    return x < y ? -1 : 1;
  }
  return 0;
}
