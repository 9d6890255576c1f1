import type { Slicer } from '../slices.js';
import type { TermGroups } from '../term-groups.js';
import type { FacetTerms } from './facet-terms.js';
import type { GroupFacetValues } from './group-values.js';
import {
  FACET_FIELDS,
  type FacetCounts,
  type FacetField,
  type FacetRequest,
  LIST_FIELD_BITS,
  LIST_FIELDS,
} from './fields.js';
import { scratchArrays, zeroedArrays as zeroed } from './scratch.js';
import { topValues } from './top-values.js';

/** What counting term fields reads of the host index. */
export interface TermSource {
  termGroups: TermGroups;
  terms: FacetTerms;
  /** Each group's facet values in one contiguous run. */
  values: GroupFacetValues;
  termLimit: number;
}

/**
 * Counts of term fields (values a record holds as terms: CVEs, fingerprint parts, classifications,
 * asn, country, protocol) over the matching records, from their count per term group
 * (tallyMatches). Records share term groups, so each group adds its count to each value it holds — a record counts once per distinct value, and work grows with the matches and the groups
 * they hold, not with the values × the matches.
 */
export async function countTermFields(
  source: TermSource,
  total: number,
  groupCounts: Uint32Array,
  requests: FacetRequest[],
  slicer: Slicer,
): Promise<Map<FacetField, FacetCounts>> {
  const tally: Tally = {
    terms: zeroed.take(source.termLimit),
    alone: zeroed.take(source.termLimit),
    withValue: new Float64Array(FACET_FIELDS.length),
    withOneValue: new Float64Array(FACET_FIELDS.length),
  };
  const inTop = zeroed.take(source.termLimit);
  // Typed lists, not arrays grown by push: growing those over a heap that holds an index was most of a count.
  const held: IdList = { ids: scratchArrays.take(source.termGroups.idLimit), length: 0 };
  const several: IdList = { ids: scratchArrays.take(source.termGroups.idLimit), length: 0 };
  const seen: IdList = { ids: scratchArrays.take(source.termLimit), length: 0 };
  /** Per term in `seen`, its field. */
  const seenFields = scratchArrays.take(source.termLimit);
  const sorted = scratchArrays.take(source.termLimit);
  // Arrays go back to the pool only when counting ran to its end, so that clearing is complete.
  let counted = false;
  try {
    const drops = source.values.drops;
    await countValues(source, requests, groupCounts, tally, seen, seenFields, held, several, slicer);
    const valuesOf = byField(seen, seenFields, sorted);
    const result = new Map<FacetField, FacetCounts>();
    const outsideTop = new Uint8Array(FACET_FIELDS.length);
    for (const { field, top } of requests) {
      const at = FACET_FIELDS.indexOf(field);
      const values = valuesOf[at]!;
      const chosen = topValues(
        field,
        values.length,
        top,
        (i) => tally.terms[values[i]!]!,
        (i) => source.terms.valueOfTerm(values[i]!),
      );
      for (const i of chosen.indexes) inTop[values[i]!] = 1;
      const shown = chosen.values.reduce((sum, value) => sum + value.count, 0);
      let other = 0;
      if (!LIST_FIELDS.has(field)) {
        // A record holds one value of a place field, so the records outside the top are the rest.
        other = tally.withValue[at]! - shown;
      } else if (values.length > top) {
        // Records with one value of the field are outside the top unless that value is in it.
        other = tally.withOneValue[at]!;
        for (const i of chosen.indexes) other -= tally.alone[values[i]!]!;
        outsideTop[at] = 1;
      }
      result.set(field, { values: chosen.values, missing: total - tally.withValue[at]!, other });
      await slicer.yieldIfDue();
    }
    if (outsideTop.includes(1)) {
      const other = await recordsOutsideTop(source, groupCounts, several, inTop, outsideTop, drops, slicer);
      for (const [field, counts] of result) {
        const at = FACET_FIELDS.indexOf(field);
        if (outsideTop[at] === 1) counts.other += other[at]!;
      }
    }
    counted = true;
    return result;
  } finally {
    if (counted) {
      clear(seen, held, tally, inTop, groupCounts);
      zeroed.give(tally.terms);
      zeroed.give(tally.alone);
      zeroed.give(inTop);
      zeroed.give(groupCounts);
    }
    for (const array of [held.ids, several.ids, seen.ids, seenFields, sorted]) scratchArrays.give(array);
  }
}

/** What counting the held groups' values adds up. */
interface Tally {
  /** Per term, the matching records holding it. */
  terms: Uint32Array;
  /** Per term, the matching records holding it as their only value of its field. */
  alone: Uint32Array;
  /** Per field, the matching records holding a value of it. */
  withValue: Float64Array;
  /** Per field, the matching records holding exactly one value of it. */
  withOneValue: Float64Array;
}

/** Ids in a pooled array: the first `length` slots. */
interface IdList {
  ids: Uint32Array;
  length: number;
}

/** The counted terms split by field: a view per field into `sorted`, in the order first counted. */
function byField(seen: IdList, fieldOf: Uint32Array, sorted: Uint32Array): Uint32Array[] {
  const starts = new Uint32Array(FACET_FIELDS.length + 1);
  for (let i = 0; i < seen.length; i++) starts[fieldOf[i]! + 1]!++;
  for (let field = 0; field < FACET_FIELDS.length; field++) starts[field + 1]! += starts[field]!;
  const next = starts.slice(0, FACET_FIELDS.length);
  for (let i = 0; i < seen.length; i++) sorted[next[fieldOf[i]!]!++] = seen.ids[i]!;
  return FACET_FIELDS.map((_, field) => sorted.subarray(starts[field]!, starts[field + 1]!));
}

/** Groups worked through between checks of the slice's clock. */
const GROUP_STEP = 4096;

