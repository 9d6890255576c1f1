/** Applicability: what sources say about where a CVE applies, and evaluating it against CPEs. */
export type * from './types.js';
export { applicabilityOfRecord, cveIdOf } from './extract.js';
export { COVERING_KINDS, confirmedCves, dedupeEvidence, evaluateApplicability, evaluateMany } from './evaluate.js';
export { affectedCoversName, applicabilityCoversName, criterionCoversName, type Coverage } from './criterion.js';
export { indexedCriteria, nameLookupOf, productKeyOf, rowMayMatch, type NameLookup } from './index-keys.js';
