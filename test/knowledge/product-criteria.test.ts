/**
 * productCriteria: every row whose part, vendor and product are the product's or `*`, each once,
 * whatever the page size (keyset pages over (scan_key, id) within each index range). The product
 * counts: every row key's rows and decided rows, whatever the page size.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, identityCombinations, type Storage } from '../../src/storage/index.js';
import { applicability, writeOf } from '../search/cpe-cves/random-knowledge.js';
import { engineCases } from '../support/engines.js';

const PRODUCTS = [
  { part: 'a', vendor: 'acme', product: 'widget' },
  { part: 'o', vendor: 'beta', product: 'gadget' },
  { part: 'a', vendor: 'beta', product: 'widget' },
];

describe.each(engineCases())('criteria of a product in pages ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  it('returns every applicable row once, for any page size', async () => {
    const apps = fc.sample(applicability, { numRuns: 150, seed: 7 });
    await storage.knowledge.replace(apps.map((app, i) => writeOf(`CVE-2024-${1000 + i}`, app)));
    const all = await storage.db.all<{
      cve_id: string;
      part: string;
      vendor: string;
      product: string;
      criterion: string;
      exact_key: string | null;
      start_key: string | null;
      end_key: string | null;
    }>(`SELECT cve_id, part, vendor, product, criterion, exact_key, start_key, end_key FROM knowledge_criteria`);
    const text = (row: { cveId: string; criterion: string; exactKey?: string; startKey?: string; endKey?: string }) =>
      [row.cveId, row.criterion, row.exactKey ?? '', row.startKey ?? '', row.endKey ?? ''].join('|');
    for (const product of PRODUCTS) {
      const expected = all
        .filter(
          (row) =>
            [product.part, '*'].includes(row.part) &&
            [product.vendor, '*'].includes(row.vendor) &&
            [product.product, '*'].includes(row.product),
        )
        .map((row) =>
          text({
            cveId: row.cve_id,
            criterion: row.criterion,
            ...(row.exact_key !== null ? { exactKey: row.exact_key } : {}),
            ...(row.start_key !== null ? { startKey: row.start_key } : {}),
            ...(row.end_key !== null ? { endKey: row.end_key } : {}),
          }),
        )
        .sort();
      expect(expected.length).toBeGreaterThan(20);
      for (const pageSize of [1, 7, 50, 10_000]) {
        const got: string[] = [];
        let pages = 0;
        for await (const page of storage.knowledge.productCriteria(product, { pageSize })) {
          expect(page.length).toBeLessThanOrEqual(pageSize);
          pages++;
          for (const row of page) got.push(text(row));
        }
        expect(got.sort(), `page size ${pageSize}`).toEqual(expected);
        if (pageSize === 1) expect(pages).toBe(expected.length);
      }
      // Keys with their counts: a key within the page size is one statement, even when its count is stale.
      const counted = await Promise.all(
        identityCombinations(product).map((key) => storage.knowledge.productCounts(key)),
      );
      for (const keys of [counted, counted.map((key) => ({ ...key, rows: 1 }))]) {
        for (const pageSize of [7, 10_000]) {
          const got: string[] = [];
          for await (const page of storage.knowledge.productCriteria(product, { pageSize, keys }))
            for (const row of page) {
              const key = keys.find((k) => k.part === row.part && k.vendor === row.vendor && k.product === row.product);
              expect(key, `${row.part}:${row.vendor}:${row.product} is a key read`).toBeDefined();
              got.push(text(row));
            }
          expect(got.sort(), `counted keys, page size ${pageSize}`).toEqual(expected);
        }
      }
    }
  });

  it('counts every row key and its decided rows, whatever the page size', async () => {
    const expected = (
      await storage.db.all<{ part: string; vendor: string; product: string; n: number; d: number | null }>(
        `SELECT part, vendor, product, COUNT(*) AS n, SUM(decided) AS d FROM knowledge_criteria GROUP BY part, vendor, product`,
      )
    )
      .map((row) => `${row.part}:${row.vendor}:${row.product}=${Number(row.n)}/${Number(row.d ?? 0)}`)
      .sort();
    expect(expected.length).toBeGreaterThan(5);
    expect(expected.some((entry) => entry.startsWith('*:') || entry.includes(':*:'))).toBe(true);
    const text = (c: { part: string; vendor: string; product: string; rows: number; decided: number }) =>
      `${c.part}:${c.vendor}:${c.product}=${c.rows}/${c.decided}`;
    for (const limit of [1, 3, 1000]) {
      const got: string[] = [];
      let after: { part: string; vendor: string; product: string } | undefined;
      for (;;) {
        const page = await storage.knowledge.productCountsPage(after, limit);
        expect(page.length).toBeLessThanOrEqual(limit);
        got.push(...page.map(text));
        if (page.length < limit) break;
        after = page[page.length - 1];
      }
      expect(got.sort(), `limit ${limit}`).toEqual(expected);
    }
    for (const entry of expected) {
      const [part, vendor, product] = entry.split('=')[0]!.split(':');
      expect(text(await storage.knowledge.productCounts({ part: part!, vendor: vendor!, product: product! }))).toBe(
        entry,
      );
    }
    expect(await storage.knowledge.productCounts({ part: 'a', vendor: 'nobody', product: 'nothing' })).toEqual({
      part: 'a',
      vendor: 'nobody',
      product: 'nothing',
      rows: 0,
      decided: 0,
    });
  });
});
