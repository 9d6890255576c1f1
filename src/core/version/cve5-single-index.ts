/**
 * Long CVE 5 `versions` lists made only of single versions (Cisco's records list every affected
 * release, thousands per product) answered by key lookups instead of a scan: the same status,
 * confidence and reason as the scan in cve5-affected.ts, which stays the definition.
 */
import { isGraphVersionType, isKnownVersionType } from './compare.js';
import type { Cve5Product, Cve5VersionEntry } from './cve5-affected.js';
import { addDefault, asStatus, finalStatus, type AffectedStatus, type Cve5Status } from './cve5-outcome.js';
import { looksLikeRangeText, parseLenientConstraints } from './lenient.js';
import { parseLineBound } from './line-bound.js';
import { isAllVersions, isPlaceholderVersion } from './placeholders.js';
import { versionSortKey } from './sort-key.js';
import { isComparableVendorVersion, tokenizeVendorVersion } from './vendor.js';

/** Shorter lists are scanned: building an index costs more than the scans it saves. */
export const INDEXED_LIST_MIN = 16;

interface Unreadable {
  index: number;
  text: string;
  status: Cve5Status;
  /** Set when the text can never be compared (an operator or a list in it). */
  fixedNote?: string;
}

export interface SingleVersionIndex {
  texts: string[];
  statuses: Cve5Status[];
  /** Lower-cased text (leading `v` dropped) → first entry with it. */
  byText: Map<string, number>;
  /** Sort key → first comparable entry with it (equal keys ⇔ equal versions). */
  byKey: Map<string, number>;
  /** Entries no version compares with, in list order: they leave the answer open. */
  unreadable: Unreadable[];
  /** Per entry: a comparison with it is heuristic whatever the version (a guessed word, a `custom` type). */
  weak: boolean[];
  /** First comparable entry whose comparisons are heuristic. */
  firstWeak: number;
  /** First comparable entry (a guessed word in the version makes every comparison heuristic). */
  firstComparable: number;
}

/** A version as list texts are compared: trimmed, lower-cased, without a leading `v`. */
export const plainVersion = (v: string) =>
  v
    .trim()
    .toLowerCase()
    .replace(/^v(?=\d)/, '');

const isSingle = (entry: Cve5VersionEntry) =>
  entry.lessThan === undefined &&
  entry.lessThanOrEqual === undefined &&
  entry.version !== undefined &&
  (entry.changes ?? []).length === 0;

/** Whether the entry is one version the vendor comparator alone decides (no scheme of its own, no pattern or range text). */
function isPlainSingle(entry: Cve5VersionEntry): boolean {
  if (!isSingle(entry)) return false;
  const type = entry.versionType?.trim().toLowerCase();
  if (type && (isKnownVersionType(type) || isGraphVersionType(type))) return false;
  const text = entry.version!;
  return (
    !isAllVersions(text) &&
    !isPlaceholderVersion(text) &&
    !parseLineBound(text) &&
    !parseLenientConstraints(text) &&
    !looksLikeRangeText(text)
  );
}

const cache = new WeakMap<readonly Cve5VersionEntry[], SingleVersionIndex | null>();

/** The index of a long list of plain single versions; undefined for any other list. */
export function singleVersionIndex(versions: readonly Cve5VersionEntry[] | undefined): SingleVersionIndex | undefined {
  if (!versions || versions.length < INDEXED_LIST_MIN) return undefined;
  let index = cache.get(versions);
  if (index === undefined) {
    index = versions.every(isPlainSingle) ? buildIndex(versions) : null;
    cache.set(versions, index);
  }
  return index ?? undefined;
}

function buildIndex(versions: readonly Cve5VersionEntry[]): SingleVersionIndex {
  const index: SingleVersionIndex = {
    texts: [],
    statuses: [],
    byText: new Map(),
    byKey: new Map(),
    unreadable: [],
    weak: [],
    firstWeak: Number.POSITIVE_INFINITY,
    firstComparable: Number.POSITIVE_INFINITY,
  };
  versions.forEach((entry, i) => {
    const text = entry.version!;
    const status = asStatus(entry.status);
    index.texts.push(text);
    index.statuses.push(status);
    index.weak.push(false);
    const lowered = plainVersion(text);
    if (!index.byText.has(lowered)) index.byText.set(lowered, i);
    if (/[<>=,;|]/.test(text)) {
      index.unreadable.push({ index: i, text, status, fixedNote: `bound "${text}" is not a single version` });
      return;
    }
    const key = isComparableVendorVersion(text) ? versionSortKey(text) : undefined;
    if (key === undefined) {
      index.unreadable.push({ index: i, text, status });
      return;
    }
    if (!index.byKey.has(key)) index.byKey.set(key, i);
    index.firstComparable = Math.min(index.firstComparable, i);
    const typed = (entry.versionType?.trim() ?? '') !== '';
    if (typed || tokenizeVendorVersion(text)!.guessed) {
      index.weak[i] = true;
      index.firstWeak = Math.min(index.firstWeak, i);
    }
  });
  return index;
}

/** `affectedStatus` for a comparable `version` over an indexed list. */
export function indexedAffectedStatus(
  version: string,
  product: Cve5Product,
  index: SingleVersionIndex,
): AffectedStatus {
  const byText = index.byText.get(plainVersion(version));
  const key = versionSortKey(version);
  const byKey = key === undefined ? undefined : index.byKey.get(key);
  const decider = Math.min(byText ?? Number.POSITIVE_INFINITY, byKey ?? Number.POSITIVE_INFINITY);
  const end = Number.isFinite(decider) ? decider : index.texts.length;
  const versionGuessed = tokenizeVendorVersion(version)?.guessed ?? false;

  const possible = new Set<Cve5Status>();
  const notes: string[] = [];
  let heuristic = index.firstWeak < end || (versionGuessed && index.firstComparable < end);
  for (const entry of index.unreadable) {
    if (entry.index >= end) break;
    heuristic = true;
    possible.add(entry.status);
    const note = entry.fixedNote ?? `"${entry.text}" cannot be compared with ${version}`;
    notes.push(`versions[${entry.index}] undecidable (${note}), could give ${entry.status}`);
  }
  if (end < index.texts.length) {
    // A textual match needs no comparison; otherwise the decider was compared like the entries before it.
    if (decider !== byText) heuristic ||= index.weak[decider]! || versionGuessed;
    const status = index.statuses[decider]!;
    possible.add(status);
    notes.push(`versions[${decider}] matches (${version} == ${index.texts[decider]}) → ${status}`);
  } else addDefault(possible, notes, product.defaultStatus);
  return finalStatus(possible, heuristic ? 'heuristic' : 'exact', notes);
}
