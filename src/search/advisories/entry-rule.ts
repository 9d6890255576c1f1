/**
 * An affected entry's `version` rule (version-match.ts `isAffected`, the CVE 5 algorithm of
 * cve5-affected.ts) compiled for placing on sorted boundaries. For a queried version V that is
 * exact in the entry's class and not spelled like one of the entry's single versions, the answer
 * depends only on where V falls among the entry's boundaries, so it is computed here once per
 * elementary position. Entries whose answer cannot be placed so (line bounds such as `2.*`, several
 * version classes, values that are not strings) are `evaluate`: decided per query by isAffected.
 */
import type { MatchEntry } from '../../core/advisory/facts.js';
import type { Cve5VersionEntry } from '../../core/version/cve5-affected.js';
import type { Order } from '../../core/version/comparison.js';
import { isKnownVersionType } from '../../core/version/compare.js';
import { looksLikeRangeText, parseLenientConstraints } from '../../core/version/lenient.js';
import { parseLineBound } from '../../core/version/line-bound.js';
import { isAllVersions, isPlaceholderVersion } from '../../core/version/placeholders.js';
import { classOfType, compareIn, exactIn, type VersionClass } from './version-classes.js';

type Status = 'affected' | 'unaffected' | 'unknown';

interface Change {
  at: string;
  status: Status;
}

/** One `versions[]` item, as far as a V exact in the class and not spelled like a single version sees it. */
type Item =
  /** Every such V that reaches it gets a guessed answer: nothing after it can be exact. */
  | { kind: 'poison' }
  | { kind: 'single'; at: string; status: Status; changes: Change[] | undefined }
  | {
      kind: 'range';
      /** `undefined`: the lower bound `0`. */
      from: string | undefined;
      /** `undefined`: the upper bound `*`. */
      to: string | undefined;
      inclusive: boolean;
      status: Status;
      /** Sorted as the reference sorts them; `undefined` when that order is not exact. */
      changes: Change[] | undefined;
    };

export type EntryRule =
  | { kind: 'never'; spellings: Spelling[] }
  /** Affected for every comparable version (no `versions`, `defaultStatus: affected`). */
  | { kind: 'always' }
  | { kind: 'evaluate' }
  | {
      kind: 'ordered';
      cls: VersionClass;
      spellings: Spelling[];
      items: Item[];
      defaultAffected: boolean;
      /** Every version text the answer depends on (bounds and change points). */
      boundaries: string[];
      /** The answer for a V that is not exact in the class (every comparison is then a guess). */
      whenInexact: boolean;
    };

const asStatus = (status: unknown): Status => (status === 'affected' || status === 'unaffected' ? status : 'unknown');

/** How singleMembership compares a single version with V as text: trimmed, lower-case, without a leading v. */
export const plainSpelling = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/^v(?=\d)/, '');

/**
 * A single version V may equal as text: such a V is `affected` there without any comparison. When
 * the item is placed (`cls`, `text`) the structure agrees for every V exact in the class and equal
 * to `text` in order; any other V spelled so is decided by the reference.
 */
export interface Spelling {
  spelling: string;
  cls?: VersionClass;
  text?: string;
}

/** Raised while compiling: the entry has to be evaluated per query. */
class NotPlaceable extends Error {}

const isString = (value: unknown): value is string => typeof value === 'string';

/** A comparison bound: exact in the class, and one version (no operators or lists). */
const usableBound = (cls: VersionClass, text: string) => !/[<>=,;|]/.test(text) && exactIn(cls, text);

function compileChanges(cls: VersionClass, raw: unknown): Change[] | undefined {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new NotPlaceable();
  const changes = raw as Array<{ at?: unknown; status?: unknown }>;
  if (changes.length === 0) return [];
  if (changes.some((change) => typeof change !== 'object' || change === null || !isString(change.at)))
    throw new NotPlaceable();
  if (changes.some((change) => !exactIn(cls, change.at as string))) return undefined;
  // The reference sorts with compareVersions; one guessed step there makes every answer a guess.
  let exact = true;
  const sorted = [...changes].sort((a, b) => {
    const comparison = compareIn(cls, a.at as string, b.at as string);
    if (comparison?.confidence !== 'exact') exact = false;
    return comparison?.order ?? 0;
  });
  return exact ? sorted.map((change) => ({ at: change.at as string, status: asStatus(change.status) })) : undefined;
}

/** The class an item compares in, or poison; throws when it cannot be placed at all. */
function compileItem(raw: unknown): { item: Item; cls?: VersionClass } {
  if (typeof raw !== 'object' || raw === null) throw new NotPlaceable();
  const entry = raw as Record<string, unknown>;
  const { version, lessThan, lessThanOrEqual, versionType } = entry;
  if (versionType !== undefined && !isString(versionType)) throw new NotPlaceable();
  if (version !== undefined && !isString(version)) throw new NotPlaceable();
  const isRange = lessThan !== undefined || lessThanOrEqual !== undefined;
  const poison = { item: { kind: 'poison' } as Item };
  if (!isRange) {
    if (version === undefined) return poison;
    if (isAllVersions(version) || isPlaceholderVersion(version) || parseLineBound(version)) return poison;
    if (parseLenientConstraints(version) || looksLikeRangeText(version)) return poison;
    const cls = classOfType(versionType);
    if (!cls || !usableBound(cls, version)) return poison;
    const changes = compileChanges(cls, entry.changes);
    return { item: { kind: 'single', at: version, status: asStatus(entry.status), changes }, cls };
  }
  if (lessThan !== undefined && lessThanOrEqual !== undefined) return poison;
  const upper = lessThan ?? lessThanOrEqual;
  if (!isString(upper)) throw new NotPlaceable();
  const cls = classOfType(versionType);
  if (!cls || !isKnownVersionType(versionType)) return poison;
  const lower = version ?? '';
  let from: string | undefined;
  if (lower.trim() !== '0') {
    if (isPlaceholderVersion(lower) || isAllVersions(lower) || !usableBound(cls, lower)) return poison;
    from = lower;
  }
  let to: string | undefined;
  if (upper.trim() !== '*') {
    if (parseLineBound(upper)) throw new NotPlaceable();
    if (!usableBound(cls, upper)) return poison;
    to = upper;
  }
  const changes = compileChanges(cls, entry.changes);
  const item: Item = {
    kind: 'range',
    from,
    to,
    inclusive: lessThan === undefined,
    status: asStatus(entry.status),
    changes,
  };
  return { item, cls };
}

