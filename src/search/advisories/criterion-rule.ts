/**
 * An applicability criterion's answer to a version (cpe-match.ts `criterionCoversVersion` for the
 * `version` filter, its range check for a `cpe` query with a version), compiled once: whether it
 * stands for its own product at all, and its version part — every version, a range on the vendor
 * order, one concrete version (compared as text), or a pattern decided per query.
 */
import type { MatchCriterion } from '../../core/advisory/facts.js';
import { identityCompatible, parseCached } from '../../core/advisory/cpe-match.js';
import { ANY, concreteWfnValue, hasUnquotedWildcard, NA } from '../../core/cpe.js';
import type { Order } from '../../core/version/comparison.js';
import type { VersionRange } from '../../core/version/range.js';
import { exactIn } from './version-classes.js';

type BoundKind = keyof VersionRange;

/** Which orders of V against each kind of bound are inside (range.ts). */
const INSIDE: Record<BoundKind, (order: Order) => boolean> = {
  startIncluding: (order) => order >= 0,
  startExcluding: (order) => order > 0,
  endIncluding: (order) => order <= 0,
  endExcluding: (order) => order < 0,
};

export type CriterionVersion =
  /** Version ANY: `bounds` (empty: every version) on the vendor order; `undefined` when never exact. */
  | { kind: 'any'; bounds: Array<[BoundKind, string]> | undefined }
  /** A concrete version: the query's version must spell it (`key`, lower-case, unquoted). */
  | { kind: 'concrete'; key: string }
  | { kind: 'never' }
  /** A version pattern: decided per query by the reference. */
  | { kind: 'evaluate' }
  /** Version ANY with bounds we do not read (not strings): decided per query by the reference. */
  | { kind: 'evaluateRange' };

export interface CriterionRule {
  /** The criterion parses and stands for its own product (criterionCoversVersion's identity test). */
  parsed: boolean;
  selfCompatible: boolean;
  version: CriterionVersion;
}

function compileBounds(range: VersionRange | undefined): CriterionVersion {
  if (range === undefined) return { kind: 'any', bounds: [] };
  if (typeof range !== 'object' || range === null) return { kind: 'evaluateRange' };
  const bounds: Array<[BoundKind, string]> = [];
  for (const kind of Object.keys(INSIDE) as BoundKind[]) {
    const value: unknown = range[kind];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') return { kind: 'evaluateRange' };
    bounds.push([kind, value]);
  }
  // A bound that is no version, or whose order is a guess, never gives an exact `inside`.
  if (bounds.some(([, value]) => !exactIn('vendor', value))) return { kind: 'any', bounds: undefined };
  return { kind: 'any', bounds };
}

export function compileCriterion(criterion: MatchCriterion): CriterionRule {
  const wfn = typeof criterion.criteria === 'string' ? parseCached(criterion.criteria) : undefined;
  if (!wfn) return { parsed: false, selfCompatible: false, version: { kind: 'never' } };
  // criterionCoversVersion compares the criterion with itself, version and update replaced.
  const selfCompatible = identityCompatible(wfn, { ...wfn, update: ANY });
  let version: CriterionVersion;
  if (wfn.version === ANY) version = compileBounds(criterion.range);
  else if (wfn.version === NA) version = { kind: 'never' };
  else if (hasUnquotedWildcard(wfn.version)) version = { kind: 'evaluate' };
  else {
    const value = concreteWfnValue(wfn.version);
    version = value === undefined ? { kind: 'evaluate' } : { kind: 'concrete', key: value.toLowerCase() };
  }
  return { parsed: true, selfCompatible, version };
}

/** Whether V, placed by `orderOf`, is inside the bounds. */
export const insideBounds = (bounds: Array<[BoundKind, string]>, orderOf: (text: string) => Order) =>
  bounds.every(([kind, value]) => INSIDE[kind](orderOf(value)));
