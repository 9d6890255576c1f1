/**
 * Whole-product reads for structures prepared in memory: every criterion that can name a product
 * (its own rows and the wildcard rows whose part, vendor or product is ANY), in keyset pages so no single statement holds a server for long.
 */
import type { Sql } from '../database.js';
import { toCriterion } from './criteria.js';
import type { StoredCriterion } from './types.js';

/** What preparing a product needs of a row; part, vendor and product come from the row key read. */
const COLUMNS =
  'cve_id, vulnerable, source, criterion, exact_key, start_key, start_incl, end_key, end_incl, unbounded, always_check, decided';
/** The keyset of a paged read, after COLUMNS. */
const PAGING = 'scan_key, id';

/** A row of COLUMNS (then PAGING when paged), in that order; BIGINT and flags arrive as strings or numbers by engine. */
type CriterionRow = [
  cveId: string,
  vulnerable: number,
  source: string,
  criterion: string,
  exactKey: string | null,
  startKey: string | null,
  startIncl: number | null,
  endKey: string | null,
  endIncl: number | null,
  unbounded: number,
  alwaysCheck: number,
  decided: number | null,
  scanKey?: string,
  id?: number | string,
];

function toProductCriterion(key: ProductIdentity, row: CriterionRow): ProductCriterion {
  const criterion: ProductCriterion = toCriterion({
    cve_id: row[0],
    part: key.part,
    vendor: key.vendor,
    product: key.product,
    vulnerable: row[1],
    source: row[2],
    criterion: row[3],
    exact_key: row[4],
    start_key: row[5],
    start_incl: row[6],
    end_key: row[7],
    end_incl: row[8],
    unbounded: row[9],
    always_check: row[10],
  });
  if (row[11] !== null) criterion.decided = Number(row[11]) === 1;
  return criterion;
}

/** A criteria row with its CVE's decided flag (undefined: not stored yet). */
export interface ProductCriterion extends StoredCriterion {
  decided?: boolean;
}

export interface ProductIdentity {
  part: string;
  vendor: string;
  product: string;
}

/** The (part, vendor, product) row keys that can name a concrete product: each value or `*`. */
export function identityCombinations(product: ProductIdentity): ProductIdentity[] {
  const out: ProductIdentity[] = [];
  for (const part of new Set([product.part, '*']))
    for (const vendor of new Set([product.vendor, '*']))
      for (const name of new Set([product.product, '*'])) out.push({ part, vendor, product: name });
  return out;
}

/**
 * Every criteria row that can apply to names of (part, vendor, product): one index range per
 * combination of each value or `*` (only those in `keys` when given), read from the lookup index
 * alone. A key known to hold at most `pageSize` rows is one statement; a larger one is walked in
 * pages by (scan_key, id) — written as `scan_key >= ?` plus a filter, so SQLite seeks the range
 * instead of skipping the pages before it.
 */
export async function* productCriteria(
  db: Sql,
  product: ProductIdentity,
  pageSize: number,
  keys: readonly (ProductIdentity & { rows?: number })[] = identityCombinations(product),
): AsyncIterable<ProductCriterion[]> {
  for (const key of keys) {
    const where = 'part = ? AND vendor = ? AND product = ?';
    const identity = [key.part, key.vendor, key.product];
    if (key.rows !== undefined && key.rows <= pageSize) {
      // Arrays, not objects: preparing a product reads its every row, and row objects cost twice the time.
      const rows = await db.arrays<CriterionRow>(
        `SELECT ${COLUMNS} FROM knowledge_criteria WHERE ${where} ORDER BY scan_key, id`,
        identity,
      );
      if (rows.length > 0) yield rows.map((row) => toProductCriterion(key, row));
      continue;
    }
    let after: { scanKey: string; id: number } | undefined;
    for (;;) {
      const rows = await db.arrays<CriterionRow>(
        `SELECT ${COLUMNS}, ${PAGING} FROM knowledge_criteria WHERE ${where}
         ${after ? 'AND scan_key >= ? AND (scan_key > ? OR id > ?)' : ''}
         ORDER BY scan_key, id LIMIT ?`,
        [...identity, ...(after ? [after.scanKey, after.scanKey, after.id] : []), pageSize],
      );
      if (rows.length > 0) yield rows.map((row) => toProductCriterion(key, row));
      const last = rows[rows.length - 1];
      if (rows.length < pageSize || !last) break;
      after = { scanKey: last[12]!, id: Number(last[13]) };
    }
  }
}

/** A row key's criteria rows, and how many belong to CVEs a key-decided hit confirms by itself. */
export interface ProductCounts extends ProductIdentity {
  rows: number;
  decided: number;
}

type CountRow = { part: string; vendor: string; product: string; n: number | string; d: number | string | null };

const toCounts = (row: CountRow): ProductCounts => ({
  part: row.part,
  vendor: row.vendor,
  product: row.product,
  rows: Number(row.n),
  decided: Number(row.d ?? 0),
});

/**
 * The counts of every row key after `after` (row-value order), `limit` keys per page: the lookup
 * index holds `decided`, so a page is read from the index alone.
 */
export async function productCountsPage(
  db: Sql,
  after: ProductIdentity | undefined,
  limit: number,
): Promise<ProductCounts[]> {
  const rows = await db.all<CountRow>(
    `SELECT part, vendor, product, COUNT(*) AS n, SUM(decided) AS d FROM knowledge_criteria
     ${after ? 'WHERE (part, vendor, product) > (?, ?, ?)' : ''}
     GROUP BY part, vendor, product ORDER BY part, vendor, product LIMIT ?`,
    [...(after ? [after.part, after.vendor, after.product] : []), limit],
  );
  return rows.map(toCounts);
}

/** The counts of one row key (zero rows when knowledge names it nowhere). */
export async function productCounts(db: Sql, key: ProductIdentity): Promise<ProductCounts> {
  const row = await db.get<{ n: number | string; d: number | string | null }>(
    `SELECT COUNT(*) AS n, SUM(decided) AS d FROM knowledge_criteria WHERE part = ? AND vendor = ? AND product = ?`,
    [key.part, key.vendor, key.product],
  );
  return { ...key, rows: Number(row?.n ?? 0), decided: Number(row?.d ?? 0) };
}
