/**
 * CVE 5 `versions` lists seen from one product. A list whose entries are all single releases or
 * ranges in the vendor order (no scheme of their own, every bound readable, no `changes`) can
 * contain a version only inside the span of sort keys its entries cover, so a matcher can find
 * the CVEs a name's version falls into by key lookups, and confirm each with the status algorithm
 * (evaluate.ts stays the definition; the matcher property tests compare the two).
 */
import { ANY, NA, type Wfn } from '../cpe.js';
import { parseCached } from '../advisory/cpe-match.js';
import { isGraphVersionType, isKnownVersionType } from '../version/compare.js';
import type { Cve5VersionEntry } from '../version/cve5-affected.js';
import { plainVersion } from '../version/cve5-single-index.js';
import { looksLikeRangeText, parseLenientConstraints } from '../version/lenient.js';
import { parseLineBound } from '../version/line-bound.js';
import { isAllVersions, isPlaceholderVersion } from '../version/placeholders.js';
import { versionSortKey } from '../version/sort-key.js';
import { isComparableVendorVersion } from '../version/vendor.js';
import { extrasAreAny, identityCovers, isConcrete } from './name-match.js';
import type { AffectedCpes, CveApplicability } from './types.js';

/** Sort keys an entry can contain versions in (both ends inclusive; absent: unbounded). */
export interface KeySpan {
  start?: string;
  end?: string;
}

/** Where a keyed list's entries can hold a version: spans, and single releases by their text. */
export interface KeyedList {
  entry: AffectedCpes;
  spans: KeySpan[];
  texts: string[];
}

const readableKey = (text: string): string | undefined =>
  /[<>=,;|]/.test(text) || !isComparableVendorVersion(text) ? undefined : versionSortKey(text);

/** The span of one entry, or undefined when the vendor order cannot place it. */
function spanOf(entry: Cve5VersionEntry): { span: KeySpan; text?: string } | undefined {
  if ((entry.changes ?? []).length > 0) return undefined;
  const type = entry.versionType?.trim().toLowerCase();
  if (type && (isKnownVersionType(type) || isGraphVersionType(type))) return undefined;
  if (entry.lessThan !== undefined || entry.lessThanOrEqual !== undefined) {
    if (entry.lessThan !== undefined && entry.lessThanOrEqual !== undefined) return undefined;
    const span: KeySpan = {};
    const low = (entry.version ?? '').trim();
    if (!(low === '0' || isPlaceholderVersion(low) || isAllVersions(low))) {
      span.start = readableKey(low);
      if (span.start === undefined) return undefined;
    }
    const high = (entry.lessThan ?? entry.lessThanOrEqual)!.trim();
    if (high !== '*') {
      if (parseLineBound(high)) return undefined;
      span.end = readableKey(high);
      if (span.end === undefined) return undefined;
    }
    return { span };
  }
  const text = entry.version;
  if (text === undefined) return undefined;
  if (isAllVersions(text)) return { span: {} };
  if (isPlaceholderVersion(text) || parseLineBound(text) || parseLenientConstraints(text) || looksLikeRangeText(text))
    return undefined;
  const key = readableKey(text);
  return key === undefined ? undefined : { span: { start: key, end: key }, text: plainVersion(text) };
}

const keyedCache = new WeakMap<AffectedCpes, KeyedList | null>();

function keyedList(entry: AffectedCpes): KeyedList | undefined {
  let keyed = keyedCache.get(entry);
  if (keyed === undefined) {
    keyed = { entry, spans: [], texts: [] };
    for (const version of entry.versions ?? []) {
      const placed = spanOf(version);
      if (!placed) {
        keyed = null;
        break;
      }
      keyed.spans.push(placed.span);
      if (placed.text !== undefined) keyed.texts.push(placed.text);
    }
    if (keyed && keyed.spans.length === 0) keyed = null;
    keyedCache.set(entry, keyed);
  }
  return keyed ?? undefined;
}

/**
 * Whether every version entry is a commit range: a release is never placed in one (its membership
 * stays undecided), so the status algorithm ends at `defaultStatus` with the ranges' statuses
 * beside it, and an entry whose default is not affected can never confirm a release.
 */
function onlyCommitRanges(entry: AffectedCpes): boolean {
  const versions = entry.versions ?? [];
  return (
    entry.defaultStatus !== 'affected' &&
    versions.length > 0 &&
    versions.every(
      (version) =>
        isGraphVersionType(version.versionType) &&
        (version.lessThan !== undefined || version.lessThanOrEqual !== undefined) &&
        (version.changes ?? []).length === 0,
    )
  );
}

/**
 * For names with the identity (part, vendor, product) of `name`, and a concrete version when
 * `name` has one: the keyed lists through which the CVE can confirm one, or undefined when only a
 * full evaluation can tell (a configuration, an entry CPE with other attributes or a pattern
 * version, an NA version for a name without a concrete one, a list the vendor order cannot place).
 * Entries that cannot confirm a release (commit ranges alone, `platforms`) are left out.
 */
export function keyedListsFor(app: CveApplicability, name: Wfn): KeyedList[] | undefined {
  const versioned = isConcrete(name.version);
  const lists: KeyedList[] = [];
  for (const statement of app.statements) {
    if (statement.configurations.length > 0) return undefined;
    for (const entry of statement.affected) {
      // `platforms` leave every match of the entry possible, never confirmed.
      if ((entry.platforms ?? []).length > 0) continue;
      let relates = false;
      for (const cpe of entry.cpes) {
        const wfn = parseCached(cpe);
        if (!wfn || !identityCovers(wfn, name)) continue;
        // A not-applicable version never relates to a name with a concrete one (name-match.ts).
        if (wfn.version === NA && versioned) continue;
        if (!extrasAreAny(wfn) || !(wfn.version === ANY || isConcrete(wfn.version))) return undefined;
        relates = true;
      }
      if (!relates || onlyCommitRanges(entry)) continue;
      const keyed = keyedList(entry);
      if (!keyed) return undefined;
      lists.push(keyed);
    }
  }
  return lists;
}
