/**
 * `cpe_names`: the searchable CPE names. A name is there because the NVD dictionary has it
 * (`from_dictionary`) or because criteria name it (`criteria_refs` counts them); when neither
 * holds any more it goes. Ids are lower-cased CPE 2.3 strings, ordered bytewise on both engines.
 */
import { ANY, NA, formatCpe23, parseCpe, unquoteWfnValue, type Wfn } from '../../core/cpe.js';
import { nameLookupOf } from '../../core/applicability/index-keys.js';
import type { Sql, SqlValue } from '../database.js';
import { chunks, placeholders } from '../advisories/sql-lists.js';
import { logNameChanges } from './name-changes.js';
import type { CpeNameEntry, CpeNameSearch, CpeNameSearchResult, KnowledgeName } from './types.js';

/** A concrete name's row identity and search columns. */
export interface NameIdentity {
  id: string;
  cpe: string;
  part: string;
  vendor: string;
  product: string;
  version: string;
}

/** True when a WFN value holds an unquoted `*` or `?` (ANY included). */
function hasWildcard(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\') i++;
    else if (value[i] === '*' || value[i] === '?') return true;
  }
  return false;
}

const PARTS = new Set(['a', 'o', 'h']);

/**
 * The name a CPE string stands for when it is concrete: part a/o/h, vendor, product and version
 * given (version may be NA), and no wildcard in any attribute (other attributes may be ANY).
 * Undefined for patterns and unreadable strings.
 */
export function concreteName(cpe: string, parsed?: Wfn): NameIdentity | undefined {
  let wfn = parsed;
  if (!wfn) {
    try {
      wfn = parseCpe(cpe);
    } catch {
      return undefined;
    }
  }
  if (!PARTS.has(wfn.part)) return undefined;
  for (const value of [wfn.vendor, wfn.product]) if (value === NA || hasWildcard(value)) return undefined;
  if (hasWildcard(wfn.version)) return undefined;
  for (const attribute of ['update', 'edition', 'language', 'sw_edition', 'target_sw', 'target_hw', 'other'] as const) {
    const value = wfn[attribute];
    if (value !== ANY && hasWildcard(value)) return undefined;
  }
  return {
    id: formatCpe23(wfn),
    cpe,
    part: wfn.part,
    vendor: unquoteWfnValue(wfn.vendor),
    product: unquoteWfnValue(wfn.product),
    version: wfn.version === NA ? NA : unquoteWfnValue(wfn.version),
  };
}

/** How the criteria index looks a name up (core/applicability nameLookupOf; undefined for ANY part, vendor or product). */
export function knowledgeNameOf(wfn: Wfn): KnowledgeName | undefined {
  if (wfn.part === ANY || wfn.vendor === ANY || wfn.product === ANY) return undefined;
  return nameLookupOf(wfn);
}

export const productKey = (part: string, vendor: string, product: string) => `${part}:${vendor}:${product}`;

/** `part:vendor:product` → its values (the product may contain `:`). */
export function parseProductKey(key: string): { part: string; vendor: string; product: string } | undefined {
  const first = key.indexOf(':');
  const second = key.indexOf(':', first + 1);
  if (first < 0 || second < 0) return undefined;
  return { part: key.slice(0, first), vendor: key.slice(first + 1, second), product: key.slice(second + 1) };
}

/** Rows per multi-row statement on cpe_names (12 values each). */
const NAME_CHUNK = 200;

/**
 * Writes dictionary entries (a repeated name: a product entry wins over a match entry, the last
 * one among equals). Entries that are not concrete CPE names are returned as rejected.
 */
