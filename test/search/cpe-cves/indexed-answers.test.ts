/**
 * The CVEs of CPE names from the per-product structures equal the per-name evaluation of every
 * candidate criterion (cvesOfNamesByEvaluation, the implementation before them), on both engines,
 * for random knowledge and names, after every knowledge change, and in a second process (storage
 * connection) that learns the changes only from the database.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpeCveIndex } from '../../../src/search/cpe-cves/cpe-cve-index.js';
import { cvesOfNames, cvesOfNamesByEvaluation } from '../../../src/services/matching/name-cves.js';
import { createStorage, type Storage } from '../../../src/storage/index.js';
import { engineCases } from '../../support/engines.js';
import { applicability, changingKnowledge, knowledgeChanges, name, writeOf } from './random-knowledge.js';

describe.each(engineCases())('CVEs of CPE names from per-product structures ($name)', (engine) => {
  let storage: Storage;
  let other: Storage;
  let drop: () => Promise<void>;
  let otherIndex: CpeCveIndex;
  /** Holds one product at most: every other one is prepared again on its next use. */
  let tinyIndex: CpeCveIndex;
  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
    other = await createStorage(fresh.config, { migrate: false });
    otherIndex = new CpeCveIndex(other.knowledge);
    tinyIndex = new CpeCveIndex(other.knowledge, { maxRows: 1 });
  });
  afterAll(async () => {
    await other?.close();
    await storage?.close();
    await drop?.();
  });

  let nonEmpty = 0;
  const expectSameAnswers = async (names: string[]) => {
    for (const vulnerableOnly of [false, true]) {
      const expected = await cvesOfNamesByEvaluation(storage, names, vulnerableOnly);
      nonEmpty += expected.filter((cves) => cves.length > 0).length;
      expect(await cvesOfNames(storage, names, vulnerableOnly)).toEqual(expected);
      // The index leaves names that are not of a concrete product to the caller (undefined).
      const direct = await otherIndex.cvesOfNames(names, vulnerableOnly);
      expect(direct.map((cves, i) => cves ?? expected[i])).toEqual(expected);
      const tiny = await tinyIndex.cvesOfNames(names, vulnerableOnly);
      expect(tiny.map((cves, i) => cves ?? expected[i])).toEqual(expected);
      // GET /v3/cpe's union over many names equals the union of the per-name answers.
      const united = [...new Set(expected.flat())].sort();
      for (const index of [otherIndex, tinyIndex]) {
        const { ids, unindexed } = await index.cveUnionOfNames(names, vulnerableOnly);
        const rest = names.flatMap((cpe, i) => (unindexed.includes(cpe) ? expected[i]! : []));
        expect([...new Set([...ids, ...rest])].sort()).toEqual(united);
      }
    }
  };

  it('equal the evaluation of every candidate criterion, before and after changes', async () => {
    const run = changingKnowledge(storage);
    await fc.assert(
      fc.asyncProperty(
        fc.array(applicability, { minLength: 1, maxLength: 12 }),
        fc.array(name, { minLength: 1, maxLength: 20 }),
        knowledgeChanges,
        (apps, names, changes) => run(apps, changes, () => expectSameAnswers(names)),
      ),
      { numRuns: engine.name === 'sqlite' ? 150 : 60 },
    );
    // The random knowledge does link names to CVEs (the comparison is not of empty lists).
    expect(nonEmpty).toBeGreaterThan(100);
  }, 300_000);

  it('answer a name without a version, with NA, and one that is not a concrete product', async () => {
    await storage.knowledge.replace([
      writeOf('CVE-2024-9001', {
        origin: 'nist-nvd2',
        statements: [
          {
            source: 'nvd',
            configurations: [
              {
                negate: false,
                nodes: [
                  {
                    operator: 'OR',
                    negate: false,
                    cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*' }],
                  },
                ],
              },
            ],
            affected: [],
          },
        ],
      }),
    ]);
    await expectSameAnswers([
      'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*',
      'cpe:2.3:a:acme:widget:-:*:*:*:*:*:*:*',
      'cpe:2.3:a:acme:wid*:1.0:*:*:*:*:*:*:*',
      'cpe:2.3:a:*:widget:1.0:*:*:*:*:*:*:*',
    ]);
  });
});
