import type { GrowableColumn } from '../columns.js';
import type { Slicer } from '../slices.js';
import type { TermGroups } from '../term-groups.js';
import type { FacetTerms } from './facet-terms.js';
import type { GroupFacetValues } from './group-values.js';
import { FACET_FIELDS, type FacetCounts, type FacetField, type FacetRequest } from './fields.js';
import { scratchArrays, zeroedArrays as zeroed } from './scratch.js';
import { topValues } from './top-values.js';

/** What counting term fields reads of the host index. */
export interface TermSource {
  termGroups: TermGroups;
  /** Per record, its group of list terms (CVEs, fingerprints, classifications) and of place terms. */
  listGroup: GrowableColumn<Uint32Array>;
  placeGroup: GrowableColumn<Uint32Array>;
  terms: FacetTerms;
  /** Each group's facet values in one contiguous run. */
  values: GroupFacetValues;
  termLimit: number;
}

const LIST_FIELDS: ReadonlySet<FacetField> = new Set(['vendor', 'product', 'version', 'cpe', 'cve', 'classifications']);
/** Ids tallied between checks of the slice's clock. */
const CHUNK = 65_536;

/**
 * Counts of term fields (values a record holds as terms: CVEs, fingerprint parts, classifications,
 * asn, country, protocol) over the matching records. Records share term groups, so one pass over
 * the matching ids counts records per group, and each group then adds its count to each value it
 * holds — a record counts once per distinct value, and work grows with the matches and the groups
 * they hold, not with the values × the matches.
 */
export async function countTermFields(
  source: TermSource,
  matching: Uint32Array,
  requests: FacetRequest[],
  slicer: Slicer,
): Promise<Map<FacetField, FacetCounts>> {
  const total = matching.length;
  const groupCounts = await recordsPerGroup(source, matching, requests, slicer);
  const termCounts = zeroed.take(source.termLimit);
  const inTop = zeroed.take(source.termLimit);
  // Typed lists, not arrays grown by push: growing those over a heap that holds an index was most of a count.
  const held: IdList = { ids: scratchArrays.take(source.termGroups.idLimit), length: 0 };
  const seen: IdList = { ids: scratchArrays.take(source.termLimit), length: 0 };
  /** Per term in `seen`, its field. */
  const seenFields = scratchArrays.take(source.termLimit);
  const sorted = scratchArrays.take(source.termLimit);
  // Arrays go back to the pool only when counting ran to its end, so that clearing is complete.
  let counted = false;
  try {
    const drops = source.values.drops;
    const withValue = await countValues(source, requests, groupCounts, termCounts, seen, seenFields, held, slicer);
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
        (i) => termCounts[values[i]!]!,
        (i) => source.terms.valueOfTerm(values[i]!),
      );
      for (const i of chosen.indexes) inTop[values[i]!] = 1;
      const shown = chosen.values.reduce((sum, value) => sum + value.count, 0);
      // A record holds one value of a place field, so the records outside the top are the rest.
      const other = LIST_FIELDS.has(field) ? 0 : withValue[at]! - shown;
      if (LIST_FIELDS.has(field) && values.length > top) outsideTop[at] = 1;
      result.set(field, { values: chosen.values, missing: total - withValue[at]!, other });
      await slicer.yieldIfDue();
    }
    if (outsideTop.includes(1)) {
      const other = await recordsOutsideTop(source, groupCounts, held, inTop, outsideTop, drops, slicer);
      for (const [field, counts] of result) {
        const at = FACET_FIELDS.indexOf(field);
        if (outsideTop[at] === 1) counts.other = other[at]!;
      }
    }
    counted = true;
    return result;
  } finally {
    if (counted) {
      clear(seen, held, termCounts, inTop, groupCounts);
      zeroed.give(termCounts);
      zeroed.give(inTop);
      zeroed.give(groupCounts);
    }
    for (const array of [held.ids, seen.ids, seenFields, sorted]) scratchArrays.give(array);
  }
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
 * fingerprint terms may name one CPE); returns, per field, the records holding any value of it.
 */
async function countValues(
  source: TermSource,
  requests: FacetRequest[],
  groupCounts: Uint32Array,
  termCounts: Uint32Array,
  seen: IdList,
  seenFields: Uint32Array,
  held: IdList,
  slicer: Slicer,
): Promise<Float64Array> {
  const wanted = new Uint8Array(FACET_FIELDS.length);
  for (const { field } of requests) wanted[FACET_FIELDS.indexOf(field)] = 1;
  const withValue = new Float64Array(FACET_FIELDS.length);
  const limit = source.termGroups.idLimit;
  for (let from = 1; from < limit; from += GROUP_STEP) {
    const to = Math.min(limit, from + GROUP_STEP);
    countGroupValues(source, from, to, wanted, groupCounts, termCounts, seen, seenFields, held, withValue);
    await slicer.yieldIfDue();
  }
  return withValue;
}

