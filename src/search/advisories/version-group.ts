/**
 * The version structure of one group of match items (the affected entries and criteria of one
 * product, package or platform-free set): per version class the sorted boundaries and a
 * stabbing structure of the items `affected` between them, the items affected whatever the
 * version, and the few items decided per query by the reference rules. Built from a snapshot of
 * the group's members; members added since are decided by the reference, removed ones masked.
 */
import { criterionCoversVersion, insideRange } from '../../core/advisory/cpe-match.js';
import type { MatchCriterion, MatchEntry } from '../../core/advisory/facts.js';
import { isAffected } from '../../core/advisory/version-match.js';
import { quoteWfnValue } from '../../core/cpe.js';
import { isComparableVendorVersion } from '../../core/version/vendor.js';
import { RoaringBitmap32, type Bitmap } from '../bitmap.js';
import type { CriterionRule } from './criterion-rule.js';
import { insideBounds } from './criterion-rule.js';
import { affectedAt, plainSpelling, type EntryRule } from './entry-rule.js';
import { SortedBoundaries, Stabbing, type StabbingInput } from './stabbing.js';
import { versionSortKey } from '../../core/version/sort-key.js';
import { compareIn, exactIn, orderIn, rpmHead, type VersionClass } from './version-classes.js';
import { type Slicer, sortInSlices } from '../slices.js';

/** What a group reads about its items. */
export interface ItemSource {
  /** Whether the item is still held (a build reads a snapshot while records change). */
  has(item: number): boolean;
  isCriterion(item: number): boolean;
  entry(item: number): MatchEntry;
  criterion(item: number): MatchCriterion;
  /** Compiled for each build that reads it (rules are not kept: they would outweigh the structures). */
  entryRule(item: number): EntryRule;
  criterionRule(item: number): CriterionRule;
}

/** Entries with a single version of one spelling, placed in `cls` at `text` (or not placed). */
interface SpelledEntries {
  cls?: VersionClass;
  text?: string;
  items: number[];
}

interface ClassStructure {
  tree: Stabbing;
  /** Items affected when V is not exact in the class. */
  whenInexact: Bitmap;
  /** Every item of the class, for the rare V that is exact only against some boundaries (rpm). */
  items: number[];
}

export interface GroupStructure {
  /** The members it was built from. */
  members: Bitmap;
  entryClasses: Map<VersionClass, ClassStructure>;
  entriesAlways: Bitmap;
  entriesEvaluated: number[];
  /**
   * Entries holding a single version of this spelling: decided by the reference when V is spelled
   * so, unless the placed version equals V in the class order (then the structure agrees).
   */
  bySpelling: Map<string, Map<string, SpelledEntries>>;
  /** Criteria with version ANY, by their bounds on the vendor order (no bounds: `criteriaEveryVersion`). */
  criteriaRanges: Stabbing | undefined;
  criteriaEveryVersion: Bitmap;
  /** Criteria that stand for their own product (criterionCoversVersion's identity test). */
  criteriaSelfCompatible: Bitmap;
  criteriaByVersion: Map<string, number[]>;
  criteriaEvaluated: number[];
  /** Of those, the ones whose range the `cpe` query's check evaluates (their version is ANY). */
  criteriaEvaluatedRanges: number[];
  /** How long the build took, ms. */
  buildMs: number;
}

const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

async function classStructure(cls: VersionClass, inputs: StabbingInput[], slices: Slicer): Promise<Stabbing> {
  const distinct = new Set<string>();
  for (const input of inputs) {
    for (const text of input.boundaries) distinct.add(text);
    await slices.tick();
  }
  const texts = [...distinct];
  // The vendor order is the order of sort keys: each computed once, not once per comparison.
  let keyOf: ((text: string) => string) | undefined;
  if (cls === 'vendor') {
    const keys = new Map<string, string>();
    for (const text of texts) {
      keys.set(text, versionSortKey(text)!);
      await slices.tick();
    }
    keyOf = (text) => keys.get(text)!;
  }
  const compare = keyOf
    ? (a: string, b: string) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0)
    : (a: string, b: string) => orderIn(cls, a, b);
  const sorted = await sortInSlices(texts, compare, slices);
  const tree = new Stabbing(await SortedBoundaries.of(cls, sorted, keyOf, () => slices.tick()));
  for (const input of inputs) {
    tree.add(input);
    await slices.tick();
  }
  await tree.freeze(() => slices.tick());
  return tree;
}

