/**
 * The term conditions of an advisory query, resolved to term ids: each condition is the union of
 * its ids' postings, all conditions hold together. These are the conditions storage writes terms
 * for; what terms cannot decide is left to the match index (core/advisory/filters.ts).
 */
import type { AdvisoryFilters } from '../../core/advisory/filters.js';
import { termValue } from '../../core/advisory/facts.js';
import { cpeTerm, TERM, type TermKind } from '../../core/advisory/terms.js';
import { hasUnquotedWildcard, type Wfn } from '../../core/cpe.js';
import type { TermDictionary } from './term-dictionary.js';

/** Term ids any of which a record must hold (none: no record can match). */
export type TermCondition = number[];

const EXACT: Array<[keyof AdvisoryFilters, TermKind]> = [
  ['vendor', TERM.vendor],
  ['product', TERM.product],
  ['platform', TERM.platform],
  ['packageName', TERM.packageName],
  ['packageKey', TERM.package],
  ['referenceUrl', TERM.referenceUrl],
  ['referenceTag', TERM.referenceTag],
];

function exact(terms: TermDictionary, kind: TermKind, value: string): TermCondition {
  const id = terms.idOf(kind, termValue(value));
  return id === 0 ? [] : [id];
}

/** A CPE's term: its `vendor:product`, or every product of its vendor; none for a vendor pattern. */
function cpeCondition(terms: TermDictionary, cpe: Wfn): TermCondition | undefined {
  if (hasUnquotedWildcard(cpe.vendor)) return undefined;
  if (!hasUnquotedWildcard(cpe.product)) return exact(terms, TERM.cpe, cpeTerm(cpe));
  const prefix = cpeTerm({ ...cpe, product: '' });
  return terms.idsWhere(TERM.cpe, (value) => value.startsWith(prefix));
}

export function termConditions(filters: AdvisoryFilters, terms: TermDictionary): TermCondition[] {
  const conditions: TermCondition[] = [];
  for (const [name, kind] of EXACT) {
    const value = filters[name];
    if (typeof value === 'string') conditions.push(exact(terms, kind, value));
  }
  const lang = filters.descriptionLang;
  if (lang !== undefined) {
    conditions.push(terms.idsWhere(TERM.descriptionLang, (value) => value === lang || value.startsWith(`${lang}-`)));
  }
  const cpe = filters.cpe ? cpeCondition(terms, filters.cpe) : undefined;
  if (cpe) conditions.push(cpe);
  return conditions;
}