const NEVER: EntryRule = { kind: 'never', spellings: [] };

/** The spellings of the single versions a V can reach (up to the first guessed item). */
function spellingsOf(raw: unknown[], items: Item[], cls: VersionClass | undefined): Spelling[] {
  const out: Spelling[] = [];
  for (let i = 0; i < items.length; i++) {
    const source = raw[i] as Cve5VersionEntry;
    const isRange = source.lessThan !== undefined || source.lessThanOrEqual !== undefined;
    if (isRange || typeof source.version !== 'string') continue;
    const item = items[i]!;
    const spelling = plainSpelling(source.version);
    out.push(item.kind === 'single' && cls !== undefined ? { spelling, cls, text: item.at } : { spelling });
  }
  return out;
}

function compile(entry: MatchEntry): EntryRule {
  if (!entry.versions && entry.defaultStatus === undefined) return NEVER;
  const raw: unknown = entry.versions ?? [];
  if (!Array.isArray(raw)) return { kind: 'evaluate' };
  const defaultAffected = entry.defaultStatus === 'affected';
  const items: Item[] = [];
  let cls: VersionClass | undefined;
  try {
    for (const versionItem of raw) {
      const compiled = compileItem(versionItem);
      if (compiled.cls) {
        if (cls !== undefined && cls !== compiled.cls) return { kind: 'evaluate' };
        cls = compiled.cls;
      }
      items.push(compiled.item);
      if (compiled.item.kind === 'poison') break;
    }
  } catch (error) {
    if (error instanceof NotPlaceable) return { kind: 'evaluate' };
    throw error;
  }
  const spellings = spellingsOf(raw, items, cls);
  if (items[0]?.kind === 'poison') return { kind: 'never', spellings };
  if (cls === undefined)
    return items.length === 0 && defaultAffected ? { kind: 'always' } : { kind: 'never', spellings };
  const boundaries = new Set<string>();
  for (const item of items) {
    if (item.kind === 'single') boundaries.add(item.at);
    if (item.kind === 'range') {
      if (item.from !== undefined) boundaries.add(item.from);
      if (item.to !== undefined) boundaries.add(item.to);
    }
    if (item.kind !== 'poison') for (const change of item.changes ?? []) boundaries.add(change.at);
  }
  return {
    kind: 'ordered',
    cls,
    spellings,
    items,
    defaultAffected,
    boundaries: [...boundaries],
    whenInexact: affectedWhenInexact(items),
  };
}

/** Rules by the entry's version content: records repeat the same rules many times over. */
const compiled = new Map<string, EntryRule>();
const COMPILED_MAX = 20_000;
/** Longer version lists (a kernel's hundreds of versions) are rare and compiled each time. */
const KEY_MAX = 2_000;

export function compileEntry(entry: MatchEntry): EntryRule {
  let key: string;
  try {
    key = JSON.stringify([entry.versions, entry.defaultStatus]);
  } catch {
    return compile(entry);
  }
  if (key.length > KEY_MAX) return compile(entry);
  let rule = compiled.get(key);
  if (!rule) {
    rule = compile(entry);
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(key, rule);
  }
  return rule;
}

/**
 * The answer at a position: `orderOf(text)` is the order of V against a boundary text. Mirrors
 * affectedStatus for a V whose every comparison is exact: the first item containing V decides,
 * a guessed item (poison) on the way makes the answer a guess.
 */
export function affectedAt(rule: EntryRule & { kind: 'ordered' }, orderOf: (text: string) => Order): boolean {
  for (const item of rule.items) {
    if (item.kind === 'poison') return false;
    let inside: boolean;
    if (item.kind === 'single') inside = orderOf(item.at) === 0;
    else {
      const above = item.from === undefined || orderOf(item.from) >= 0;
      const below = item.to === undefined || (item.inclusive ? orderOf(item.to) <= 0 : orderOf(item.to) < 0);
      inside = above && below;
    }
    if (!inside) continue;
    if (!item.changes) return false;
    let status = item.status;
    for (const change of item.changes) if (orderOf(change.at) >= 0) status = change.status;
    return status === 'affected';
  }
  return rule.defaultAffected;
}

/** A V inexact in the class: only a `0`…`*` range without changes decides without comparing. */
function affectedWhenInexact(items: Item[]): boolean {
  const first = items[0];
  return (
    first?.kind === 'range' &&
    first.from === undefined &&
    first.to === undefined &&
    first.changes?.length === 0 &&
    first.status === 'affected'
  );
}
