/**
 * CVE 5 `versions` lists seen from one product. A list whose `affected` entries are all single
 * releases or ranges in the vendor order (no scheme of their own, every bound readable, no
 * `changes`) can confirm a version only inside the span of sort keys those entries cover, so a
 * matcher can find the CVEs a name's version falls into by key lookups, and confirm each with the
 * status algorithm (evaluate.ts stays the definition; the matcher property tests compare the two).
 * An entry without `versions` is found by its CPEs' own versions and confirmed by relating it whole.
 */
import { ANY, isPlainValue, NA, type Wfn } from '../cpe.js';
import { parseCached } from '../advisory/cpe-match.js';
import { isGraphVersionType, isKnownVersionType } from '../version/compare.js';
import type { Cve5VersionEntry } from '../version/cve5-affected.js';
import { plainVersion } from '../version/cve5-single-index.js';
import { asStatus } from '../version/cve5-outcome.js';
import { looksLikeRangeText, parseLenientConstraints } from '../version/lenient.js';
import { parseLineBound } from '../version/line-bound.js';
import { isAllVersions, isPlaceholderVersion } from '../version/placeholders.js';
import { versionSortKey } from '../version/sort-key.js';
import { isComparableVendorVersion } from '../version/vendor.js';
import { versionKeysOf } from './index-keys.js';
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
  /** The entry has no `versions`: its CPEs' own versions decide, checked by relating the whole entry. */
  byCpeVersions?: true;
}

const readableKey = (text: string): string | undefined =>
  /[<>=,;|]/.test(text) || !isComparableVendorVersion(text) ? undefined : versionSortKey(text);

/**
 * Where one entry can make a version affected: a span, a single release's text, both or neither
 * (`{}`), or undefined when the vendor order cannot place it. The status algorithm (cve5-affected.ts)
 * confirms a version only through an `affected` entry it is certainly inside, or the default;
 * so entries of another status, commit ranges and placeholders, never certainly holding a
 * release, need no place.
 */
