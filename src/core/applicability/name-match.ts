/**
 * How one criterion relates to one concrete CPE name (reference-matching.md §2.3, §2.4 rule 4,
 * §2.5): `definite` when criterion ⊇ name per NISTIR 7696 with the version decided by the
 * criterion's bounds or version; `possible` when the answer depends on something the name leaves
 * open (its version, an attribute it has as ANY) or on a comparison that cannot be made;
 * `excluded` when the name is the criterion's product but definitely not covered; `unrelated`
 * when it is another product. evaluate.ts, criterion.ts and the index-key property test share it.
 */
import { ANY, NA, compareAttribute, unquoteWfnValue, type CpeAttribute, type Relation, type Wfn } from '../cpe.js';
import { compareVersions } from '../version/compare.js';
import { versionOfWfn } from '../version/cpe-version.js';
import { affectedStatus, type AffectedStatus, type Cve5VersionEntry } from '../version/cve5-affected.js';
import { entriesCutFamily, rangeCutsFamily } from '../version/family.js';
import { checkRange, type VersionRange } from '../version/range.js';
import type { AffectedCpes, EvidenceKind, UnknownAttribute } from './types.js';

export interface NameMatch {
  truth: 'definite' | 'possible';
  kind: EvidenceKind;
  /** A guessed ordering, a wildcard pattern or versionType `custom` decided. */
  heuristic: boolean;
  /** The bounds that decided, as text. */
  range?: string;
  unknownAttributes: UnknownAttribute[];
}

export type NameRelation = NameMatch | 'excluded' | 'unrelated';

type Verdict = NameMatch | 'excluded';

export interface RelateOptions {
  /**
   * Read a short version as the family of releases under it (version/family.ts): a range bound
   * inside the family makes the match only possible. Host matching does; CPE search follows NVD's
   * cpeName search, which compares the version as written.
   */
  families?: boolean;
}

const IDENTITY = ['part', 'vendor', 'product'] as const;
/** Compared attribute by attribute; `update` goes with the version (it is folded into it). */
const EXTRA = ['edition', 'language', 'sw_edition', 'target_sw', 'target_hw', 'other'] as const;

const covers = (relation: Relation) => relation === 'SUPERSET' || relation === 'EQUAL';

/** Whether the criterion's part, vendor and product cover the name's (else the two are unrelated). */
export const identityCovers = (criterion: Wfn, name: Wfn) =>
  IDENTITY.every((attribute) => covers(compareAttribute(criterion[attribute], name[attribute])));

/** Whether every attribute besides identity, version and update is ANY (nothing to exclude or leave open). */
export const extrasAreAny = (criterion: Wfn) => EXTRA.every((attribute) => criterion[attribute] === ANY);

/** An unquoted `*` or `?`: the value is a pattern (ANY itself counts). */
export function hasWildcard(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\') i++;
    else if (value[i] === '*' || value[i] === '?') return true;
  }
  return false;
}

/** A value that names something: not ANY, not NA, not a pattern. */
export const isConcrete = (value: string) => value !== ANY && value !== NA && !hasWildcard(value);

type AttributeVerdict = 'ok' | 'unknown' | 'excluded';

/** A name's ANY (or pattern) where the criterion constrains the attribute is not knowledge, it is a gap. */
function attributeVerdict(criterion: string, name: string): AttributeVerdict {
  const relation = compareAttribute(criterion, name);
  if (covers(relation)) return 'ok';
  return relation === 'SUBSET' || relation === 'UNDEFINED' ? 'unknown' : 'excluded';
}

const possible = (kind: EvidenceKind, range?: string): NameMatch => ({
  truth: 'possible',
  kind,
  heuristic: false,
  ...(range !== undefined ? { range } : {}),
  unknownAttributes: [],
});

function withUpdate(match: NameMatch, update: AttributeVerdict): Verdict {
  if (update === 'excluded') return 'excluded';
  if (update === 'ok') return match;
  return { ...match, truth: 'possible', unknownAttributes: [...match.unknownAttributes, 'update'] };
}

