import type { Bitmap } from '../bitmap.js';
import type { GrowableColumn } from '../columns.js';
import type { Slicer } from '../slices.js';
import type { TermGroups } from '../term-groups.js';
import type { FacetTerms } from './facet-terms.js';
import { FACET_FIELDS, type FacetCounts, type FacetField, type FacetRequest } from './fields.js';
import { topValues } from './top-values.js';

/** What counting term fields reads of the host index. */
export interface TermSource {
  termGroups: TermGroups;
  /** Per record, its group of list terms (CVEs, fingerprints, classifications) and of place terms. */
  listGroup: GrowableColumn<Uint32Array>;
  placeGroup: GrowableColumn<Uint32Array>;
  terms: FacetTerms;
  termLimit: number;
}

const LIST_FIELDS: ReadonlySet<FacetField> = new Set(['vendor', 'product', 'version', 'cpe', 'cve', 'classifications']);
const CPE = FACET_FIELDS.indexOf('cpe');
/** Ids read from the matching bitmap at a time. */
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
  matching: Bitmap,
  total: number,
  requests: FacetRequest[],
  slicer: Slicer,
): Promise<Map<FacetField, FacetCounts>> {
  const groupCounts = await recordsPerGroup(source, matching, total, requests, slicer);
  const wanted = new Uint8Array(FACET_FIELDS.length);
  for (const { field } of requests) wanted[FACET_FIELDS.indexOf(field)] = 1;
  const { terms, termGroups } = source;

  const termCounts = new Uint32Array(source.termLimit);
  const valuesOf: number[][] = FACET_FIELDS.map(() => []);
  const withValue = new Float64Array(FACET_FIELDS.length);
  const heldGroups: number[] = [];
  const groupCpes: number[] = [];
  for (let group = 1; group < groupCounts.length; group++) {
    const count = groupCounts[group]!;
    if (count === 0) continue;
    heldGroups.push(group);
    let fieldsHeld = 0;
    groupCpes.length = 0;
    for (const termId of termGroups.termsOf(group)) {
      const field = terms.fieldOf(termId);
      if (field < 0 || wanted[field] === 0) continue;
      const counted = terms.canonicalOf(termId);
      if (field === CPE) {
        if (groupCpes.includes(counted)) continue;
        groupCpes.push(counted);
      }
      if (termCounts[counted] === 0) valuesOf[field]!.push(counted);
      termCounts[counted]! += count;
      fieldsHeld |= 1 << field;
    }
    for (let field = 0; fieldsHeld !== 0; field++, fieldsHeld >>>= 1) if (fieldsHeld & 1) withValue[field]! += count;
    if (slicer.due()) await slicer.pause();
  }

  const inTop = new Uint8Array(source.termLimit);
  const result = new Map<FacetField, FacetCounts>();
  for (const { field, top } of requests) {
    const at = FACET_FIELDS.indexOf(field);
    const values = valuesOf[at]!;
    const chosen = topValues(
      field,
      values.length,
      top,
      (i) => termCounts[values[i]!]!,
      (i) => terms.valueOfTerm(values[i]!),
    );
    for (const i of chosen.indexes) inTop[values[i]!] = 1;
    result.set(field, { values: chosen.values, missing: total - withValue[at]!, other: 0 });
    await slicer.yieldIfDue();
  }

  // A record is "other" for a field when it holds one of its values that did not make the top.
  const other = new Float64Array(FACET_FIELDS.length);
  for (const group of heldGroups) {
    let fieldsOutside = 0;
    for (const termId of termGroups.termsOf(group)) {
      const field = terms.fieldOf(termId);
      if (field >= 0 && wanted[field] === 1 && inTop[terms.canonicalOf(termId)] === 0) fieldsOutside |= 1 << field;
    }
    for (let field = 0; fieldsOutside !== 0; field++, fieldsOutside >>>= 1) {
      if (fieldsOutside & 1) other[field]! += groupCounts[group]!;
    }
    if (slicer.due()) await slicer.pause();
  }
  for (const [field, counts] of result) counts.other = other[FACET_FIELDS.indexOf(field)]!;
  return result;
}

/** How many matching records hold each term group (list groups, place groups, or both: as asked). */
async function recordsPerGroup(
  source: TermSource,
  matching: Bitmap,
  total: number,
  requests: FacetRequest[],
  slicer: Slicer,
): Promise<Uint32Array> {
  const readList = requests.some(({ field }) => LIST_FIELDS.has(field));
  const readPlace = requests.some(({ field }) => !LIST_FIELDS.has(field));
  const { listGroup, placeGroup } = source;
  const counts = new Uint32Array(source.termGroups.idLimit);
  const buffer = new Uint32Array(Math.min(CHUNK, Math.max(1, total)));
  for (let offset = 0; offset < total; offset += CHUNK) {
    const ids = matching.rangeUint32Array(buffer, offset, CHUNK);
    if (readList) for (let i = 0; i < ids.length; i++) counts[listGroup.get(ids[i]!)]!++;
    if (readPlace) for (let i = 0; i < ids.length; i++) counts[placeGroup.get(ids[i]!)]!++;
    await slicer.yieldIfDue();
  }
  return counts;
}
