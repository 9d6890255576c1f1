/**
 * Rows of the criteria index (DESIGN.md "Knowledge"): each criterion keyed by (part, vendor,
 * product) with its version part as byte-sortable keys (versionSortKey), so "which criteria can
 * apply to apache:http_server 2.4.49" is an index scan plus evaluate.ts on the few rows returned.
 *
 * Lookup contract (no false negatives against name-match.ts, proven by the property test):
 * for a name N with lookup keys L = nameLookupOf(N), a criterion can relate to N (definitely or
 * possibly) only if one of its rows R satisfies rowMayMatch(R, L):
 * - R.part ∈ {L.part, '*'}, R.vendor ∈ {L.vendor, '*'}, R.product ∈ {L.product, '*'};
 * - and, when L has both version keys: R.alwaysCheck, or R.unbounded, or R.exactKey ∈ {L.rawKey,
 *   L.foldedKey}, or L.foldedKey lies within [R.startKey, R.endKey] (each end optional, strict
 *   unless …Inclusive); when L lacks a key (version ANY/NA/a pattern/not orderable) every row of
 *   the product must be returned.
 * A criterion may have two rows: one for its version and one for its version with its update
 * folded in (`2016` + `cumulative_update_19`); rows are identified by (criterion, exactKey).
 */
import { ANY, NA, unquoteWfnValue, type Wfn } from '../cpe.js';
import { parseCached } from '../advisory/cpe-match.js';
import { versionOfWfn } from '../version/cpe-version.js';
import { nextFamily } from '../version/family.js';
import { versionSortKey } from '../version/sort-key.js';
import { hasBounds, hasWildcard, isConcrete } from './name-match.js';
import type {
  ApplicabilitySource,
  CpeMatchCriterion,
  CveApplicability,
  IndexedCriterion,
  AffectedCpes,
} from './types.js';

/** A WFN attribute as the index stores it: unquoted, lower-cased; a pattern is stored as ANY. */
function keyValue(value: string): string {
  if (value === ANY || hasWildcard(value)) return '*';
  if (value === NA) return '-';
  return unquoteWfnValue(value).toLowerCase();
}

/** `part:vendor:product` as the index stores them (`a:apache:http_server`). */
export function productKeyOf(wfn: Wfn): string {
  return `${keyValue(wfn.part)}:${keyValue(wfn.vendor)}:${keyValue(wfn.product)}`;
}

type VersionPart = Omit<IndexedCriterion, 'part' | 'vendor' | 'product' | 'vulnerable' | 'source' | 'criterion'>;

const ALWAYS: VersionPart = { alwaysCheck: true };

/** The rows' version parts for a concrete criterion version: as given, and with its update folded in. */
/** The sort keys of a name's concrete version as written and with a patch-like update folded in (undefined: not comparable). */
export function versionKeysOf(wfn: Wfn): { raw?: string; folded?: string } {
  const raw = versionSortKey(unquoteWfnValue(wfn.version));
  const foldedVersion = versionOfWfn(wfn);
  const folded = foldedVersion === undefined ? undefined : versionSortKey(foldedVersion);
  return { ...(raw !== undefined ? { raw } : {}), ...(folded !== undefined ? { folded } : {}) };
}

function exactParts(wfn: Wfn): VersionPart[] {
  const { raw, folded } = versionKeysOf(wfn);
  if (raw === undefined || folded === undefined) return [ALWAYS];
  return raw === folded ? [{ exactKey: raw }] : [{ exactKey: raw }, { exactKey: folded }];
}

function boundsPart(criterion: CpeMatchCriterion): VersionPart {
  const range = criterion.range ?? {};
  const part: VersionPart = {};
  const start = range.startIncluding ?? range.startExcluding;
  const end = range.endIncluding ?? range.endExcluding;
  // Both kinds of one end given at once: let evaluation apply them.
  if (range.startIncluding !== undefined && range.startExcluding !== undefined) return ALWAYS;
  if (range.endIncluding !== undefined && range.endExcluding !== undefined) return ALWAYS;
  if (start !== undefined) {
    const key = versionSortKey(start);
    if (key === undefined) return ALWAYS;
    part.startKey = key;
    part.startInclusive = range.startIncluding !== undefined;
  }
  if (end !== undefined) {
    const key = versionSortKey(end);
    if (key === undefined) return ALWAYS;
    part.endKey = key;
    part.endInclusive = range.endIncluding !== undefined;
  }
  return part;
}

function criterionParts(criterion: CpeMatchCriterion, wfn: Wfn): VersionPart[] {
  // Bounds are a necessary condition whatever the criterion's version says.
  if (hasBounds(criterion.range)) return [boundsPart(criterion)];
  if (wfn.version === ANY) return [{ unbounded: true }];
  if (!isConcrete(wfn.version)) return [ALWAYS];
  return exactParts(wfn);
}