const TRUTH_RANK = { definite: 2, possible: 1 } as const;

/** The stronger of two verdicts: definite over possible, then a verdict that needed no guess. */
function stronger(a: Verdict, b: Verdict): Verdict {
  if (a === 'excluded') return b;
  if (b === 'excluded') return a;
  if (TRUTH_RANK[a.truth] !== TRUTH_RANK[b.truth]) return TRUTH_RANK[a.truth] > TRUTH_RANK[b.truth] ? a : b;
  if (a.truth === 'possible' && a.kind !== b.kind) {
    // A gap in attributes says more than a gap in the version.
    return a.kind === 'version_unknown' || a.kind === 'uncomparable' || a.kind === 'version_family' ? b : a;
  }
  return a.heuristic && !b.heuristic ? b : a;
}

/** Both must hold: excluded wins, then the weaker truth; gaps add up. */
function both(a: Verdict, b: Verdict): Verdict {
  if (a === 'excluded' || b === 'excluded') return 'excluded';
  const weaker = TRUTH_RANK[a.truth] <= TRUTH_RANK[b.truth] ? a : b;
  return {
    ...weaker,
    heuristic: a.heuristic || b.heuristic,
    unknownAttributes: [...new Set([...a.unknownAttributes, ...b.unknownAttributes])],
  };
}

export function hasBounds(range: VersionRange | undefined): range is VersionRange {
  return (
    range !== undefined &&
    (range.startIncluding !== undefined ||
      range.startExcluding !== undefined ||
      range.endIncluding !== undefined ||
      range.endExcluding !== undefined)
  );
}

/** `>= 2.4.0, < 2.4.50`. */
export function describeNvdRange(range: VersionRange): string {
  const parts: string[] = [];
  if (range.startIncluding !== undefined) parts.push(`>= ${range.startIncluding}`);
  if (range.startExcluding !== undefined) parts.push(`> ${range.startExcluding}`);
  if (range.endIncluding !== undefined) parts.push(`<= ${range.endIncluding}`);
  if (range.endExcluding !== undefined) parts.push(`< ${range.endExcluding}`);
  return parts.join(', ');
}

/** `2.4.0 <= v < 2.4.50 (custom)`, or `v = 2.4` for a single version. */
export function describeCve5Entry(entry: Cve5VersionEntry): string {
  const type = entry.versionType ? ` (${entry.versionType})` : '';
  if (entry.lessThan !== undefined) return `${entry.version ?? '?'} <= v < ${entry.lessThan}${type}`;
  if (entry.lessThanOrEqual !== undefined) return `${entry.version ?? '?'} <= v <= ${entry.lessThanOrEqual}${type}`;
  return `v = ${entry.version ?? '?'}${type}`;
}

// ---------------------------------------------------------------------------------------------
// The version part: bounds, an exact version, NA, a wildcard pattern, ANY

function boundsVerdict(criterion: Wfn, name: Wfn, range: VersionRange, options: RelateOptions): Verdict {
  const text = describeNvdRange(range);
  const update = attributeVerdict(criterion.update, name.update);
  if (update === 'excluded') return 'excluded';
  // §3.3 step 2: the name's patch-like update is part of its version (openssh 8.5 + p1 → 8.5p1).
  const version = versionOfWfn(name);
  if (version === undefined) return possible('version_unknown', text);
  const check = checkRange(version, range);
  if (options.families && check.result !== 'unknown' && rangeCutsFamily(version, range)) {
    return withUpdate(possible('version_family', text), update);
  }
  if (check.result === 'outside') return 'excluded';
  if (check.result === 'unknown') return possible('uncomparable', text);
  const match: NameMatch = {
    truth: 'definite',
    kind: 'version_range',
    heuristic: check.confidence === 'heuristic',
    range: text,
    unknownAttributes: [],
  };
  return withUpdate(match, update);
}

const hasConcreteUpdate = (wfn: Wfn) => isConcrete(wfn.update);

/**
 * A concrete criterion version against a concrete name version: equal as attributes (`1.0` vs
 * `1.0.0` by the vendor order, the update compared on its own), or equal once each side's update
 * is folded into its version (`7.4p1:*` vs `7.4:p1`, `2016:cumulative_update_19` vs `2016:cu19`).
 */
