/**
 * The SQL conditions of an advisory query over one feed generation: visibility, CVE id, update
 * time and the term filters. What SQL cannot decide (versions, CPE bounds, several filters on the
 * same affected entry) is left to the match data (core/advisory/match.ts); the term conditions
 * then serve as a pre-filter that never drops a record that could match.
 */
import type { AdvisoryFilters } from '../../core/advisory/filters.js';
import { termValue } from '../../core/advisory/facts.js';
import { cpeTerm, TERM } from '../../core/advisory/terms.js';
import { ANY, type Wfn } from '../../core/cpe.js';
import type { SqlValue } from '../database.js';

export interface Condition {
  sql: string;
  params: SqlValue[];
}

/**
 * The rows of `advisories` a generation sees: a row is one version of a record, visible to the
 * generations gen_from <= g < gen_to (gen_to NULL: not replaced yet). The one place this condition
 * is written; `alias` is the table's alias in the query, if it has one.
 */
export function visibleAt(generation: number, alias?: string): Condition {
  const column = alias === undefined ? '' : `${alias}.`;
  return {
    sql: `${column}gen_from <= ? AND (${column}gen_to IS NULL OR ${column}gen_to > ?)`,
    params: [generation, generation],
  };
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);
/** A WFN value that is a pattern (ANY, or holding an unquoted `*`/`?`), not one concrete value. */
const isPattern = (value: string) => value === ANY || /(^|[^\\])(\\\\)*[*?]/.test(value);

function term(kind: number, value: string): Condition {
  return {
    sql: `a.id IN (SELECT advisory_id FROM advisory_terms WHERE kind = ? AND value = ?)`,
    params: [kind, termValue(value)],
  };
}

function cpeCondition(cpe: Wfn): Condition | undefined {
  if (isPattern(cpe.vendor)) return undefined;
  if (!isPattern(cpe.product)) return term(TERM.cpe, cpeTerm(cpe));
  return {
    sql: `a.id IN (SELECT advisory_id FROM advisory_terms WHERE kind = ? AND value LIKE ? ESCAPE '\\')`,
    params: [TERM.cpe, `${escapeLike(cpeTerm({ ...cpe, product: '' }))}%`],
  };
}

/** Conditions (ANDed) for the rows of `feed` visible at `generation` that may match `filters`. */
export function whereClause(feed: string, generation: number, filters: AdvisoryFilters): Condition {
  const visible = visibleAt(generation, 'a');
  const conditions: Condition[] = [{ sql: `a.feed = ? AND ${visible.sql}`, params: [feed, ...visible.params] }];
  if (filters.cveId !== undefined) conditions.push({ sql: `a.cve_id = ?`, params: [filters.cveId] });
  if (filters.updatedAfter !== undefined)
    conditions.push({ sql: `a.date_updated > ?`, params: [filters.updatedAfter] });
  if (filters.updatedBefore !== undefined)
    conditions.push({ sql: `a.date_updated < ?`, params: [filters.updatedBefore] });
  if (filters.vendor !== undefined) conditions.push(term(TERM.vendor, filters.vendor));
  if (filters.product !== undefined) conditions.push(term(TERM.product, filters.product));
  if (filters.platform !== undefined) conditions.push(term(TERM.platform, filters.platform));
  if (filters.packageName !== undefined) conditions.push(term(TERM.packageName, filters.packageName));
  if (filters.packageKey !== undefined) conditions.push(term(TERM.package, filters.packageKey));
  if (filters.referenceUrl !== undefined) conditions.push(term(TERM.referenceUrl, filters.referenceUrl));
  if (filters.referenceTag !== undefined) conditions.push(term(TERM.referenceTag, filters.referenceTag));
  if (filters.descriptionLang !== undefined) {
    conditions.push({
      sql: `a.id IN (SELECT advisory_id FROM advisory_terms WHERE kind = ? AND (value = ? OR value LIKE ? ESCAPE '\\'))`,
      params: [TERM.descriptionLang, filters.descriptionLang, `${escapeLike(filters.descriptionLang)}-%`],
    });
  }
  const cpe = filters.cpe ? cpeCondition(filters.cpe) : undefined;
  if (cpe) conditions.push(cpe);
  return { sql: conditions.map((c) => c.sql).join(' AND '), params: conditions.flatMap((c) => c.params) };
}

/** True when nothing is filtered: every visible record of the feed counts. */
export const hasNoFilters = (filters: AdvisoryFilters) => Object.values(filters).every((value) => value === undefined);
