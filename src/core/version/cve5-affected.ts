/**
 * The CVE JSON 5 version status algorithm (reference-matching.md §2.5, the schema's normative
 * `versions.md`): the first `versions[]` entry that contains V decides, with its `changes`
 * re-sorted and applied; otherwise `defaultStatus`, otherwise `unknown`.
 *
 * An entry we cannot evaluate for V (a git range, an unreadable bound, a placeholder such as
 * `n/a`) might or might not contain V. Instead of guessing, every status that could result is
 * collected; when they disagree the answer is `unknown`. So an unreadable entry never turns into
 * "not affected", and never into a silent match either.
 */
import { compareVersions, isGraphVersionType, isKnownVersionType } from './compare.js';
import { weakest, type Comparison, type Confidence } from './comparison.js';
import { looksLikeRangeText, parseLenientConstraints, type Constraint } from './lenient.js';
import { compareToLine, parseLineBound } from './line-bound.js';
import { isAllVersions, isPlaceholderVersion } from './placeholders.js';
import { addDefault, asStatus, finalStatus, type AffectedStatus, type Cve5Status } from './cve5-outcome.js';
import { indexedAffectedStatus, plainVersion, singleVersionIndex } from './cve5-single-index.js';
import { isComparableVendorVersion } from './vendor.js';

export type { AffectedStatus, Cve5Status } from './cve5-outcome.js';

export interface Cve5Change {
  at: string;
  status: string;
}

export interface Cve5VersionEntry {
  version?: string;
  status?: string;
  versionType?: string;
  lessThan?: string;
  lessThanOrEqual?: string;
  changes?: Cve5Change[];
}

export interface Cve5Product {
  versions?: Cve5VersionEntry[];
  defaultStatus?: string;
}

type Match = 'yes' | 'no' | 'maybe';

interface Membership {
  match: Match;
  confidence: Confidence;
  /** How the entry was read, for the reason text. */
  note: string;
}

const maybe = (note: string): Membership => ({ match: 'maybe', confidence: 'heuristic', note });

/** Combines the bounds of one entry: any unreadable bound makes the entry undecidable. */
function allOf(parts: Membership[], note: string): Membership {
  const unreadable = parts.find((part) => part.match === 'maybe');
  if (unreadable) return maybe(unreadable.note);
  const confidence = weakest(...parts.map((part) => part.confidence));
  return { match: parts.every((part) => part.match === 'yes') ? 'yes' : 'no', confidence, note };
}

/** V compared with a bound: `yes` when the order is one of `accepted`. */
function bound(version: string, limit: string, versionType: string | undefined, accepted: number[]): Membership {
  // Operators or lists (`2.0.9-6,2.1.2-3`, seen in openEuler records) are not one version.
  if (/[<>=,;|]/.test(limit)) return maybe(`bound "${limit}" is not a single version`);
  const comparison: Comparison | undefined = compareVersions(version, limit, versionType);
  if (!comparison) return maybe(`"${limit}" cannot be compared with ${version}`);
  return {
    match: accepted.includes(comparison.order) ? 'yes' : 'no',
    confidence: comparison.confidence,
    note: '',
  };
}

function constraintMembership(version: string, constraint: Constraint, versionType?: string): Membership {
  const accepted = { '<': [-1], '<=': [-1, 0], '>': [1], '>=': [0, 1], '=': [0] }[constraint.operator];
  return bound(version, constraint.version, versionType, accepted);
}

function singleMembership(version: string, entry: Cve5VersionEntry): Membership {
  const text = entry.version ?? '';
  if (isAllVersions(text)) return { match: 'yes', confidence: 'heuristic', note: `"${text}" read as every version` };
  if (isPlaceholderVersion(text)) return maybe(`placeholder version "${text}" says nothing about ${version}`);
  const line = parseLineBound(text);
  if (line) {
    const order = compareToLine(version, line);
    if (order === undefined) return maybe(`${version} has no release numbers to place on line "${text}"`);
    return { match: order === 0 ? 'yes' : 'no', confidence: 'heuristic', note: `"${text}" read as the whole line` };
  }
  const constraints = parseLenientConstraints(text);
  if (constraints) {
    const membership = allOf(
      constraints.map((c) => constraintMembership(version, c, entry.versionType)),
      `"${text}" read leniently as a range`,
    );
    return { ...membership, confidence: 'heuristic' };
  }
  if (looksLikeRangeText(text)) return maybe(`"${text}" reads like a range we cannot parse`);
  if (plainVersion(text) === plainVersion(version))
    return { match: 'yes', confidence: 'exact', note: `${version} == ${text}` };
  if (isGraphVersionType(entry.versionType)) return maybe(`"${text}" is a commit, not a release`);
  const equal = bound(version, text, entry.versionType, [0]);
  return { ...equal, note: equal.note || `${version} == ${text}` };
}

function lowerBound(version: string, entry: Cve5VersionEntry): Membership {
  const text = entry.version ?? '';
  if (text.trim() === '0') return { match: 'yes', confidence: 'exact', note: '' };
  if (isPlaceholderVersion(text) || isAllVersions(text)) {
    return { match: 'yes', confidence: 'heuristic', note: `lower bound "${text}" read as none` };
  }
  return bound(version, text, entry.versionType, [0, 1]);
}