/** `slices` is shared by every build of an index, so that many small builds in a row yield too. */
export async function buildGroup(members: Bitmap, source: ItemSource, slices: Slicer): Promise<GroupStructure> {
  const started = performance.now();
  const entryInputs = new Map<VersionClass, { inputs: StabbingInput[]; inexact: number[] }>();
  const structure: GroupStructure = {
    members,
    entryClasses: new Map(),
    entriesAlways: new RoaringBitmap32(),
    entriesEvaluated: [],
    bySpelling: new Map(),
    criteriaRanges: undefined,
    criteriaEveryVersion: new RoaringBitmap32(),
    criteriaSelfCompatible: new RoaringBitmap32(),
    criteriaByVersion: new Map(),
    criteriaEvaluated: [],
    criteriaEvaluatedRanges: [],
    buildMs: 0,
  };
  const criteriaInputs: StabbingInput[] = [];
  for (const item of members) {
    await slices.tick();
    if (!source.has(item)) continue;
    if (source.isCriterion(item)) {
      const rule = source.criterionRule(item);
      if (rule.selfCompatible) structure.criteriaSelfCompatible.add(item);
      const version = rule.version;
      if (version.kind === 'concrete') push(structure.criteriaByVersion, version.key, item);
      else if (version.kind === 'evaluate' || version.kind === 'evaluateRange') {
        structure.criteriaEvaluated.push(item);
        if (version.kind === 'evaluateRange') structure.criteriaEvaluatedRanges.push(item);
      } else if (version.kind === 'any' && version.bounds?.length === 0) structure.criteriaEveryVersion.add(item);
      else if (version.kind === 'any' && version.bounds) {
        const bounds = version.bounds;
        criteriaInputs.push({
          item,
          boundaries: bounds.map(([, text]) => text),
          holds: (o) => insideBounds(bounds, o),
        });
      }
      continue;
    }
    const rule = source.entryRule(item);
    if (rule.kind === 'never' || rule.kind === 'ordered') {
      for (const { spelling, cls, text } of rule.spellings) {
        let byPlace = structure.bySpelling.get(spelling);
        if (!byPlace) {
          byPlace = new Map();
          structure.bySpelling.set(spelling, byPlace);
        }
        const place = cls === undefined ? '' : `${cls}\u0000${text}`;
        const spelled = byPlace.get(place);
        if (!spelled) byPlace.set(place, { ...(cls !== undefined ? { cls, text } : {}), items: [item] });
        else if (spelled.items[spelled.items.length - 1] !== item) spelled.items.push(item);
      }
    }
    if (rule.kind === 'always') structure.entriesAlways.add(item);
    else if (rule.kind === 'evaluate') structure.entriesEvaluated.push(item);
    else if (rule.kind === 'ordered') {
      let forClass = entryInputs.get(rule.cls);
      if (!forClass) {
        forClass = { inputs: [], inexact: [] };
        entryInputs.set(rule.cls, forClass);
      }
      forClass.inputs.push({ item, boundaries: rule.boundaries, holds: (orderOf) => affectedAt(rule, orderOf) });
      if (rule.whenInexact) forClass.inexact.push(item);
    }
  }
  for (const [cls, { inputs, inexact }] of entryInputs) {
    structure.entryClasses.set(cls, {
      tree: await classStructure(cls, inputs, slices),
      whenInexact: new RoaringBitmap32(inexact),
      items: inputs.map((input) => input.item),
    });
  }
  if (criteriaInputs.length > 0) structure.criteriaRanges = await classStructure('vendor', criteriaInputs, slices);
  structure.buildMs = performance.now() - started;
  return structure;
}

/**
 * An rpm V whose head equals a boundary's head, one of the two without a release: that comparison
 * is a guess (compare.ts), so the class is decided by the reference for this V.
 */
function rpmGuessed(tree: Stabbing, version: string, position: number): boolean {
  const texts = tree.boundaries.texts;
  const head = rpmHead(version);
  const sameHead = (i: number) => compareIn('rpm', head, rpmHead(texts[i]!))?.order === 0;
  const guessed = (i: number) => compareIn('rpm', version, texts[i]!)?.confidence !== 'exact';
  for (let i = (position - 1) >> 1; i >= 0 && sameHead(i); i--) if (guessed(i)) return true;
  for (let i = position >> 1; i < texts.length && sameHead(i); i++) if (guessed(i)) return true;
  return false;
}

/** The structure's entries affected at V, for members still held and not since replaced. */
export function entriesAffected(structure: GroupStructure, source: ItemSource, version: string): Bitmap {
  const out = new RoaringBitmap32();
  if (!isComparableVendorVersion(version)) return out;
  out.orInPlace(structure.entriesAlways);
  const decide = (item: number) => {
    if (source.has(item) && isAffected(version, source.entry(item))) out.add(item);
    else out.remove(item);
  };
  for (const [cls, { tree, whenInexact, items }] of structure.entryClasses) {
    if (!exactIn(cls, version)) {
      out.orInPlace(whenInexact);
      continue;
    }
    const position = tree.boundaries.position(version);
    if (cls === 'rpm' && rpmGuessed(tree, version, position)) for (const item of items) decide(item);
    else tree.stab(position, out);
  }
  for (const item of structure.entriesEvaluated) decide(item);
  for (const { cls, text, items } of structure.bySpelling.get(plainSpelling(version))?.values() ?? []) {
    const agrees = cls !== undefined && exactIn(cls, version) && orderIn(cls, version, text!) === 0;
    if (!agrees) for (const item of items) decide(item);
  }
  return out;
}

/** The structure's criteria whose bounds hold V (the `cpe` query's check of a version-ANY criterion). */
export function criteriaInside(structure: GroupStructure, source: ItemSource, version: string): Bitmap {
  const out = structure.criteriaEveryVersion.clone();
  if (structure.criteriaRanges && exactIn('vendor', version)) {
    structure.criteriaRanges.stab(structure.criteriaRanges.boundaries.position(version), out);
  }
  for (const item of structure.criteriaEvaluatedRanges) {
    if (source.has(item) && insideRange(source.criterion(item).range)(version)) out.add(item);
  }
  return out;
}

/** The structure's criteria that cover V for the `version` filter (criterionCoversVersion). */
export function criteriaCovering(structure: GroupStructure, source: ItemSource, version: string): Bitmap {
  try {
    quoteWfnValue(version);
  } catch {
    return new RoaringBitmap32();
  }
  const out = structure.criteriaEveryVersion.clone();
  if (structure.criteriaRanges && exactIn('vendor', version)) {
    structure.criteriaRanges.stab(structure.criteriaRanges.boundaries.position(version), out);
  }
  out.andInPlace(structure.criteriaSelfCompatible);
  const verify = (item: number) => {
    if (source.has(item) && criterionCoversVersion(source.criterion(item), version)) out.add(item);
  };
  for (const item of structure.criteriaByVersion.get(version.toLowerCase()) ?? []) verify(item);
  for (const item of structure.criteriaEvaluated) verify(item);
  return out;
}
