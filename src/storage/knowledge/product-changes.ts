/**
 * `knowledge_product_changes`: the product keys (`part:vendor:product`, `*` for ANY) whose criteria
 * each knowledge generation removed or wrote, written in the writer's transaction. Writers hold the
 * generation lock, so rows commit in generation order and a reader that saw generation G has every
 * row up to G. Only the last {@link PRODUCT_CHANGES_KEPT} generations are kept: a reader further
 * behind treats every product as changed.
 */
import { announce, type Sql } from '../database.js';
import { chunks } from '../advisories/sql-lists.js';
import { KNOWLEDGE_CHANGES_CHANNEL } from './channel.js';

export const PRODUCT_CHANGES_KEPT = 10_000;

export async function logProductChanges(tx: Sql, generation: number, productKeys: readonly string[]): Promise<void> {
  for (const chunk of chunks([...new Set(productKeys)], 250)) {
    const params = chunk.flatMap((key) => [generation, key]);
    await tx.run(
      `INSERT INTO knowledge_product_changes (generation, product_key) VALUES ${chunk.map(() => '(?, ?)').join(', ')}`,
      params,
    );
  }
  await tx.run(`DELETE FROM knowledge_product_changes WHERE generation <= ?`, [generation - PRODUCT_CHANGES_KEPT]);
  await announce(tx, KNOWLEDGE_CHANGES_CHANNEL);
}

export interface ProductChanges {
  /** The generation read (every change up to it is in `changes`). */
  generation: number;
  /** True when changes after `after` may have been pruned: treat every product as changed. */
  complete: boolean;
  /** Product key → the latest generation (≤ `generation`) that touched it. */
  changes: Map<string, number>;
}

/**
 * The products changed after generation `after`, up to the current generation. More than `limit`
 * entries (a bulk load: reading them would hold a SQLite server longer than rebuilding lazily)
 * come back as `complete: false`.
 */
export async function productChangesSince(db: Sql, after: number, limit = 5000): Promise<ProductChanges> {
  const row = await db.get<{ value: number }>(`SELECT value FROM knowledge_meta WHERE name = 'generation'`);
  const generation = Number(row?.value ?? 0);
  const changes = new Map<string, number>();
  if (generation <= after) return { generation, complete: true, changes };
  if (generation - after >= PRODUCT_CHANGES_KEPT) return { generation, complete: false, changes };
  const rows = await db.all<{ generation: number; product_key: string }>(
    `SELECT generation, product_key FROM knowledge_product_changes WHERE generation > ? AND generation <= ? LIMIT ?`,
    [after, generation, limit + 1],
  );
  if (rows.length > limit) return { generation, complete: false, changes };
  for (const r of rows) {
    const g = Number(r.generation);
    if ((changes.get(r.product_key) ?? -1) < g) changes.set(r.product_key, g);
  }
  return { generation, complete: true, changes };
}