function exactVerdict(criterion: Wfn, name: Wfn): Verdict {
  if (!isConcrete(name.version)) return possible('version_unknown');
  let attributeWise: Verdict = 'excluded';
  let equal: { heuristic: boolean } | undefined;
  if (compareAttribute(criterion.version, name.version) === 'EQUAL') equal = { heuristic: false };
  else {
    const comparison = compareVersions(unquoteWfnValue(name.version), unquoteWfnValue(criterion.version));
    if (!comparison) attributeWise = possible('uncomparable');
    else if (comparison.order === 0) equal = { heuristic: comparison.confidence === 'heuristic' };
  }
  if (equal) {
    const match: NameMatch = {
      truth: 'definite',
      kind: 'exact_version',
      heuristic: equal.heuristic,
      unknownAttributes: [],
    };
    attributeWise = withUpdate(match, attributeVerdict(criterion.update, name.update));
  }
  let folded: Verdict = 'excluded';
  if (hasConcreteUpdate(criterion) || hasConcreteUpdate(name)) {
    const criterionVersion = versionOfWfn(criterion);
    const nameVersion = versionOfWfn(name);
    const comparison = criterionVersion && nameVersion ? compareVersions(nameVersion, criterionVersion) : undefined;
    if (comparison?.order === 0) {
      folded = {
        truth: 'definite',
        kind: 'exact_version',
        heuristic: comparison.confidence === 'heuristic',
        unknownAttributes: [],
      };
    }
  }
  return stronger(attributeWise, folded);
}

/** NA never matches a concrete version (Dependency-Track #1832, nvdtools #39); NA/NA is equal. */
function notApplicableVerdict(criterion: Wfn, name: Wfn): Verdict {
  if (name.version === NA) {
    const match: NameMatch = { truth: 'definite', kind: 'exact_version', heuristic: false, unknownAttributes: [] };
    return withUpdate(match, attributeVerdict(criterion.update, name.update));
  }
  return isConcrete(name.version) ? 'excluded' : possible('version_unknown');
}

/** `2.4.*` is a prefix match on the version text (NISTIR "m+wild"); `2.4*` also takes 2.40. */
function patternVerdict(criterion: Wfn, name: Wfn): Verdict {
  if (!isConcrete(name.version)) return possible('version_unknown');
  if (!covers(compareAttribute(criterion.version, name.version))) return 'excluded';
  const match: NameMatch = {
    truth: 'definite',
    kind: 'version_range',
    heuristic: true,
    range: `version ${unquoteWfnValue(criterion.version)}`,
    unknownAttributes: [],
  };
  return withUpdate(match, attributeVerdict(criterion.update, name.update));
}

function allVersionsVerdict(criterion: Wfn, name: Wfn): Verdict {
  const match: NameMatch = { truth: 'definite', kind: 'all_versions', heuristic: false, unknownAttributes: [] };
  return withUpdate(match, attributeVerdict(criterion.update, name.update));
}

/** The version part of a criterion with no bounds. */
function plainVersionVerdict(criterion: Wfn, name: Wfn): Verdict {
  if (criterion.version === ANY) return allVersionsVerdict(criterion, name);
  if (criterion.version === NA) return notApplicableVerdict(criterion, name);
  if (hasWildcard(criterion.version)) return patternVerdict(criterion, name);
  return exactVerdict(criterion, name);
}

// ---------------------------------------------------------------------------------------------
// Whole names

/** Identity must be covered outright; the other attributes may be gaps in the name. */
function attributesVerdict(criterion: Wfn, name: Wfn): UnknownAttribute[] | 'excluded' | 'unrelated' {
  if (!identityCovers(criterion, name)) return 'unrelated';
  const unknown: CpeAttribute[] = [];
  for (const attribute of EXTRA) {
    const verdict = attributeVerdict(criterion[attribute], name[attribute]);
    if (verdict === 'excluded') return 'excluded';
    if (verdict === 'unknown') unknown.push(attribute);
  }
  return unknown;
}