function placeOf(entry: Cve5VersionEntry): { span?: KeySpan; text?: string } | undefined {
  if ((entry.changes ?? []).length > 0) return undefined;
  if (asStatus(entry.status) !== 'affected') return {};
  const type = entry.versionType?.trim().toLowerCase();
  const graph = type !== undefined && isGraphVersionType(type);
  if (type && !graph && isKnownVersionType(type)) return undefined;
  if (entry.lessThan !== undefined || entry.lessThanOrEqual !== undefined) {
    if (graph || (entry.lessThan !== undefined && entry.lessThanOrEqual !== undefined)) return {};
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
  // The order of singleMembership's own checks.
  const text = entry.version;
  if (text === undefined) return {};
  if (isAllVersions(text)) return { span: {} };
  if (isPlaceholderVersion(text)) return {};
  if (parseLineBound(text) || parseLenientConstraints(text)) return undefined;
  if (looksLikeRangeText(text)) return {};
  // A commit, or a text no order can place, holds only the release written the same way.
  if (graph || !isComparableVendorVersion(text)) return { text: plainVersion(text) };
  const key = readableKey(text);
  return key === undefined ? undefined : { span: { start: key, end: key }, text: plainVersion(text) };
}

const keyedCache = new WeakMap<AffectedCpes, KeyedList | null>();

function keyedList(entry: AffectedCpes): KeyedList | undefined {
  let keyed = keyedCache.get(entry);
  if (keyed === undefined) {
    const versions = entry.versions ?? [];
    // Without versions, the entry's CPE versions decide: only a full evaluation can tell.
    keyed = versions.length === 0 ? null : { entry, spans: [], texts: [] };
    for (const version of versions) {
      const placed = placeOf(version);
      if (!placed) {
        keyed = null;
        break;
      }
      if (placed.span) keyed!.spans.push(placed.span);
      if (placed.text !== undefined) keyed!.texts.push(placed.text);
    }
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
 * For names with the identity (part, vendor, product) of `name`, a concrete version when `name`
 * has one, and every attribute besides identity, version and update ANY when `name`'s are: the
 * keyed lists through which the CVE can confirm one, or undefined when only a full evaluation can tell (a configuration, an entry CPE with other attributes or a pattern
 * version, an NA version or an entry without versions for a name without a concrete one, a list
 * the vendor order cannot place, a CPE version without a sort key).
 * Entries that cannot confirm a release (commit ranges alone, `platforms`) are left out.
 */
export function keyedListsFor(app: CveApplicability, name: Wfn): KeyedList[] | undefined {
  const versioned = isConcrete(name.version);
  const plainName = extrasAreAny(name);
  const lists: KeyedList[] = [];
  const related = entriesNaming(app, name.product);
  for (const statement of app.statements) {
    if (statement.configurations.length > 0) return undefined;
    for (const entry of statement.affected) {
      if (related !== undefined && !related.has(entry)) continue;
      // `platforms` leave every match of the entry possible, never confirmed.
      if ((entry.platforms ?? []).length > 0) continue;
      let relates = false;
      for (const wfn of cpeShapesOf(entry)) {
        if (!identityCovers(wfn, name)) continue;
        // A not-applicable version never relates to a name with a concrete one (name-match.ts).
        if (wfn.version === NA && versioned) continue;
        const plainCpe = extrasAreAny(wfn);
        // An attribute the CPE sets and the name leaves ANY makes every match only possible (name-match.ts).
        if (!plainCpe && plainName) continue;
        if (!plainCpe || !(wfn.version === ANY || isConcrete(wfn.version))) return undefined;
        relates = true;
      }
      if (!relates || onlyCommitRanges(entry)) continue;
      const keyed = (entry.versions ?? []).length === 0 ? versionless(entry, name) : keyedList(entry);
      if (!keyed) return undefined;
      lists.push(keyed);
    }
  }
  return lists;
}

/**
 * An entry without `versions`, seen from names of `name`'s identity with a concrete version: a CPE
 * of the identity confirms only the version it names (raw, or with its update folded in), or
 * every version when its version is ANY and `defaultStatus` affected (name-match.ts,
 * entryVersionVerdict). Undefined for a name without a concrete version or a CPE version with no key.
 */
function versionless(entry: AffectedCpes, name: Wfn): KeyedList | undefined {
  if (!isConcrete(name.version)) return undefined;
  const list: KeyedList = { entry, spans: [], texts: [], byCpeVersions: true };
  for (const cpe of entry.cpes) {
    const wfn = parseCached(cpe);
    if (!wfn || !identityCovers(wfn, name) || wfn.version === NA) continue;
    if (wfn.version === ANY) {
      if (asStatus(entry.defaultStatus) === 'affected') list.spans.push({});
      continue;
    }
    const { raw, folded } = versionKeysOf(wfn);
    if (raw === undefined || folded === undefined) return undefined;
    list.spans.push({ start: raw, end: raw });
    if (folded !== raw) list.spans.push({ start: folded, end: folded });
  }
  return list;
}

/** Per CVE: its entries by the plain products their CPEs name, and those with a CPE of another product value. */
const entriesByProduct = new WeakMap<
  CveApplicability,
  { plain: Map<string, Set<AffectedCpes>>; open: AffectedCpes[] }
>();

/**
 * The entries with a CPE that may name `product` (a CVE lists tens of products, each asked
 * about): two different plain values never cover each other (compareAttribute). Undefined when
 * the name's product is not a plain value.
 */
function entriesNaming(app: CveApplicability, product: string): ReadonlySet<AffectedCpes> | undefined {
  const wanted = product.toLowerCase();
  if (!isPlainValue(wanted)) return undefined;
  let index = entriesByProduct.get(app);
  if (!index) {
    index = { plain: new Map(), open: [] };
    for (const statement of app.statements)
      for (const entry of statement.affected)
        for (const cpe of entry.cpes) {
          const value = parseCached(cpe)?.product.toLowerCase();
          if (value === undefined) continue;
          if (!isPlainValue(value)) index.open.push(entry);
          else {
            const entries = index.plain.get(value);
            if (entries) entries.add(entry);
            else index.plain.set(value, new Set([entry]));
          }
        }
    entriesByProduct.set(app, index);
  }
  const named = index.plain.get(wanted);
  if (index.open.length === 0) return named ?? NO_ENTRIES;
  return new Set([...(named ?? []), ...index.open]);
}

const NO_ENTRIES: ReadonlySet<AffectedCpes> = new Set();

const shapesCache = new WeakMap<AffectedCpes, Wfn[]>();

/**
 * An entry's CPEs, one per identity, version kind and extras (all keyedListsFor reads): vendors
 * list one product under hundreds of CPEs that differ only in version.
 */
function cpeShapesOf(entry: AffectedCpes): Wfn[] {
  let shapes = shapesCache.get(entry);
  if (!shapes) {
    const seen = new Set<string>();
    shapes = [];
    for (const cpe of entry.cpes) {
      const wfn = parseCached(cpe);
      if (!wfn) continue;
      const version = wfn.version === ANY || wfn.version === NA ? wfn.version : isConcrete(wfn.version) ? 'v' : 'p';
      const key = `${wfn.part}\u0000${wfn.vendor}\u0000${wfn.product}\u0000${version}\u0000${extrasAreAny(wfn)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      shapes.push(wfn);
    }
    shapesCache.set(entry, shapes);
  }
  return shapes;
}
