/**
 * CPE search pages listing more than 2,000 CVE links are written with each name's CVE list copied
 * from its product's id table: as one buffer up to 100,000 links, streamed past that. Both must be
 * the same JSON, ids ascending, as the evaluation of every candidate criterion gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cvesOfNamesByEvaluation } from '../../src/services/matching/name-cves.js';
import { oneCriterion, writeOf } from '../search/cpe-cves/random-knowledge.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

interface PageCase {
  product: string;
  names: number;
  cves: number;
  /** The version a CVE's range ends before (none: every version). */
  endOf?: (i: number) => string;
  /** The links the page must carry at least (the path under test). */
  links: number;
}

const CASES: PageCase[] = [
  // 1,500 + 1,000 + 500 links: one buffer.
  { product: 'mid', names: 3, cves: 1_500, endOf: (i) => `${2 + (i % 3)}`, links: 2_000 },
  // 60 names × 2,000 CVEs: streamed.
  { product: 'big', names: 60, cves: 2_000, links: 100_000 },
];

const nameOf = (product: string, version: number) => `cpe:2.3:a:acme:${product}:${version}:*:*:*:*:*:*:*`;

describe.each(engineCases())('GET /v3/search/cpe pages written from byte tables ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    let next = 10_000;
    for (const page of CASES) {
      const names = Array.from({ length: page.names }, (_, i) => nameOf(page.product, i + 1));
      await t.storage.knowledge.upsertCpeNames(names.map((cpe) => ({ cpe, kind: 'product' as const })));
      const writes = Array.from({ length: page.cves }, (_, i) =>
        writeOf(`CVE-2024-${next++}`, oneCriterion(`cpe:2.3:a:acme:${page.product}:*:*:*:*:*:*:*:*`, page.endOf?.(i))),
      );
      for (let start = 0; start < writes.length; start += 2500)
        await t.storage.knowledge.replace(writes.slice(start, start + 2500));
    }
  }, 120_000);
  afterAll(() => t?.close());

  describe.each(CASES)('acme:$product ($names names, $cves CVEs)', (page) => {
    it.each([false, true])('gives the evaluated CVE lists (isVulnerable=%s)', async (vulnerableOnly) => {
      const { status, body } = await t.get(
        `/v3/search/cpe?vendor=acme&product=${page.product}${vulnerableOnly ? '&isVulnerable=true' : ''}`,
      );
      expect(status).toBe(200);
      const names = Array.from({ length: page.names }, (_, i) => nameOf(page.product, i + 1)).sort();
      const expected = await cvesOfNamesByEvaluation(t.storage, names, vulnerableOnly);
      expect(expected.reduce((sum, cves) => sum + cves.length, 0)).toBeGreaterThan(page.links);
      expect(body._meta.total_documents).toBe(page.names);
      expect(body.data.map((row: { cpe: string }) => row.cpe)).toEqual(names);
      expect(body.data.map((row: { cves: string[] }) => row.cves)).toEqual(expected);
      expect(body.data[0].cpe_struct).toMatchObject({ vendor: 'acme', product: page.product });
    });
  });
});
