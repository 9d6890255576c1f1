/**
 * NVD-style version ranges (`versionStartIncluding` … `versionEndExcluding`, reference-matching.md
 * §2.4 rule 4b and §3.3 step 6): bounds are applied exactly as given, strict or inclusive. When the
 * version or any bound cannot be compared the answer is `unknown` — never `outside`, because a
 * range we cannot read must not clear a host.
 */
import { compareVersions } from './compare.js';
import { weakest, type Confidence } from './comparison.js';

export interface VersionRange {
  startIncluding?: string;
  startExcluding?: string;
  endIncluding?: string;
  endExcluding?: string;
}

export type RangeResult = 'inside' | 'outside' | 'unknown';

export interface RangeCheck {
  result: RangeResult;
  confidence: Confidence;
}

type BoundKind = keyof VersionRange;

/** Which orders of `version` vs `bound` satisfy each kind of bound. */
const SATISFIED_BY: Record<BoundKind, ReadonlyArray<-1 | 0 | 1>> = {
  startIncluding: [0, 1],
  startExcluding: [1],
  endIncluding: [-1, 0],
  endExcluding: [-1],
};

export function checkRange(version: string, range: VersionRange, versionType?: string): RangeCheck {
  const bounds = (Object.keys(SATISFIED_BY) as BoundKind[]).filter(
    (kind) => range[kind] !== undefined && range[kind] !== null,
  );
  let inside = true;
  const confidences: Confidence[] = [];
  for (const kind of bounds) {
    const comparison = compareVersions(version, range[kind] as string, versionType);
    if (!comparison) return { result: 'unknown', confidence: 'heuristic' };
    confidences.push(comparison.confidence);
    if (!SATISFIED_BY[kind].includes(comparison.order)) inside = false;
  }
  return { result: inside ? 'inside' : 'outside', confidence: weakest(...confidences) };
}

export function inRange(version: string, range: VersionRange, versionType?: string): RangeResult {
  return checkRange(version, range, versionType).result;
}
