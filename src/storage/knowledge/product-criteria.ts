/**
 * Whole-product reads for structures prepared in memory: every criterion that can name a product
 * (its own rows and the wildcard rows whose part, vendor or product is ANY), in keyset pages so no single statement holds a server for long.
 */
import type { Sql } from '../database.js';
import { toCriterion, type CriterionRecord } from './criteria.js';
import type { StoredCriterion } from './types.js';

const COLUMNS =
  'id, scan_key, cve_id, part, vendor, product, vulnerable, source, criterion, exact_key, start_key, start_incl, end_key, end_incl, unbounded, always_check, decided';

/** A criteria row with its CVE's decided flag (undefined: not stored yet). */
export interface ProductCriterion extends StoredCriterion {
  decided?: boolean;
}

/** The (part, vendor, product) row keys that can name a concrete product: each value or `*`. */
function identityCombinations(product: { part: string; vendor: string; product: string }): string[][] {
  const out: string[][] = [];
  for (const part of new Set([product.part, '*']))
    for (const vendor of new Set([product.vendor, '*']))
      for (const name of new Set([product.product, '*'])) out.push([part, vendor, name]);
  return out;
}

/**
 * Every criteria row that can apply to names of (part, vendor, product), in pages of `pageSize`:
 * one index range per combination of each value or `*`, walked by (scan_key, id) — written as
 * `scan_key >= ?` plus a filter, so SQLite seeks the range instead of skipping the pages before it.
 */
export async function* productCriteria(
  db: Sql,
  product: { part: string; vendor: string; product: string },
  pageSize: number,
): AsyncIterable<ProductCriterion[]> {
  for (const [part, vendor, name] of identityCombinations(product)) {
    let after: { scanKey: string; id: number } | undefined;
    for (;;) {
      const rows = await db.all<CriterionRecord & { id: number | string; scan_key: string; decided: number | null }>(
        `SELECT ${COLUMNS} FROM knowledge_criteria WHERE part = ? AND vendor = ? AND product = ?
         ${after ? 'AND scan_key >= ? AND (scan_key > ? OR id > ?)' : ''}
         ORDER BY scan_key, id LIMIT ?`,
        [part!, vendor!, name!, ...(after ? [after.scanKey, after.scanKey, after.id] : []), pageSize],
      );
      if (rows.length > 0)
        yield rows.map((row) =>
          row.decided === null ? toCriterion(row) : { ...toCriterion(row), decided: Number(row.decided) === 1 },
        );
      const last = rows[rows.length - 1];
      if (rows.length < pageSize || !last) break;
      after = { scanKey: last.scan_key, id: Number(last.id) };
    }
  }
}

/**
 * How many of a product's own criteria rows (wildcard rows aside) belong to CVEs a key-decided
 * hit confirms by itself, and how many rows it has: one index range, its rows read once.
 */
export async function decidedShare(
  db: Sql,
  product: { part: string; vendor: string; product: string },
): Promise<{ rows: number; decided: number }> {
  const row = await db.get<{ n: number | string; d: number | string | null }>(
    `SELECT COUNT(*) AS n, SUM(decided) AS d FROM knowledge_criteria WHERE part = ? AND vendor = ? AND product = ?`,
    [product.part, product.vendor, product.product],
  );
  return { rows: Number(row?.n ?? 0), decided: Number(row?.d ?? 0) };
}