export async function upsertNames(
  tx: Sql,
  entries: readonly CpeNameEntry[],
): Promise<{ written: number; rejected: CpeNameEntry[] }> {
  const byId = new Map<string, { name: NameIdentity; entry: CpeNameEntry }>();
  const rejected: CpeNameEntry[] = [];
  for (const entry of entries) {
    const name = concreteName(entry.cpe);
    if (!name) {
      rejected.push(entry);
      continue;
    }
    const previous = byId.get(name.id);
    if (previous && previous.entry.kind === 'product' && entry.kind === 'match') continue;
    byId.set(name.id, { name, entry });
  }
  const sorted = [...byId.values()].sort((a, b) => (a.name.id < b.name.id ? -1 : a.name.id > b.name.id ? 1 : 0));
  const products = sorted.filter((item) => item.entry.kind === 'product');
  const matches = sorted.filter((item) => item.entry.kind === 'match');
  for (const chunk of chunks(products, NAME_CHUNK)) {
    const params: SqlValue[] = [];
    for (const { name, entry } of chunk) {
      params.push(
        name.id,
        entry.cpe,
        name.part,
        name.vendor,
        name.product,
        name.version,
        entry.deprecated ? 1 : 0,
        entry.deprecatedBy && entry.deprecatedBy.length > 0 ? JSON.stringify(entry.deprecatedBy) : null,
        entry.title ?? null,
        entry.lastModified ?? null,
      );
    }
    await tx.run(
      `INSERT INTO cpe_names (id, cpe, part, vendor, product, version, from_dictionary, criteria_refs, deprecated, deprecated_by, title, last_modified)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, 1, 0, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (id) DO UPDATE SET cpe = excluded.cpe, from_dictionary = 1, deprecated = excluded.deprecated,
         deprecated_by = excluded.deprecated_by, title = excluded.title, last_modified = excluded.last_modified`,
      params,
    );
  }
  for (const chunk of chunks(matches, NAME_CHUNK)) {
    const params: SqlValue[] = [];
    for (const { name, entry } of chunk)
      params.push(name.id, entry.cpe, name.part, name.vendor, name.product, name.version);
    await tx.run(
      `INSERT INTO cpe_names (id, cpe, part, vendor, product, version, from_dictionary, criteria_refs, deprecated, deprecated_by, title, last_modified)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, 1, 0, 0, NULL, NULL, NULL)').join(', ')}
       ON CONFLICT (id) DO UPDATE SET from_dictionary = 1`,
      params,
    );
  }
  await logNameChanges(
    tx,
    sorted.map((item) => item.name.id),
  );
  return { written: byId.size, rejected };
}

/**
 * Adds `delta` criteria references to each name (negative: references gone), creating names
 * criteria introduce, and removes names left with no reference that the dictionary does not have.
 */
export async function adjustNameRefs(
  tx: Sql,
  deltas: Map<string, { name: NameIdentity; delta: number }>,
): Promise<void> {
  const changed = [...deltas.values()]
    .filter((d) => d.delta !== 0)
    .sort((a, b) => (a.name.id < b.name.id ? -1 : a.name.id > b.name.id ? 1 : 0));
  for (const chunk of chunks(changed, NAME_CHUNK)) {
    const params: SqlValue[] = [];
    for (const { name, delta } of chunk)
      params.push(name.id, name.cpe, name.part, name.vendor, name.product, name.version, delta);
    await tx.run(
      `INSERT INTO cpe_names (id, cpe, part, vendor, product, version, from_dictionary, criteria_refs, deprecated, deprecated_by, title, last_modified)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, 0, ?, 0, NULL, NULL, NULL)').join(', ')}
       ON CONFLICT (id) DO UPDATE SET criteria_refs = cpe_names.criteria_refs + excluded.criteria_refs`,
      params,
    );
  }
  await logNameChanges(
    tx,
    changed.map((d) => d.name.id),
  );
  const decreased = changed.filter((d) => d.delta < 0).map((d) => d.name.id);
  for (const ids of chunks(decreased)) {
    await tx.run(
      `DELETE FROM cpe_names WHERE id IN (${placeholders(ids.length)}) AND criteria_refs <= 0 AND from_dictionary = 0`,
      ids,
    );
  }
}

/** The smallest string greater than every string starting with `prefix` (code-point, i.e. UTF-8 byte, order). */
export function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

export async function searchNames(db: Sql, search: CpeNameSearch): Promise<CpeNameSearchResult> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (search.part !== undefined) {
    where.push('part = ?');
    params.push(search.part.toLowerCase());
  }
  if (search.vendor !== undefined) {
    where.push('vendor = ?');
    params.push(search.vendor.trim().toLowerCase());
  }
  if (search.product !== undefined) {
    where.push('product = ?');
    params.push(search.product.trim().toLowerCase());
  }
  if (search.version !== undefined) {
    const version = search.version.trim().toLowerCase();
    if (!search.versionPrefix) {
      where.push('version = ?');
      params.push(version);
    } else if (version !== '') {
      where.push('version >= ?');
      params.push(version);
      const end = prefixEnd(version);
      if (end !== undefined) {
        where.push('version < ?');
        params.push(end);
      }
    }
  }
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const count = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM cpe_names ${clause}`, params);
  const total = Number(count?.n ?? 0);
  if (search.limit <= 0 || search.offset >= total) return { total, names: [] };
  const direction = search.order === 'desc' ? 'DESC' : 'ASC';
  const rows = await db.all<{ id: string; cpe: string; deprecated: number; title: string | null }>(
    `SELECT id, cpe, deprecated, title FROM cpe_names ${clause} ORDER BY id ${direction} LIMIT ? OFFSET ?`,
    [...params, search.limit, search.offset],
  );
  return {
    total,
    names: rows.map((row) => ({
      id: row.id,
      cpe: row.cpe,
      deprecated: Number(row.deprecated) === 1,
      ...(row.title !== null ? { title: row.title } : {}),
    })),
  };
}
