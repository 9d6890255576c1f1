/**
 * Host matching's candidates from a product's rows held in memory equal storage's candidate query
 * (the index contract in SQL) for random knowledge and host names (version families included),
 * on both engines, after every knowledge change, also from a second storage connection that
 * learns the changes only from the database, and with a budget that holds one product at most.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostLookupOf } from '../../../src/core/applicability/index-keys.js';
import { parseCpe } from '../../../src/core/cpe.js';
import { CpeCveIndex } from '../../../src/search/cpe-cves/cpe-cve-index.js';
import { createStorage, type Storage } from '../../../src/storage/index.js';
import { engineCases } from '../../support/engines.js';
import { applicability, changingKnowledge, knowledgeChanges, name } from './random-knowledge.js';

describe.each(engineCases())('candidates from held product rows ($name)', (engine) => {
  let storage: Storage;
  let other: Storage;
  let drop: () => Promise<void>;
  let index: CpeCveIndex;
  let otherIndex: CpeCveIndex;
  let tinyIndex: CpeCveIndex;
  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
    other = await createStorage(fresh.config, { migrate: false });
    index = new CpeCveIndex(storage.knowledge);
    otherIndex = new CpeCveIndex(other.knowledge);
    tinyIndex = new CpeCveIndex(other.knowledge, { maxCandidateRows: 1 });
  });
  afterAll(async () => {
    await other?.close();
    await storage?.close();
    await drop?.();
  });

  let nonEmpty = 0;
  const expectSameCandidates = async (names: string[]) => {
    for (const cpe of names) {
      const lookup = hostLookupOf(parseCpe(cpe));
      const expected = await storage.knowledge.candidateCves([lookup]);
      if (expected.length > 0) nonEmpty++;
      for (const held of [index, otherIndex, tinyIndex]) expect(await held.candidatesOfName(lookup)).toEqual(expected);
    }
  };

  it('equal the SQL candidates, before and after changes', async () => {
    const run = changingKnowledge(storage);
    await fc.assert(
      fc.asyncProperty(
        fc.array(applicability, { minLength: 1, maxLength: 12 }),
        fc.array(name, { minLength: 1, maxLength: 20 }),
        knowledgeChanges,
        (apps, names, changes) => run(apps, changes, () => expectSameCandidates(names)),
      ),
      { numRuns: engine.name === 'sqlite' ? 100 : 40 },
    );
    expect(nonEmpty).toBeGreaterThan(100);
  }, 300_000);
});