/** countValues for the groups in [from, to): synchronous, so the engine optimises its loop. */
function countGroupValues(
  { values }: TermSource,
  from: number,
  to: number,
  wanted: Uint8Array,
  groupCounts: Uint32Array,
  termCounts: Uint32Array,
  seen: IdList,
  seenFields: Uint32Array,
  held: IdList,
  withValue: Float64Array,
): void {
  const seenIds = seen.ids;
  const heldIds = held.ids;
  let seenLength = seen.length;
  let heldLength = held.length;
  for (let group = from; group < to; group++) {
    const count = groupCounts[group]!;
    if (count === 0) continue;
    heldIds[heldLength++] = group;
    values.prepare(group);
    const termIds = values.termIds;
    const fields = values.fields;
    let fieldsHeld = 0;
    for (let at = values.startOf(group), end = values.endOf(group); at < end; at++) {
      const field = fields[at]!;
      if (wanted[field] === 0) continue;
      const counted = termIds[at]!;
      if (termCounts[counted] === 0) {
        seenFields[seenLength] = field;
        seenIds[seenLength++] = counted;
      }
      termCounts[counted]! += count;
      fieldsHeld |= 1 << field;
    }
    for (let field = 0; fieldsHeld !== 0; field++, fieldsHeld >>>= 1) if (fieldsHeld & 1) withValue[field]! += count;
  }
  seen.length = seenLength;
  held.length = heldLength;
}

/** Per field marked in `fields`, the matching records holding a value of it outside the top. */
async function recordsOutsideTop(
  source: TermSource,
  groupCounts: Uint32Array,
  held: IdList,
  inTop: Uint32Array,
  fields: Uint8Array,
  drops: number,
  slicer: Slicer,
): Promise<Float64Array> {
  const other = new Float64Array(FACET_FIELDS.length);
  for (let from = 0; from < held.length; from += GROUP_STEP) {
    const to = Math.min(held.length, from + GROUP_STEP);
    // Runs are made again only if another count dropped them since this one began.
    countOutsideTop(source, held.ids, from, to, groupCounts, inTop, fields, other, source.values.drops !== drops);
    await slicer.yieldIfDue();
  }
  return other;
}

/** recordsOutsideTop for heldGroups[from, to): synchronous, so the engine optimises its loop. */
function countOutsideTop(
  { values }: TermSource,
  heldGroups: Uint32Array,
  from: number,
  to: number,
  groupCounts: Uint32Array,
  inTop: Uint32Array,
  outside: Uint8Array,
  other: Float64Array,
  remake: boolean,
): void {
  for (let g = from; g < to; g++) {
    const group = heldGroups[g]!;
    if (remake) values.prepare(group);
    const termIds = values.termIds;
    const fields = values.fields;
    let fieldsOutside = 0;
    for (let at = values.startOf(group), end = values.endOf(group); at < end; at++) {
      if (outside[fields[at]!] === 1 && inTop[termIds[at]!] === 0) fieldsOutside |= 1 << fields[at]!;
    }
    for (let field = 0; fieldsOutside !== 0; field++, fieldsOutside >>>= 1) {
      if (fieldsOutside & 1) other[field]! += groupCounts[group]!;
    }
  }
}

/** Sets back to zero what counting set in the pooled arrays. */
function clear(
  seen: IdList,
  held: IdList,
  termCounts: Uint32Array,
  inTop: Uint32Array,
  groupCounts: Uint32Array,
): void {
  for (let i = 0; i < seen.length; i++) termCounts[seen.ids[i]!] = inTop[seen.ids[i]!] = 0;
  for (let i = 0; i < held.length; i++) groupCounts[held.ids[i]!] = 0;
  groupCounts[0] = 0;
}

/** How many matching records hold each term group (list groups, place groups, or both: as asked). */
async function recordsPerGroup(
  source: TermSource,
  matching: Uint32Array,
  requests: FacetRequest[],
  slicer: Slicer,
): Promise<Uint32Array> {
  const readList = requests.some(({ field }) => LIST_FIELDS.has(field));
  const readPlace = requests.some(({ field }) => !LIST_FIELDS.has(field));
  const { listGroup, placeGroup } = source;
  const counts = zeroed.take(source.termGroups.idLimit);
  for (let offset = 0; offset < matching.length; offset += CHUNK) {
    const ids = matching.subarray(offset, offset + CHUNK);
    if (readList && readPlace) tallyBoth(ids, listGroup, placeGroup, counts);
    else tally(ids, readList ? listGroup : placeGroup, counts);
    await slicer.yieldIfDue();
  }
  return counts;
}

/** tally for two columns in one pass over the ids. */
function tallyBoth(
  ids: Uint32Array,
  first: GrowableColumn<Uint32Array>,
  second: GrowableColumn<Uint32Array>,
  counts: Uint32Array,
): void {
  const firstOf = first.values;
  const secondOf = second.values;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    counts[firstOf[id] ?? 0]!++;
    counts[secondOf[id] ?? 0]!++;
  }
}

/** Counts the records of `ids` per group of `column` (synchronous, so the engine optimises it). */
function tally(ids: Uint32Array, column: GrowableColumn<Uint32Array>, counts: Uint32Array): void {
  const groupOf = column.values;
  for (let i = 0; i < ids.length; i++) counts[groupOf[ids[i]!] ?? 0]!++;
}
