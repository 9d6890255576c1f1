/**
 * On PostgreSQL, knowledge writes take the planner's statistics again as the tables grow, so lookups
 * by CVE id keep using their index during a load (autovacuum's statistics lag behind).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { oneCriterion, writeOf } from '../search/cpe-cves/random-knowledge.js';
import { POSTGRES_URL, postgresCase } from '../support/engines.js';

describe.runIf(POSTGRES_URL)('knowledge statistics (postgres)', () => {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await postgresCase.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  const estimatedRows = async (table: string) =>
    Number(
      (
        await storage.db.get<{ n: number }>(
          `SELECT reltuples AS n FROM pg_class WHERE oid = to_regclass(current_schema() || '.' || ?)`,
          [table],
        )
      )?.n,
    );

  it('follow the criteria table from a handful of rows to thousands', async () => {
    const write = (from: number, count: number) =>
      storage.knowledge.replace(
        Array.from({ length: count }, (_, i) =>
          writeOf(
            `CVE-2025-${String(10_000 + from + i)}`,
            oneCriterion(`cpe:2.3:a:acme:widget${(from + i) % 97}:*:*:*:*:*:*:*:*`, '2.0'),
          ),
        ),
      );
    await write(0, 10);
    // Never analysed: PostgreSQL knows nothing of the table's size.
    expect(await estimatedRows('knowledge_criteria')).toBeLessThanOrEqual(10);
    for (let from = 10; from < 6_010; from += 1_000) await write(from, 1_000);
    expect(await estimatedRows('knowledge_criteria')).toBeGreaterThan(4_000);
    expect(await estimatedRows('knowledge_cves')).toBeGreaterThan(4_000);
  }, 120_000);
});
