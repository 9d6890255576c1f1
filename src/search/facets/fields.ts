import { FACET_FIELD_NAMES } from '../../core/api/index.js';
/** The fields the host index counts values of, in the order their term kinds are numbered. */
export const FACET_FIELDS = FACET_FIELD_NAMES;

export type FacetField = (typeof FACET_FIELDS)[number];

/** One field to count, and how many of its most frequent values to return. */
export interface FacetRequest {
  field: FacetField;
  top: number;
}

export interface FacetValue {
  value: string | number;
  count: number;
}

export interface FacetCounts {
  /** The `top` most frequent values, by count descending then value ascending. */
  values: FacetValue[];
  /** Matching records without a value for the field. */
  missing: number;
  /** Matching records with at least one value outside `values`. */
  other: number;
}

export interface FacetResult {
  /** Matching records. */
  total: number;
  counts: Map<FacetField, FacetCounts>;
}

/** Fields read from the records' term groups (the others from bucket families: port and days). */
export const TERM_FIELDS: ReadonlySet<FacetField> = new Set([
  'country',
  'country_code',
  'asn',
  'as_name',
  'protocol',
  'vendor',
  'product',
  'version',
  'cpe',
  'cve',
  'classifications',
]);

/** Term fields a record may hold several values of (from its list group; the others come from its place group). */
export const LIST_FIELDS: ReadonlySet<FacetField> = new Set([
  'vendor',
  'product',
  'version',
  'cpe',
  'cve',
  'classifications',
]);

/** LIST_FIELDS as bits of a field mask (bit i: FACET_FIELDS[i]). */
export const LIST_FIELD_BITS = FACET_FIELDS.reduce(
  (bits, field, at) => (LIST_FIELDS.has(field) ? bits | (1 << at) : bits),
  0,
);

/** Ties in count are ordered by value: numerically for these fields, by character code for the others. */
export const NUMERIC_FIELDS: ReadonlySet<FacetField> = new Set(['port', 'asn']);