/**
 * Adds each held group's record count to each value it holds (once per distinct value: several
 * fingerprint terms may name one CPE), and to `alone` for a list field's only value in the group;
 * lists in `several` the groups holding more than one value of a list field.
 */
async function countValues(
  source: TermSource,
  requests: FacetRequest[],
  groupCounts: Uint32Array,
  tally: Tally,
  seen: IdList,
  seenFields: Uint32Array,
  held: IdList,
  several: IdList,
  slicer: Slicer,
): Promise<void> {
  const wanted = new Uint8Array(FACET_FIELDS.length);
  for (const { field } of requests) wanted[FACET_FIELDS.indexOf(field)] = 1;
  const limit = source.termGroups.idLimit;
  for (let from = 1; from < limit; from += GROUP_STEP) {
    const to = Math.min(limit, from + GROUP_STEP);
    countGroupValues(source, from, to, wanted, groupCounts, tally, seen, seenFields, held, several);
    await slicer.yieldIfDue();
  }
}

/** countValues for the groups in [from, to): synchronous, so the engine optimises its loop. */
function countGroupValues(
  { values }: TermSource,
  from: number,
  to: number,
  wanted: Uint8Array,
  groupCounts: Uint32Array,
  { terms: termCounts, alone, withValue, withOneValue }: Tally,
  seen: IdList,
  seenFields: Uint32Array,
  held: IdList,
  several: IdList,
): void {
  const seenIds = seen.ids;
  const heldIds = held.ids;
  const severalIds = several.ids;
  let seenLength = seen.length;
  let heldLength = held.length;
  let severalLength = several.length;
  /** Per field, the last term of it the group holds. */
  const lastOf = new Uint32Array(FACET_FIELDS.length);
  for (let group = from; group < to; group++) {
    const count = groupCounts[group]!;
    if (count === 0) continue;
    heldIds[heldLength++] = group;
    values.prepare(group);
    const termIds = values.termIds;
    const fields = values.fields;
    let fieldsHeld = 0;
    let fieldsRepeated = 0;
    for (let at = values.startOf(group), end = values.endOf(group); at < end; at++) {
      const field = fields[at]!;
      if (wanted[field] === 0) continue;
      const counted = termIds[at]!;
      if (termCounts[counted] === 0) {
        seenFields[seenLength] = field;
        seenIds[seenLength++] = counted;
      }
      termCounts[counted]! += count;
      const bit = 1 << field;
      fieldsRepeated |= fieldsHeld & bit;
      fieldsHeld |= bit;
      lastOf[field] = counted;
    }
    const once = fieldsHeld & ~fieldsRepeated & LIST_FIELD_BITS;
    if ((fieldsRepeated & LIST_FIELD_BITS) !== 0) severalIds[severalLength++] = group;
    for (let field = 0, bits = fieldsHeld; bits !== 0; field++, bits >>>= 1) {
      if ((bits & 1) === 0) continue;
      withValue[field]! += count;
      if ((once >>> field) & 1) {
        withOneValue[field]! += count;
        alone[lastOf[field]!]! += count;
      }
    }
  }
  seen.length = seenLength;
  held.length = heldLength;
  several.length = severalLength;
}

/**
 * Per field marked in `fields`, the matching records of `groups` holding a value of it outside
 * the top, counting only the fields a group holds several values of (the others are counted from
 * `alone`).
 */
async function recordsOutsideTop(
  source: TermSource,
  groupCounts: Uint32Array,
  groups: IdList,
  inTop: Uint32Array,
  fields: Uint8Array,
  drops: number,
  slicer: Slicer,
): Promise<Float64Array> {
  const other = new Float64Array(FACET_FIELDS.length);
  for (let from = 0; from < groups.length; from += GROUP_STEP) {
    const to = Math.min(groups.length, from + GROUP_STEP);
    // Runs are made again only if another count dropped them since this one began.
    countOutsideTop(source, groups.ids, from, to, groupCounts, inTop, fields, other, source.values.drops !== drops);
    await slicer.yieldIfDue();
  }
  return other;
}

/** recordsOutsideTop for groups[from, to): synchronous, so the engine optimises its loop. */
function countOutsideTop(
  { values }: TermSource,
  groups: Uint32Array,
  from: number,
  to: number,
  groupCounts: Uint32Array,
  inTop: Uint32Array,
  outside: Uint8Array,
  other: Float64Array,
  remake: boolean,
): void {
  for (let g = from; g < to; g++) {
    const group = groups[g]!;
    if (remake) values.prepare(group);
    const termIds = values.termIds;
    const fields = values.fields;
    let fieldsHeld = 0;
    let fieldsRepeated = 0;
    let fieldsOutside = 0;
    for (let at = values.startOf(group), end = values.endOf(group); at < end; at++) {
      const field = fields[at]!;
      if (outside[field] === 0) continue;
      const bit = 1 << field;
      fieldsRepeated |= fieldsHeld & bit;
      fieldsHeld |= bit;
      if (inTop[termIds[at]!] === 0) fieldsOutside |= bit;
    }
    for (let field = 0, bits = fieldsOutside & fieldsRepeated; bits !== 0; field++, bits >>>= 1) {
      if (bits & 1) other[field]! += groupCounts[group]!;
    }
  }
}

/** Sets back to zero what counting set in the pooled arrays. */
function clear(seen: IdList, held: IdList, tally: Tally, inTop: Uint32Array, groupCounts: Uint32Array): void {
  for (let i = 0; i < seen.length; i++) {
    const term = seen.ids[i]!;
    tally.terms[term] = tally.alone[term] = inTop[term] = 0;
  }
  for (let i = 0; i < held.length; i++) groupCounts[held.ids[i]!] = 0;
  groupCounts[0] = 0;
}
