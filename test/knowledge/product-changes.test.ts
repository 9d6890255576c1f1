/**
 * knowledge_product_changes: every knowledge write logs the products it touched under its new
 * generation, readable from any connection; a reader further behind than the log keeps is told
 * so (complete: false) and the log is pruned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { PRODUCT_CHANGES_KEPT } from '../../src/storage/knowledge/product-changes.js';
import { engineCases } from '../support/engines.js';
import { writeOf } from '../search/cpe-cves/random-knowledge.js';

const nvd = (criteria: string) => ({
  origin: 'nist-nvd2' as const,
  statements: [
    {
      source: 'nvd' as const,
      configurations: [
        {
          negate: false,
          nodes: [{ operator: 'OR' as const, negate: false, cpeMatch: [{ vulnerable: true, criteria }] }],
        },
      ],
      affected: [],
    },
  ],
});

describe.each(engineCases())('knowledge product changes ($name)', (engine) => {
  let storage: Storage;
  let reader: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
    reader = await createStorage(fresh.config, { migrate: false });
  });
  afterAll(async () => {
    await reader?.close();
    await storage?.close();
    await drop?.();
  });

  it('logs the products of removed and written criteria under the new generation', async () => {
    const start = await storage.knowledge.generation();
    await storage.knowledge.replace([writeOf('CVE-2024-0001', nvd('cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*:*'))]);
    await storage.knowledge.replace([writeOf('CVE-2024-0001', nvd('cpe:2.3:a:*:gadget:*:*:*:*:*:*:*:*'))]);
    const now = await storage.knowledge.generation();
    const changes = await reader.knowledge.productChangesSince(start);
    expect(changes).toEqual({
      generation: now,
      complete: true,
      changes: new Map([
        ['a:acme:widget', now],
        ['a:*:gadget', now],
      ]),
    });
    const first = await reader.knowledge.productChangesSince(start);
    expect((await reader.knowledge.productChangesSince(now)).changes.size).toBe(0);
    expect(first.changes.get('a:acme:widget')).toBe(now);
    // More entries than the reader wants to read: it is told to treat everything as changed.
    expect((await reader.knowledge.productChangesSince(start, 1)).complete).toBe(false);
    // A write that changes nothing moves nothing.
    await storage.knowledge.remove(['CVE-2099-0001']);
    expect(await storage.knowledge.generation()).toBe(now);
  });

  it('tells a reader further behind than the log keeps, and prunes the log', async () => {
    const before = await storage.knowledge.generation();
    await storage.db.run(`UPDATE knowledge_meta SET value = value + ? WHERE name = 'generation'`, [
      PRODUCT_CHANGES_KEPT,
    ]);
    await storage.knowledge.replace([writeOf('CVE-2024-0002', nvd('cpe:2.3:o:beta:box:*:*:*:*:*:*:*:*'))]);
    expect((await reader.knowledge.productChangesSince(before)).complete).toBe(false);
    const rows = await storage.db.all<{ generation: number }>(`SELECT generation FROM knowledge_product_changes`);
    const now = await storage.knowledge.generation();
    expect(rows.every((row) => Number(row.generation) > now - PRODUCT_CHANGES_KEPT)).toBe(true);
    expect((await reader.knowledge.productChangesSince(now - 1)).changes).toEqual(new Map([['o:beta:box', now]]));
  });
});