function finish(verdict: Verdict, unknown: UnknownAttribute[]): NameRelation {
  if (verdict === 'excluded' || unknown.length === 0) return verdict;
  return { ...verdict, truth: 'possible', unknownAttributes: [...verdict.unknownAttributes, ...unknown] };
}

function guarded(relate: () => NameRelation): NameRelation {
  try {
    return relate();
  } catch {
    // A malformed WFN value in a hand-built name: it names nothing we can compare.
    return 'unrelated';
  }
}

/** An NVD / CVE 5 `cpeMatch`: §2.4 rule 4 (bounds compare the version attribute only). */
export function relateCriterion(
  criterion: Wfn,
  range: VersionRange | undefined,
  name: Wfn,
  options: RelateOptions = {},
): NameRelation {
  return guarded(() => {
    const attributes = attributesVerdict(criterion, name);
    if (attributes === 'excluded' || attributes === 'unrelated') return attributes;
    let verdict: Verdict;
    if (!hasBounds(range)) verdict = plainVersionVerdict(criterion, name);
    else if (criterion.version === ANY) verdict = boundsVerdict(criterion, name, range, options);
    // Bounds on a criterion that also names a version: both have to hold.
    else verdict = both(boundsVerdict(criterion, name, range, options), plainVersionVerdict(criterion, name));
    return finish(verdict, attributes);
  });
}

const describeVersions = (entry: AffectedCpes) =>
  [...(entry.versions ?? []).map(describeCve5Entry), `defaultStatus ${entry.defaultStatus ?? 'absent'}`].join('; ');

/**
 * What decided an `affected` answer: the `versions[i]` the status algorithm stopped at (read from
 * its reason text), `default` when no entry matched, or `undefined` when the reason cannot be read.
 */
function decidingEntry(reason: string, entry: AffectedCpes): Cve5VersionEntry | 'default' | undefined {
  const index = /versions\[(\d+)\] matches/.exec(reason);
  if (index) return entry.versions?.[Number(index[1])];
  return /no entry matches/.test(reason) ? 'default' : undefined;
}

function affectedKind(deciding: Cve5VersionEntry | 'default' | undefined): EvidenceKind {
  if (deciding === 'default') return 'all_versions';
  return deciding === undefined || isRangeEntry(deciding) ? 'version_range' : 'exact_version';
}

const isRangeEntry = (entry: Cve5VersionEntry) => entry.lessThan !== undefined || entry.lessThanOrEqual !== undefined;

/**
 * The status algorithm on the name's version (its update folded in). The CPE's own version and
 * update are not used: real records put the fixed build there (MSRC:
 * `windows_10_1809:10.0.17763.2237` with `< 10.0.17763.2237` affected) or the range start
 * (CISA-ADP: `openssl:3.0.0` with `3.0.0 <= v < 3.0.7`, `openssh:9.5:-` with `9.5 <= v <= 9.7`).
 */
function statusVerdict(entry: AffectedCpes, name: Wfn, options: RelateOptions): Verdict {
  const decision = statusDecision(entry, name, options);
  if (decision === 'excluded') return decision;
  if (decision.outcome === 'possible')
    return decision.kind === 'version_unknown'
      ? possible(decision.kind)
      : possible(decision.kind, describeVersions(entry));
  const { status } = decision;
  const deciding = decidingEntry(status.reason, entry);
  const decidingType = typeof deciding === 'object' ? deciding.versionType : undefined;
  const match: NameMatch = {
    truth: 'definite',
    kind: affectedKind(deciding),
    heuristic: status.confidence === 'heuristic' || decidingType?.trim().toLowerCase() === 'custom',
    range:
      deciding === 'default'
        ? `defaultStatus ${entry.defaultStatus}`
        : deciding === undefined
          ? describeVersions(entry)
          : describeCve5Entry(deciding),
    unknownAttributes: [],
  };
  return match;
}

