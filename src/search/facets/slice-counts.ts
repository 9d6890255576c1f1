import type { Bitmap } from '../bitmap.js';
import { type GrowableColumn, uint32Column } from '../columns.js';
import { Slicer } from '../slices.js';
import type { FacetTerms } from './facet-terms.js';
import {
  FACET_FIELDS,
  type FacetCounts,
  type FacetField,
  type FacetRequest,
  type FacetResult,
  LIST_FIELD_BITS,
  LIST_FIELDS,
  TERM_FIELDS,
} from './fields.js';
import type { GroupFacetValues } from './group-values.js';
import type { TallyColumns } from './match-tally.js';
import { topValues } from './top-values.js';

/** The slices counted as records change: every record, and the records with at least one CVE. */
export enum Slice {
  All = 0,
  WithCve = 1,
}

const CVE_FIELD = FACET_FIELDS.indexOf('cve');
const PORTS = 65_536;

/** Adds `delta` at `at` (Uint32 arithmetic: a count taken back never goes below zero). */
function add(column: GrowableColumn<Uint32Array>, at: number, delta: number): void {
  column.set(at, column.get(at) + delta);
}

/** Records counted between checks of the slice's clock. */
const CHUNK = 65_536;

/** rebuild's count of records ids[from, to) into both slices: synchronous, so the engine optimises its loop. */
function tallyRecords(
  ids: Uint32Array,
  from: number,
  to: number,
  columns: TallyColumns,
  cveOf: Uint8Array,
  all: SliceTally,
  withCve: SliceTally,
): void {
  const lists = columns.listGroup.values;
  const places = columns.placeGroup.values;
  const ports = columns.port.values;
  const allGroups = all.groups.values;
  const cveGroups = withCve.groups.values;
  for (let i = from; i < to; i++) {
    const id = ids[i]!;
    const list = lists[id] ?? 0;
    const place = places[id] ?? 0;
    const port = ports[id] ?? 0;
    allGroups[list]!++;
    allGroups[place]!++;
    all.ports[port]!++;
    if (cveOf[list] === 2) {
      cveGroups[list]!++;
      cveGroups[place]!++;
      withCve.ports[port]!++;
      withCve.records++;
    }
  }
  all.records += to - from;
}

/** One slice's counts. */
class SliceTally {
  records = 0;
  /** Per term group, the slice's records holding it. */
  readonly groups = uint32Column();
  /** Per counted term, the slice's records holding its value. */
  readonly terms = uint32Column();
  /** Per counted term of a list field, the slice's records holding it as their only value of the field. */
  readonly alone = uint32Column();
  /** Per field, the slice's records holding a value of it, and exactly one value of it. */
  readonly withValue = new Float64Array(FACET_FIELDS.length);
  readonly withOneValue = new Float64Array(FACET_FIELDS.length);
  readonly ports = new Uint32Array(PORTS);
}

/** What a record contributes: its list group, place group and port. */
export interface SliceMember {
  listGroup: number;
  placeGroup: number;
  port: number;
}

/**
 * Facet counts of every record and of the records with a CVE, kept current as records come and go,
 * so facets over those slices — the first a dashboard asks for — read the counts instead of every
 * match, whose columns take longer to read at millions of records than the whole count should. A record
 * adds its count to its groups and to each value its groups hold (the groups' facet runs), so an
 * upsert costs a few dozen increments.
 */
export class SliceCounts {
  private slices = [new SliceTally(), new SliceTally()];
  private readonly lastOf = new Uint32Array(FACET_FIELDS.length);

  constructor(
    private readonly values: GroupFacetValues,
    private readonly terms: FacetTerms,
  ) {}

  get bytes(): number {
    return this.slices.reduce(
      (sum, slice) =>
        sum +
        slice.groups.values.byteLength +
        slice.terms.values.byteLength +
        slice.alone.values.byteLength +
        slice.ports.byteLength,
      0,
    );
  }

  /** Counts a record in (delta 1) or out (delta -1) of the slices it belongs to; its groups must be held. */
  apply({ listGroup, placeGroup, port }: SliceMember, delta: 1 | -1): void {
    const slices = this.holdsCve(listGroup) ? this.slices.length : 1;
    for (let which = 0; which < slices; which++) {
      const slice = this.slices[which]!;
      slice.records += delta;
      slice.ports[port]! += delta;
      for (const group of listGroup === 0 ? [placeGroup] : [listGroup, placeGroup]) {
        if (group === 0) continue;
        add(slice.groups, group, delta);
        this.addValues(slice, group, delta);
      }
    }
  }

  /**
   * Counts the `live` records afresh from their columns (after a bulk load or a snapshot read), in
   * slices: at 10M records this is seconds of work, and a loading server still answers its health
   * checks meanwhile.
   */
  async rebuild(live: Bitmap, columns: TallyColumns, groupLimit: number): Promise<void> {
    const slicer = new Slicer();
    const all = new SliceTally();
    const withCve = new SliceTally();
    this.slices = [all, withCve];
    all.groups.set(groupLimit, 0);
    withCve.groups.set(groupLimit, 0);
    /** Per list group: 0 not yet known, 1 without a CVE, 2 with one. */
    const cveOf = new Uint8Array(groupLimit + 1);
    const ids = live.toUint32Array();
    for (let from = 0; from < ids.length; from += CHUNK) {
      const to = Math.min(ids.length, from + CHUNK);
      for (let i = from; i < to; i++) {
        const list = columns.listGroup.values[ids[i]!] ?? 0;
        if (cveOf[list] === 0) cveOf[list] = this.holdsCve(list) ? 2 : 1;
      }
      tallyRecords(ids, from, to, columns, cveOf, all, withCve);
      await slicer.yieldIfDue();
    }
    for (const slice of this.slices) {
      // Group 0 stands for "none": records without list or place terms.
      slice.groups.values[0] = 0;
      const counts = slice.groups.values;
      for (let group = 1; group < counts.length; group++) {
        if (counts[group]! > 0) this.addValues(slice, group, counts[group]!);
        if ((group & 4095) === 0) await slicer.yieldIfDue();
      }
    }
  }

