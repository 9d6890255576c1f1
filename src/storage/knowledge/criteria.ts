/**
 * `knowledge_cves` and `knowledge_criteria`: a CVE's applicability (JSON) and its criteria, indexed
 * by (part, vendor, product, scan_key).
 *
 * The index contract: a criterion is a candidate for a concrete name (part p, vendor v, product
 * pr, version key K) when part ∈ {p, *}, vendor ∈ {v, *}, product ∈ {pr, *} and
 *   always_check OR unbounded OR exact_key = K OR
 *   (a bound exists AND (no start OR start < K OR start = K inclusive) AND (no end OR end > K OR end = K inclusive)).
 * A name without a comparable concrete version (no K) gets every criterion of its product.
 * scan_key is the highest key a row can match ('~' when it has no upper limit; keys never hold
 * '~'), so every candidate satisfies scan_key >= K: one index range per (part, vendor, product)
 * combination, then the exact checks.
 */
import { decidedByOwnHit } from '../../core/applicability/evaluate.js';
import type { CveApplicability } from '../../core/applicability/types.js';
import type { Sql, SqlValue } from '../database.js';
import { chunks, placeholders } from '../advisories/sql-lists.js';
import { bumpGeneration, knowledgeGeneration } from './meta.js';
import { logProductChanges } from './product-changes.js';
import { adjustNameRefs, concreteName, productKey, type NameIdentity } from './names.js';
import type {
  DerivedKnowledge,
  IndexedCriterionRow,
  KnowledgeChange,
  KnowledgeName,
  StoredCriterion,
} from './types.js';

/** scan_key of rows with no upper limit: above every versionSortKey() (which uses [0-9a-z!]). */
export const NO_UPPER_LIMIT = '~';

const CRITERIA_CHUNK = 200;

/** What the index contract reads of a criteria row. */
export type CriterionKeys = Pick<
  IndexedCriterionRow,
  'exactKey' | 'startKey' | 'startInclusive' | 'endKey' | 'endInclusive' | 'unbounded' | 'alwaysCheck'
>;

export function scanKeyOf(row: CriterionKeys): string {
  if (row.alwaysCheck || row.unbounded) return NO_UPPER_LIMIT;
  if (row.startKey !== undefined && row.endKey === undefined) return NO_UPPER_LIMIT;
  const keys = [row.exactKey, row.endKey].filter((k): k is string => k !== undefined);
  if (keys.length === 0) return NO_UPPER_LIMIT;
  return keys.reduce((a, b) => (a > b ? a : b));
}

/** A name's keys, or undefined when it lacks one (then every criterion of the product is a candidate). */
export function keysOf(name: KnowledgeName): NameKeys | undefined {
  const raw = name.rawKey ?? name.versionKey;
  const folded = name.foldedKey ?? name.versionKey;
  if (raw === undefined || folded === undefined) return undefined;
  return name.familyEndKey === undefined ? { raw, folded } : { raw, folded, familyEnd: name.familyEndKey };
}

interface NameKeys {
  raw: string;
  folded: string;
  familyEnd?: string;
}

/** The index contract for one row and a name's keys (the SQL below says the same). */
export function criterionMayMatch(row: CriterionKeys, keys: NameKeys | undefined): boolean {
  if (keys === undefined) return true;
  if (row.alwaysCheck || row.unbounded) return true;
  if (row.exactKey !== undefined && (row.exactKey === keys.raw || row.exactKey === keys.folded)) return true;
  if (row.startKey === undefined && row.endKey === undefined) return false;
  const k = keys.folded;
  if (keys.familyEnd !== undefined)
    return (
      (row.startKey === undefined || row.startKey < keys.familyEnd) && (row.endKey === undefined || row.endKey >= k)
    );
  const startOk = row.startKey === undefined || row.startKey < k || (row.startInclusive === true && row.startKey === k);
  const endOk = row.endKey === undefined || row.endKey > k || (row.endInclusive === true && row.endKey === k);
  return startOk && endOk;
}

const PRODUCT_MATCH = `part IN (?, '*') AND vendor IN (?, '*') AND product IN (?, '*')`;
const KEY_MATCH = `scan_key >= ? AND (always_check = 1 OR unbounded = 1 OR exact_key IN (?, ?)
  OR ((start_key IS NOT NULL OR end_key IS NOT NULL)
      AND (start_key IS NULL OR start_key < ? OR (start_incl = 1 AND start_key = ?))
      AND (end_key IS NULL OR end_key > ? OR (end_incl = 1 AND end_key = ?))))`;
/** The same for a host's name read as a family: ranges overlapping [key, family end) too. */
const FAMILY_KEY_MATCH = `scan_key >= ? AND (always_check = 1 OR unbounded = 1 OR exact_key IN (?, ?)
  OR ((start_key IS NOT NULL OR end_key IS NOT NULL)
      AND (start_key IS NULL OR start_key < ?) AND (end_key IS NULL OR end_key >= ?)))`;

/** The lowest scan_key a candidate row can have (every key sorts below NO_UPPER_LIMIT). */
const scanFloor = (key: string) => (key < NO_UPPER_LIMIT ? key : '');

