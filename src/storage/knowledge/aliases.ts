/**
 * `cpe_aliases`: product-level renames from dictionary deprecations. A rename links two product
 * keys; `aliasesOf` follows links in both directions, transitively (igor_sysoev:nginx →
 * nginx:nginx → f5:nginx), stopping at keys already reached, so cycles end.
 */
import type { Sql, SqlValue } from '../database.js';
import { chunks } from '../advisories/sql-lists.js';
import { parseProductKey, productKey } from './names.js';
import type { CpeAlias } from './types.js';

/** Keys per lookup statement (each key is three values, in both directions). */
const KEY_CHUNK = 100;
/** A rename graph larger than this around one product is not followed further. */
const MAX_ALIASES = 1000;

/** Adds renames (known ones stay); returns the product keys of both ends of each new rename. */
export async function upsertAliases(
  tx: Sql,
  aliases: readonly CpeAlias[],
): Promise<{ added: number; touchedProducts: string[] }> {
  const unique = new Map<string, CpeAlias>();
  for (const alias of aliases) {
    const from = productKey(alias.from.part, alias.from.vendor, alias.from.product);
    const to = productKey(alias.to.part, alias.to.vendor, alias.to.product);
    if (from === to) continue;
    unique.set(`${from}\u0000${to}`, alias);
  }
  const sorted = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, alias]) => alias);
  let added = 0;
  const touched = new Set<string>();
  for (const chunk of chunks(sorted, 200)) {
    const params: SqlValue[] = [];
    for (const a of chunk)
      params.push(a.from.part, a.from.vendor, a.from.product, a.to.part, a.to.vendor, a.to.product, a.source);
    const inserted = await tx.all<AliasRow>(
      `INSERT INTO cpe_aliases (part, vendor, product, to_part, to_vendor, to_product, source)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (part, vendor, product, to_part, to_vendor, to_product) DO NOTHING
       RETURNING part, vendor, product, to_part, to_vendor, to_product`,
      params,
    );
    added += inserted.length;
    for (const row of inserted) {
      touched.add(productKey(row.part, row.vendor, row.product));
      touched.add(productKey(row.to_part, row.to_vendor, row.to_product));
    }
  }
  return { added, touchedProducts: [...touched].sort() };
}

interface AliasRow {
  part: string;
  vendor: string;
  product: string;
  to_part: string;
  to_vendor: string;
  to_product: string;
}

/** Direct neighbours (both directions) of each key. */
async function neighbours(db: Sql, keys: string[]): Promise<Map<string, Set<string>>> {
  const result = new Map<string, Set<string>>();
  const add = (from: string, to: string) => {
    let set = result.get(from);
    if (!set) {
      set = new Set();
      result.set(from, set);
    }
    set.add(to);
  };
  const parsed = keys.map(parseProductKey).filter((k): k is NonNullable<typeof k> => k !== undefined);
  for (const chunk of chunks(parsed, KEY_CHUNK)) {
    const forward = chunk.map(() => '(part = ? AND vendor = ? AND product = ?)').join(' OR ');
    const backward = chunk.map(() => '(to_part = ? AND to_vendor = ? AND to_product = ?)').join(' OR ');
    const values = chunk.flatMap((k) => [k.part, k.vendor, k.product]);
    const rows = await db.all<AliasRow>(
      `SELECT part, vendor, product, to_part, to_vendor, to_product FROM cpe_aliases WHERE ${forward}
       UNION
       SELECT part, vendor, product, to_part, to_vendor, to_product FROM cpe_aliases WHERE ${backward}`,
      [...values, ...values],
    );
    for (const row of rows) {
      const from = productKey(row.part, row.vendor, row.product);
      const to = productKey(row.to_part, row.to_vendor, row.to_product);
      add(from, to);
      add(to, from);
    }
  }
  return result;
}

/** For each key, every product key linked to it by renames (either direction, transitively), itself excluded, sorted. */
export async function aliasesOf(db: Sql, productKeys: readonly string[]): Promise<Map<string, string[]>> {
  const keys = [...new Set(productKeys)];
  // One breadth-first walk over the union of all keys' components, then split per key.
  const graph = new Map<string, Set<string>>();
  let frontier = keys;
  const visited = new Set<string>(keys);
  while (frontier.length > 0 && visited.size <= MAX_ALIASES * Math.max(1, keys.length)) {
    const found = await neighbours(db, frontier);
    const next: string[] = [];
    for (const [key, linked] of found) {
      let set = graph.get(key);
      if (!set) {
        set = new Set();
        graph.set(key, set);
      }
      for (const other of linked) {
        set.add(other);
        if (!visited.has(other)) {
          visited.add(other);
          next.push(other);
        }
      }
    }
    frontier = next;
  }
  const result = new Map<string, string[]>();
  for (const key of keys) {
    const seen = new Set<string>([key]);
    const queue = [key];
    while (queue.length > 0 && seen.size <= MAX_ALIASES) {
      for (const other of graph.get(queue.shift()!) ?? []) {
        if (!seen.has(other)) {
          seen.add(other);
          queue.push(other);
        }
      }
    }
    seen.delete(key);
    result.set(key, [...seen].sort());
  }
  return result;
}

/** Every rename as a pair of product keys (renames number in the thousands at most). */
export async function allAliases(db: Sql): Promise<Array<[string, string]>> {
  const rows = await db.all<AliasRow>(`SELECT part, vendor, product, to_part, to_vendor, to_product FROM cpe_aliases`);
  return rows.map((row) => [
    productKey(row.part, row.vendor, row.product),
    productKey(row.to_part, row.to_vendor, row.to_product),
  ]);
}