function upperBound(version: string, entry: Cve5VersionEntry): Membership {
  const inclusive = entry.lessThan === undefined;
  const text = (inclusive ? entry.lessThanOrEqual : entry.lessThan) ?? '';
  if (text.trim() === '*') return { match: 'yes', confidence: 'exact', note: '' };
  const line = parseLineBound(text);
  if (line) {
    const order = compareToLine(version, line);
    if (order === undefined) return maybe(`${version} has no release numbers to place on line "${text}"`);
    const confidence = isKnownVersionType(entry.versionType) ? 'exact' : 'heuristic';
    return { match: order <= 0 ? 'yes' : 'no', confidence, note: '' };
  }
  return bound(version, text, entry.versionType, inclusive ? [-1, 0] : [-1]);
}

function describeRange(entry: Cve5VersionEntry): string {
  const upper = entry.lessThan !== undefined ? `< ${entry.lessThan}` : `<= ${entry.lessThanOrEqual}`;
  return `${entry.version ?? '?'} <= v ${upper} (${entry.versionType ?? 'no versionType'})`;
}

const isOpenEnded = (entry: Cve5VersionEntry) =>
  (entry.version ?? '').trim() === '0' && (entry.lessThan ?? entry.lessThanOrEqual ?? '').trim() === '*';

function rangeMembership(version: string, entry: Cve5VersionEntry): Membership {
  if (entry.lessThan !== undefined && entry.lessThanOrEqual !== undefined) {
    return maybe('both lessThan and lessThanOrEqual are given');
  }
  if (isGraphVersionType(entry.versionType)) return maybe(`git range ${describeRange(entry)} is commit ancestry`);
  const parts = [lowerBound(version, entry), upperBound(version, entry)];
  // `custom` and unknown types have no defined order; even "0 <= v <= *" is then only a claim.
  if (!isKnownVersionType(entry.versionType)) parts.push({ match: 'yes', confidence: 'heuristic', note: '' });
  const membership = allOf(parts, describeRange(entry));
  const notes = parts.map((part) => part.note).filter(Boolean);
  if (isOpenEnded(entry)) notes.push('covers every version');
  return membership.match === 'maybe' ? membership : { ...membership, note: [membership.note, ...notes].join(', ') };
}

const isRange = (entry: Cve5VersionEntry) => entry.lessThan !== undefined || entry.lessThanOrEqual !== undefined;

interface Outcome {
  statuses: Set<Cve5Status>;
  confidence: Confidence;
}

/**
 * The entry's status for V after its `changes`, re-sorted by `at` in the entry's scheme as the
 * schema requires. Changes we cannot order or compare widen the set of possible statuses.
 */
function statusAfterChanges(version: string, entry: Cve5VersionEntry): Outcome {
  const initial = asStatus(entry.status);
  const changes = entry.changes ?? [];
  if (changes.length === 0) return { statuses: new Set([initial]), confidence: 'exact' };
  const graph = isGraphVersionType(entry.versionType);
  const confidences: Confidence[] = [];
  let orderable = !graph;
  const sorted = [...changes].sort((a, b) => {
    const comparison = graph ? undefined : compareVersions(a.at, b.at, entry.versionType);
    if (comparison) confidences.push(comparison.confidence);
    else orderable = false;
    return comparison?.order ?? 0;
  });
  let current = new Set([initial]);
  let everyStepKnown = orderable;
  // Used when the order is unknown: the result is then the status of *some* applying change.
  const applying = new Set<Cve5Status>();
  let certainlyChanged = false;
  for (const change of sorted) {
    const applies = graph ? undefined : compareVersions(change.at, version, entry.versionType);
    if (applies) confidences.push(applies.confidence);
    else everyStepKnown = false;
    if (applies && applies.order > 0) continue;
    const status = asStatus(change.status);
    applying.add(status);
    if (applies) certainlyChanged = true;
    if (applies && orderable) current = new Set([status]);
    else current.add(status);
  }
  if (!orderable) current = certainlyChanged ? applying : new Set([initial, ...applying]);
  return { statuses: current, confidence: everyStepKnown ? weakest(...confidences) : 'heuristic' };
}

function membershipOf(version: string, entry: Cve5VersionEntry): Membership {
  if (entry.version === undefined && !isRange(entry)) return maybe('entry without a version');
  return isRange(entry) ? rangeMembership(version, entry) : singleMembership(version, entry);
}

/** The status of `version` for one CVE 5 `affected[]` product. */
export function affectedStatus(version: string, product: Cve5Product): AffectedStatus {
  if (!isComparableVendorVersion(version)) {
    return { status: 'unknown', confidence: 'exact', reason: `"${version}" is not a comparable version` };
  }
  const index = singleVersionIndex(product.versions);
  return index ? indexedAffectedStatus(version, product, index) : scannedAffectedStatus(version, product);
}

/** The status algorithm itself, entry by entry (for a comparable `version`). */
export function scannedAffectedStatus(version: string, product: Cve5Product): AffectedStatus {
  const possible = new Set<Cve5Status>();
  const confidences: Confidence[] = [];
  const notes: string[] = [];
  let decided = false;
  for (const [index, entry] of (product.versions ?? []).entries()) {
    const membership = membershipOf(version, entry);
    confidences.push(membership.confidence);
    if (membership.match === 'no') continue;
    const outcome = statusAfterChanges(version, entry);
    confidences.push(outcome.confidence);
    for (const status of outcome.statuses) possible.add(status);
    const statusText = [...outcome.statuses].join(' or ');
    if (membership.match === 'yes') {
      notes.push(`versions[${index}] matches (${membership.note}) → ${statusText}`);
      decided = true;
      break;
    }
    notes.push(`versions[${index}] undecidable (${membership.note}), could give ${statusText}`);
  }
  if (!decided) addDefault(possible, notes, product.defaultStatus);
  return finalStatus(possible, weakest(...confidences), notes);
}