/**
 * Whether any criterion names this product (wildcard part, vendor or product included): without
 * one, no version of the product can have a candidate.
 */
/** CVE ids with a criterion that may match one of the names (sorted). */
export async function candidateCves(db: Sql, names: readonly KnowledgeName[]): Promise<string[]> {
  const cves = new Set<string>();
  const seen = new Set<string>();
  for (const name of names) {
    const keys = keysOf(name);
    const id = `${productKey(name.part, name.vendor, name.product)}\u0000${keys ? `${keys.raw}\u0000${keys.folded}\u0000${keys.familyEnd ?? ''}` : ''}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const params: SqlValue[] = [name.part, name.vendor, name.product];
    let sql = `SELECT DISTINCT cve_id FROM knowledge_criteria WHERE ${PRODUCT_MATCH}`;
    if (keys) {
      const k = keys.folded;
      const floor = scanFloor(keys.raw < k ? keys.raw : k);
      if (keys.familyEnd !== undefined) {
        sql += ` AND ${FAMILY_KEY_MATCH}`;
        params.push(floor, keys.raw, k, keys.familyEnd, k);
      } else {
        sql += ` AND ${KEY_MATCH}`;
        params.push(floor, keys.raw, k, k, k, k, k);
      }
    }
    for (const row of await db.all<{ cve_id: string }>(sql, params)) cves.add(row.cve_id);
  }
  return [...cves].sort();
}

export interface CriterionRecord {
  cve_id: string;
  part: string;
  vendor: string;
  product: string;
  vulnerable: number;
  source: string;
  criterion: string;
  exact_key: string | null;
  start_key: string | null;
  start_incl: number | null;
  end_key: string | null;
  end_incl: number | null;
  unbounded: number;
  always_check: number;
}

const CRITERION_COLUMNS =
  'cve_id, part, vendor, product, vulnerable, source, criterion, exact_key, start_key, start_incl, end_key, end_incl, unbounded, always_check';

export function toCriterion(row: CriterionRecord): StoredCriterion {
  const out: StoredCriterion = {
    cveId: row.cve_id,
    part: row.part,
    vendor: row.vendor,
    product: row.product,
    vulnerable: Number(row.vulnerable) === 1,
    source: row.source as StoredCriterion['source'],
    criterion: row.criterion,
  };
  if (row.exact_key !== null) out.exactKey = row.exact_key;
  if (row.start_key !== null) {
    out.startKey = row.start_key;
    out.startInclusive = Number(row.start_incl) === 1;
  }
  if (row.end_key !== null) {
    out.endKey = row.end_key;
    out.endInclusive = Number(row.end_incl) === 1;
  }
  if (Number(row.unbounded) === 1) out.unbounded = true;
  if (Number(row.always_check) === 1) out.alwaysCheck = true;
  return out;
}

/**
 * The candidate criteria of each name, one query per product (names of a page mostly share a few
 * products): the product's rows from the lowest key of its names up, then the contract per name.
 */
export async function criteriaOfNames(db: Sql, names: readonly KnowledgeName[]): Promise<StoredCriterion[][]> {
  const groups = new Map<string, number[]>();
  names.forEach((name, i) => {
    const key = productKey(name.part, name.vendor, name.product);
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  const result: StoredCriterion[][] = names.map(() => []);
  for (const indexes of groups.values()) {
    const first = names[indexes[0]!]!;
    const keys = indexes.map((i) => keysOf(names[i]!));
    const params: SqlValue[] = [first.part, first.vendor, first.product];
    let sql = `SELECT ${CRITERION_COLUMNS} FROM knowledge_criteria WHERE ${PRODUCT_MATCH}`;
    if (keys.every((k) => k !== undefined)) {
      const lowest = keys.flatMap((k) => [k!.raw, k!.folded]).reduce((a, b) => (a < b ? a : b));
      sql += ` AND scan_key >= ?`;
      params.push(scanFloor(lowest));
    }
    const rows = (await db.all<CriterionRecord>(`${sql} ORDER BY cve_id, id`, params)).map(toCriterion);
    for (let j = 0; j < indexes.length; j++) {
      const key = keys[j];
      result[indexes[j]!] = rows.filter((row) => criterionMayMatch(row, key));
    }
  }
  return result;
}

export async function applicabilityOf(db: Sql, cveIds: readonly string[]): Promise<CveApplicability[]> {
  const out: CveApplicability[] = [];
  for (const ids of chunks([...new Set(cveIds)].sort())) {
    const rows = await db.all<{ applicability: string }>(
      `SELECT applicability FROM knowledge_cves WHERE cve_id IN (${placeholders(ids.length)}) ORDER BY cve_id`,
      ids,
    );
    for (const row of rows) out.push(JSON.parse(row.applicability) as CveApplicability);
  }
  return out;
}

/** Stored content hash per CVE (CVEs without knowledge are absent). */
export async function contentHashes(db: Sql, cveIds: readonly string[]): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  for (const ids of chunks([...new Set(cveIds)])) {
    const rows = await db.all<{ cve_id: string; content_hash: string }>(
      `SELECT cve_id, content_hash FROM knowledge_cves WHERE cve_id IN (${placeholders(ids.length)})`,
      ids,
    );
    for (const row of rows) result.set(row.cve_id, row.content_hash);
  }
  return result;
}

export interface KnowledgeWrite extends DerivedKnowledge {
  contentHash: string;
}

/**
 * Replaces the knowledge of `cveIds` inside the caller's (locked) transaction: their criteria and
 * applicability go, the writes (a subset of those CVEs) come in, name references follow, and the
 * generation moves when anything changed.
 */
export async function replaceKnowledge(
  tx: Sql,
  cveIds: readonly string[],
  writes: readonly KnowledgeWrite[],
): Promise<KnowledgeChange> {
  const ids = [...new Set([...cveIds, ...writes.map((w) => w.applicability.cveId)])].sort();
  if (ids.length === 0) return { cvesChanged: 0, criteria: 0, touchedProducts: [] };
  const touched = new Set<string>();
  const deltas = new Map<string, { name: NameIdentity; delta: number }>();
  const addRef = (name: NameIdentity, delta: number) => {
    const entry = deltas.get(name.id);
    if (entry) entry.delta += delta;
    else deltas.set(name.id, { name, delta });
  };
  const existing = new Set<string>();
  for (const chunk of chunks(ids)) {
    const had = await tx.all<{ cve_id: string }>(
      `SELECT cve_id FROM knowledge_cves WHERE cve_id IN (${placeholders(chunk.length)})`,
      chunk,
    );
    for (const row of had) existing.add(row.cve_id);
    const old = await tx.all<{
      part: string;
      vendor: string;
      product: string;
      criterion: string;
      name_id: string | null;
    }>(
      `SELECT part, vendor, product, criterion, name_id FROM knowledge_criteria WHERE cve_id IN (${placeholders(chunk.length)})`,
      chunk,
    );
    for (const row of old) {
      touched.add(productKey(row.part, row.vendor, row.product));
      if (row.name_id !== null) {
        // The stored id decides (the row exists: it was counted when the criterion came in).
        const name = concreteName(row.criterion);
        addRef(
          name && name.id === row.name_id
            ? name
            : { id: row.name_id, cpe: row.criterion, part: '-', vendor: '-', product: '-', version: '-' },
          -1,
        );
      }
    }
    await tx.run(`DELETE FROM knowledge_criteria WHERE cve_id IN (${placeholders(chunk.length)})`, chunk);
    await tx.run(`DELETE FROM knowledge_cves WHERE cve_id IN (${placeholders(chunk.length)})`, chunk);
  }
  const now = Date.now();
  const unique = new Map(writes.map((w) => [w.applicability.cveId, w]));
  const ordered = [...unique.values()].sort((a, b) => (a.applicability.cveId < b.applicability.cveId ? -1 : 1));
  for (const chunk of chunks(ordered, CRITERIA_CHUNK)) {
    const params: SqlValue[] = [];
    for (const w of chunk)
      params.push(w.applicability.cveId, w.applicability.origin, w.contentHash, JSON.stringify(w.applicability), now);
    await tx.run(
      `INSERT INTO knowledge_cves (cve_id, origin, content_hash, applicability, updated_at) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      params,
    );
  }
  const rows: SqlValue[][] = [];
  for (const w of ordered) {
    const decided = decidedByOwnHit(w.applicability) ? 1 : 0;
    for (const c of w.criteria) {
      touched.add(productKey(c.part, c.vendor, c.product));
      const name = concreteName(c.criterion);
      if (name) addRef(name, 1);
      rows.push([
        w.applicability.cveId,
        c.part,
        c.vendor,
        c.product,
        c.vulnerable ? 1 : 0,
        c.source,
        c.criterion,
        c.exactKey ?? null,
        c.startKey ?? null,
        c.startKey !== undefined ? (c.startInclusive ? 1 : 0) : null,
        c.endKey ?? null,
        c.endKey !== undefined ? (c.endInclusive ? 1 : 0) : null,
        c.unbounded ? 1 : 0,
        c.alwaysCheck ? 1 : 0,
        scanKeyOf(c),
        name?.id ?? null,
        decided,
      ]);
    }
  }
  for (const chunk of chunks(rows, CRITERIA_CHUNK)) {
    await tx.run(
      `INSERT INTO knowledge_criteria (cve_id, part, vendor, product, vulnerable, source, criterion, exact_key, start_key,
         start_incl, end_key, end_incl, unbounded, always_check, scan_key, name_id, decided)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      chunk.flat(),
    );
  }
  await adjustNameRefs(tx, deltas);
  const cvesChanged = new Set([...existing, ...ordered.map((w) => w.applicability.cveId)]).size;
  if (cvesChanged > 0) {
    await bumpGeneration(tx);
    await logProductChanges(tx, await knowledgeGeneration(tx), [...touched]);
  }
  return { cvesChanged, criteria: rows.length, touchedProducts: [...touched].sort() };
}
