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

/**
 * The same condition for queries that find their rows by another indexed column (cve_id, id): the
 * unary `+` keeps gen_from out of index choice, since SQLite, without statistics, would otherwise
 * range-scan the (feed, gen_from) index over the whole feed for every lookup.
 */
export function visibleAtFoundRows(generation: number, alias?: string): Condition {
  const column = alias === undefined ? '' : `${alias}.`;
  return {
    sql: `+${column}gen_from <= ? AND (${column}gen_to IS NULL OR ${column}gen_to > ?)`,
    params: [generation, generation],
  };
}
