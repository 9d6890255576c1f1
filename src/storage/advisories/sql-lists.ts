/** Helpers for statements over many values: `IN (?, …)` lists and multi-row inserts, in chunks. */

/** Values per `IN (…)` list or rows per multi-row insert statement. */
export const CHUNK = 500;

export const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
