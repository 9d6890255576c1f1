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
import { applicability, name, writeOf } from './random-knowledge.js';

const cveId = (i: number) => `CVE-2024-${String(1000 + i)}`;

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
    let written: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.array(applicability, { minLength: 1, maxLength: 12 }),
        fc.array(name, { minLength: 1, maxLength: 20 }),
        fc.array(fc.record({ at: fc.nat(), app: fc.option(applicability, { nil: undefined }) }), { maxLength: 4 }),
        async (apps, names, changes) => {
          if (written.length > 0) await storage.knowledge.remove(written);
          await storage.knowledge.replace(apps.map((app, i) => writeOf(cveId(i), app)));
          written = apps.map((_, i) => cveId(i));
          await expectSameCandidates(names);
          for (const change of changes) {
            const id = cveId(change.at % (apps.length + 2));
            if (change.app) await storage.knowledge.replace([writeOf(id, change.app)]);
            else await storage.knowledge.remove([id]);
            if (!written.includes(id)) written.push(id);
            await expectSameCandidates(names);
          }
        },
      ),
      { numRuns: engine.name === 'sqlite' ? 100 : 40 },
    );
    expect(nonEmpty).toBeGreaterThan(100);
  }, 300_000);
});