  /** Whether a facet request can be answered from the counts (term fields and ports only). */
  static answers(requests: readonly FacetRequest[]): boolean {
    return requests.every(({ field }) => TERM_FIELDS.has(field) || field === 'port');
  }

  /** The facet counts of a slice (see countFacets for their meaning). */
  facets(which: Slice, requests: readonly FacetRequest[]): FacetResult {
    const slice = this.slices[which]!;
    const counts = new Map<FacetField, FacetCounts>();
    /** Per list field whose top leaves values out, the top's terms. */
    const tops = new Map<number, Set<number>>();
    for (const { field, top } of requests) {
      if (field === 'port') {
        counts.set(field, this.portCounts(slice, top));
        continue;
      }
      const at = FACET_FIELDS.indexOf(field);
      const held = this.terms.countedTermsOf(at).filter((term) => slice.terms.get(term) > 0);
      const chosen = topValues(
        field,
        held.length,
        top,
        (i) => slice.terms.get(held[i]!),
        (i) => this.terms.valueOfTerm(held[i]!),
      );
      const shown = chosen.values.reduce((sum, value) => sum + value.count, 0);
      let other = 0;
      if (!LIST_FIELDS.has(field)) other = slice.withValue[at]! - shown;
      else if (held.length > top) {
        other = slice.withOneValue[at]!;
        for (const i of chosen.indexes) other -= slice.alone.get(held[i]!);
        tops.set(at, new Set(chosen.indexes.map((i) => held[i]!)));
      }
      counts.set(field, { values: chosen.values, missing: slice.records - slice.withValue[at]!, other });
    }
    if (tops.size > 0) {
      for (const [at, other] of this.severalOutside(slice, tops)) counts.get(FACET_FIELDS[at]!)!.other += other;
    }
    return { total: slice.records, counts: new Map(requests.map(({ field }) => [field, counts.get(field)!])) };
  }

  private portCounts(slice: SliceTally, top: number): FacetCounts {
    const held: number[] = [];
    for (let port = 0; port < PORTS; port++) if (slice.ports[port]! > 0) held.push(port);
    const chosen = topValues(
      'port',
      held.length,
      top,
      (i) => slice.ports[held[i]!]!,
      (i) => held[i]!,
    );
    const shown = chosen.values.reduce((sum, value) => sum + value.count, 0);
    return { values: chosen.values, missing: 0, other: slice.records - shown };
  }

  /** Per list field in `tops`, the slice's records of groups holding several of its values, one outside the top. */
  private severalOutside(slice: SliceTally, tops: Map<number, Set<number>>): Map<number, number> {
    let fields = 0;
    const inTop = new Uint8Array(slice.terms.values.length);
    for (const [at, terms] of tops) {
      fields |= 1 << at;
      for (const term of terms) inTop[term] = 1;
    }
    const other = new Float64Array(FACET_FIELDS.length);
    const groups = slice.groups.values;
    for (let group = 1; group < groups.length; group++) {
      const records = groups[group]!;
      if (records === 0) continue;
      this.values.prepare(group);
      const several = this.values.severalOf(group) & fields;
      if (several === 0) continue;
      let outside = 0;
      const termIds = this.values.termIds;
      const valueFields = this.values.fields;
      for (let at = this.values.startOf(group), end = this.values.endOf(group); at < end; at++) {
        if (inTop[termIds[at]!] !== 1) outside |= 1 << valueFields[at]!;
      }
      outside &= several;
      for (let field = 0; outside !== 0; field++, outside >>>= 1) if (outside & 1) other[field]! += records;
    }
    return new Map([...tops.keys()].map((at) => [at, other[at]!]));
  }

  private holdsCve(listGroup: number): boolean {
    if (listGroup === 0) return false;
    this.values.prepare(listGroup);
    const fields = this.values.fields;
    for (let at = this.values.startOf(listGroup), end = this.values.endOf(listGroup); at < end; at++) {
      if (fields[at] === CVE_FIELD) return true;
    }
    return false;
  }

  /** Adds `delta` records of `group` to each value the group holds. */
  private addValues(slice: SliceTally, group: number, delta: number): void {
    this.values.prepare(group);
    const termIds = this.values.termIds;
    const fields = this.values.fields;
    let held = 0;
    let repeated = 0;
    for (let at = this.values.startOf(group), end = this.values.endOf(group); at < end; at++) {
      const field = fields[at]!;
      const term = termIds[at]!;
      add(slice.terms, term, delta);
      const bit = 1 << field;
      repeated |= held & bit;
      held |= bit;
      this.lastOf[field] = term;
    }
    for (let field = 0, bits = held; bits !== 0; field++, bits >>>= 1) {
      if ((bits & 1) === 0) continue;
      slice.withValue[field]! += delta;
      if (((LIST_FIELD_BITS & ~repeated) >>> field) & 1) {
        slice.withOneValue[field]! += delta;
        add(slice.alone, this.lastOf[field]!, delta);
      }
    }
  }
}