function affectedParts(entry: AffectedCpes, wfn: Wfn): VersionPart[] {
  if ((entry.versions ?? []).length > 0 || (!isConcrete(wfn.version) && wfn.version !== ANY)) return [ALWAYS];
  if (wfn.version === ANY) return [entry.defaultStatus === 'affected' ? { unbounded: true } : ALWAYS];
  return exactParts(wfn);
}

function rows(
  wfn: Wfn,
  base: { vulnerable: boolean; source: ApplicabilitySource; criterion: string },
  parts: VersionPart[],
): IndexedCriterion[] {
  const identity = { part: keyValue(wfn.part), vendor: keyValue(wfn.vendor), product: keyValue(wfn.product) };
  return parts.map((part) => ({ ...identity, ...base, ...part }));
}

/** Every criterion of every statement as index rows; unparseable criteria have none (they never match). */
export function indexedCriteria(app: CveApplicability): IndexedCriterion[] {
  const out: IndexedCriterion[] = [];
  const seen = new Set<string>();
  const push = (row: IndexedCriterion) => {
    const key = JSON.stringify(row);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(row);
    }
  };
  for (const statement of app.statements) {
    for (const configuration of statement.configurations) {
      for (const node of configuration.nodes) {
        for (const criterion of node.cpeMatch) {
          const wfn = parseCached(criterion.criteria);
          if (!wfn) continue;
          const base = { vulnerable: criterion.vulnerable, source: statement.source, criterion: criterion.criteria };
          rows(wfn, base, criterionParts(criterion, wfn)).forEach(push);
        }
      }
    }
    for (const entry of statement.affected) {
      for (const cpe of entry.cpes) {
        const wfn = parseCached(cpe);
        if (!wfn) continue;
        rows(wfn, { vulnerable: true, source: statement.source, criterion: cpe }, affectedParts(entry, wfn)).forEach(
          push,
        );
      }
    }
  }
  return out;
}

/** What a lookup by a name uses. Keys are absent when the name's version is not a comparable value. */
export interface NameLookup {
  part: string;
  vendor: string;
  product: string;
  /** versionSortKey of the version attribute alone. */
  rawKey?: string;
  /** versionSortKey of the version with a patch-like update folded in (openssh 7.4 + p1 → 7.4p1). */
  foldedKey?: string;
  /**
   * Host matching reads a numeric version as the family of releases under it (`4` for 4.x): the
   * sort key of the next family, so ranges that only overlap the family are candidates too.
   */
  familyEndKey?: string;
}

/** The lookup of every version of the name's product: its identity, no version keys. */
export const productLookupOf = (name: Wfn): NameLookup => ({
  part: keyValue(name.part),
  vendor: keyValue(name.vendor),
  product: keyValue(name.product),
});

export function nameLookupOf(name: Wfn): NameLookup {
  const lookup = productLookupOf(name);
  if (!isConcrete(name.version)) return lookup;
  const { raw, folded } = versionKeysOf(name);
  return {
    ...lookup,
    ...(raw !== undefined ? { rawKey: raw } : {}),
    ...(folded !== undefined ? { foldedKey: folded } : {}),
  };
}

/** The lookup of a host's name: `nameLookupOf`, plus the end of the version's family. */
export function hostLookupOf(name: Wfn): NameLookup {
  const lookup = nameLookupOf(name);
  const version = lookup.foldedKey === undefined ? undefined : versionOfWfn(name);
  const next = version === undefined ? undefined : nextFamily(version);
  const familyEndKey = next === undefined ? undefined : versionSortKey(next);
  return familyEndKey === undefined ? lookup : { ...lookup, familyEndKey };
}

/** The reference predicate of the lookup contract, for storage to mirror in SQL. */
export function rowMayMatch(row: IndexedCriterion, lookup: NameLookup): boolean {
  const identity = (stored: string, wanted: string) => stored === '*' || stored === wanted;
  if (
    !identity(row.part, lookup.part) ||
    !identity(row.vendor, lookup.vendor) ||
    !identity(row.product, lookup.product)
  ) {
    return false;
  }
  if (row.alwaysCheck || row.unbounded) return true;
  if (lookup.rawKey === undefined || lookup.foldedKey === undefined) return true;
  if (row.exactKey !== undefined) return row.exactKey === lookup.rawKey || row.exactKey === lookup.foldedKey;
  if (row.startKey === undefined && row.endKey === undefined) return false;
  const key = lookup.foldedKey;
  if (lookup.familyEndKey !== undefined) {
    // The range overlaps the family [key, familyEndKey): a bound inside it makes the match possible.
    const startsBefore = row.startKey === undefined || row.startKey < lookup.familyEndKey;
    const endsAfter = row.endKey === undefined || row.endKey >= key;
    return startsBefore && endsAfter;
  }
  const aboveStart = row.startKey === undefined || (row.startInclusive ? row.startKey <= key : row.startKey < key);
  const belowEnd = row.endKey === undefined || (row.endInclusive ? key <= row.endKey : key < row.endKey);
  return aboveStart && belowEnd;
}
