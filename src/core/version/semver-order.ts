/**
 * SemVer 2.0 ordering (the `semver` package, loose parsing) for `semver`, `npm`, crates.io and Go
 * versions. Build metadata is ignored, as SemVer requires. `undefined`: not a SemVer version.
 */
import semver from 'semver';
import { boundedMemo } from '../memo.js';
import type { Order } from './comparison.js';

// Range bounds repeat across every version compared with them; parsed versions are never mutated.
const parse = boundedMemo((text: string) => semver.parse(text.trim(), { loose: true }));

export function compareSemver(a: string, b: string): Order | undefined {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return undefined;
  return left.compare(right);
}

/** Go module and toolchain versions: `v1.2.3`, `1.2.3`, or the toolchain's `go1.21.3`. */
export function compareGo(a: string, b: string): Order | undefined {
  const strip = (text: string) => text.trim().replace(/^go(?=\d)/, '');
  return compareSemver(strip(a), strip(b));
}
