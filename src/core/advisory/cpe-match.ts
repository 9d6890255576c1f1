/**
 * The `cpe` filter of `/v4/advisory`: does a queried CPE name meet a record's CPE criteria
 * (`affected[].cpes`, and the vulnerable `cpeMatch` criteria of `cpeApplicability`, where NVD
 * configurations land)? Attributes are compared by NISTIR 7696 and must not be disjoint (the
 * query may be a pattern such as `cpe:2.3:a:apache:http_server:*`). A concrete version in the
 * query must lie inside the criterion's version bounds, or — for an `affected` entry whose CPE has
 * no version — the entry's `versions` must say `affected` for it. Undecidable comparisons do not
 * match.
 */
import { ANY, compareAttribute, CPE_ATTRIBUTES, parseCpe, quoteWfnValue, type Wfn } from '../cpe.js';
import { versionOfWfn } from '../version/cpe-version.js';
import { checkRange, type VersionRange } from '../version/range.js';
import type { MatchCriterion, MatchData, MatchEntry } from './facts.js';
import { isAffected } from './version-match.js';

const parsed = new Map<string, Wfn | null>();
const PARSE_CACHE_MAX = 50_000;

export function parseCached(text: string): Wfn | undefined {
  let wfn = parsed.get(text);
  if (wfn === undefined) {
    try {
      wfn = parseCpe(text);
    } catch {
      wfn = null;
    }
    if (parsed.size >= PARSE_CACHE_MAX) parsed.clear();
    parsed.set(text, wfn);
  }
  return wfn ?? undefined;
}

/** The criterion's value and the query's value can describe the same thing. */
export function compatible(criterion: string, query: string): boolean {
  const relation = compareAttribute(criterion, query);
  if (relation === 'SUPERSET' || relation === 'EQUAL' || relation === 'SUBSET') return true;
  if (relation !== 'UNDEFINED') return false;
  // The query holds wildcards: does its pattern cover the criterion's value?
  const reverse = compareAttribute(query, criterion);
  return reverse === 'SUPERSET' || reverse === 'EQUAL' || reverse === 'SUBSET';
}

const NON_VERSION = CPE_ATTRIBUTES.filter((attribute) => attribute !== 'version');

export function identityCompatible(criterion: Wfn, query: Wfn): boolean {
  return NON_VERSION.every((attribute) => compatible(criterion[attribute], query[attribute]));
}

/** How a criterion with version ANY decides a concrete query version. */
type AnyVersionRule = (version: string) => boolean;

function criterionMatches(
  criterion: Wfn,
  query: Wfn,
  queryVersion: string | undefined,
  anyVersion: AnyVersionRule,
): boolean {
  if (!identityCompatible(criterion, query)) return false;
  if (criterion.version !== ANY || queryVersion === undefined) return compatible(criterion.version, query.version);
  return anyVersion(queryVersion);
}

function entryMatches(entry: MatchEntry, query: Wfn, queryVersion: string | undefined): boolean {
  return (entry.cpes ?? []).some((text) => {
    const criterion = parseCached(text);
    return (
      criterion !== undefined &&
      criterionMatches(criterion, query, queryVersion, (version) => isAffected(version, entry))
    );
  });
}

/** A concrete version inside a criterion with version ANY: within its bounds, or any version without bounds. */
export const insideRange = (range: VersionRange | undefined) => (version: string) => {
  if (!range) return true;
  const check = checkRange(version, range);
  return check.result === 'inside' && check.confidence === 'exact';
};

export function cpeMatchesRecord(query: Wfn, data: MatchData): boolean {
  const queryVersion = versionOfWfn(query);
  if (data.entries.some((entry) => entryMatches(entry, query, queryVersion))) return true;
  return data.criteria.some(({ criteria, range }) => {
    const criterion = parseCached(criteria);
    return criterion !== undefined && criterionMatches(criterion, query, queryVersion, insideRange(range));
  });
}

/** Whether an applicability criterion says `version` (of the criterion's own product) is vulnerable. */
export function criterionCoversVersion({ criteria, range }: MatchCriterion, version: string): boolean {
  const criterion = parseCached(criteria);
  if (criterion === undefined) return false;
  let quoted: string;
  try {
    quoted = quoteWfnValue(version);
  } catch {
    return false;
  }
  return criterionMatches(criterion, { ...criterion, version: quoted, update: ANY }, version, insideRange(range));
}
