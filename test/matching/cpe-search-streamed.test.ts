/**
 * A CPE search page listing more CVE links than the route serialises at once (2,000) is streamed
 * with each name's CVE list written from its product's id table: the body must be the same JSON,
 * ids ascending, as the evaluation of every candidate criterion gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CveApplicability } from '../../src/core/applicability/types.js';
import { cvesOfNamesByEvaluation } from '../../src/services/matching/name-cves.js';
import { writeOf } from '../search/cpe-cves/random-knowledge.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

const CVES = 1_500;
const NAMES = ['1.0', '2.0', '3.0'].map((version) => `cpe:2.3:a:acme:big:${version}:*:*:*:*:*:*:*`);

/** CVE i is vulnerable below version 1 + i mod 3 (so names share some CVEs and not others). */
function applicabilityOf(i: number): Omit<CveApplicability, 'cveId'> {
  return {
    origin: 'nist-nvd2',
    statements: [
      {
        source: 'nvd',
        affected: [],
        configurations: [
          {
            negate: false,
            nodes: [
              {
                operator: 'OR',
                negate: false,
                cpeMatch: [
                  {
                    criteria: 'cpe:2.3:a:acme:big:*:*:*:*:*:*:*:*',
                    vulnerable: true,
                    range: { endExcluding: `${2 + (i % 3)}.0` },
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}

describe.each(engineCases())('GET /v3/search/cpe streamed page ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await t.storage.knowledge.upsertCpeNames(NAMES.map((cpe) => ({ cpe, kind: 'product' as const })));
    const writes = Array.from({ length: CVES }, (_, i) =>
      writeOf(`CVE-2024-${String(10_000 + i)}`, applicabilityOf(i)),
    );
    for (let start = 0; start < writes.length; start += 2500)
      await t.storage.knowledge.replace(writes.slice(start, start + 2500));
  }, 120_000);
  afterAll(() => t?.close());

  it.each([false, true])('gives the evaluated CVE lists (isVulnerable=%s)', async (vulnerableOnly) => {
    const { status, body } = await t.get(
      `/v3/search/cpe?vendor=acme&product=big${vulnerableOnly ? '&isVulnerable=true' : ''}`,
    );
    expect(status).toBe(200);
    const expected = await cvesOfNamesByEvaluation(t.storage, NAMES, vulnerableOnly);
    expect(expected.reduce((sum, cves) => sum + cves.length, 0)).toBeGreaterThan(2_000);
    expect(body._meta.total_documents).toBe(3);
    expect(body.data.map((row: { cpe: string }) => row.cpe)).toEqual(NAMES);
    expect(body.data.map((row: { cves: string[] }) => row.cves)).toEqual(expected);
    expect(body.data[0].cpe_struct).toMatchObject({ vendor: 'acme', product: 'big', version: '1\\.0' });
  });
});