/** What the status algorithm decides for the name, before any text describes it. */
function statusDecision(
  entry: AffectedCpes,
  name: Wfn,
  options: RelateOptions,
):
  | 'excluded'
  | { outcome: 'possible'; kind: 'version_unknown' | 'version_family' | 'uncomparable' }
  | { outcome: 'affected'; status: AffectedStatus } {
  const version = versionOfWfn(name);
  if (version === undefined) return { outcome: 'possible', kind: 'version_unknown' };
  const status = affectedStatus(version, entry);
  if (options.families && status.status !== 'unknown' && entriesCutFamily(version, entry.versions ?? []))
    return { outcome: 'possible', kind: 'version_family' };
  if (status.status === 'unaffected') return 'excluded';
  if (status.status === 'unknown') return { outcome: 'possible', kind: 'uncomparable' };
  return { outcome: 'affected', status };
}

/**
 * Whether the entry's `versions` confirm the name: what a CPE of the entry with ANY in every
 * attribute but identity and version concludes, its own version unread (entryVersionVerdict).
 */
export function versionsConfirm(entry: AffectedCpes, name: Wfn, options: RelateOptions = {}): boolean {
  const decision = statusDecision(entry, name, options);
  return decision !== 'excluded' && decision.outcome === 'affected';
}

/**
 * Whether relating an entry's CPE to the name (relateAffected) gives a definite match, for the
 * common shape only: a `versions` list and a CPE of ANY or a concrete version, whose version the
 * list decides. Confirmation asks this of many entries, and the texts describing a match cost more
 * than the answer. Undefined for any other shape.
 */
export function versionListConfirms(
  cpe: Wfn,
  entry: AffectedCpes,
  name: Wfn,
  options: RelateOptions = {},
): boolean | undefined {
  if ((entry.versions ?? []).length === 0 || cpe.version === NA || (cpe.version !== ANY && hasWildcard(cpe.version)))
    return undefined;
  try {
    const attributes = attributesVerdict(cpe, name);
    // An attribute the name leaves open, or platforms a CPE cannot show, leave the match possible.
    if (typeof attributes === 'string' || attributes.length > 0 || (entry.platforms ?? []).length > 0) return false;
    return versionsConfirm(entry, name, options);
  } catch {
    return false;
  }
}

/** The version part of a CVE 5 `affected` entry for one of its CPEs (§2.5). */
function entryVersionVerdict(cpe: Wfn, entry: AffectedCpes, name: Wfn, options: RelateOptions): Verdict {
  if (cpe.version === NA) return notApplicableVerdict(cpe, name);
  const hasVersions = (entry.versions ?? []).length > 0;
  if (cpe.version !== ANY && hasWildcard(cpe.version)) {
    const pattern = patternVerdict(cpe, name);
    return hasVersions && pattern !== 'excluded' && pattern.truth === 'definite'
      ? both(pattern, statusVerdict(entry, name, options))
      : pattern;
  }
  if (hasVersions) return statusVerdict(entry, name, options);
  if (cpe.version !== ANY) return exactVerdict(cpe, name);
  if (entry.defaultStatus === 'affected') {
    const verdict = allVersionsVerdict(cpe, name);
    return verdict === 'excluded' ? verdict : { ...verdict, range: 'defaultStatus affected' };
  }
  if (entry.defaultStatus === 'unaffected') return 'excluded';
  return possible('uncomparable', `no versions, defaultStatus ${entry.defaultStatus ?? 'absent'}`);
}

/** A CVE 5 `affected` entry's CPE: ⊇ on every attribute but the version, which `versions` decides. */
export function relateAffected(cpe: Wfn, entry: AffectedCpes, name: Wfn, options: RelateOptions = {}): NameRelation {
  return guarded(() => {
    const attributes = attributesVerdict(cpe, name);
    if (attributes === 'excluded' || attributes === 'unrelated') return attributes;
    const unknown: UnknownAttribute[] = [...attributes];
    if ((entry.platforms ?? []).length > 0) unknown.push('platforms');
    return finish(entryVersionVerdict(cpe, entry, name, options), unknown);
  });
}

export const isMatch = (relation: NameRelation): relation is NameMatch => typeof relation === 'object';
