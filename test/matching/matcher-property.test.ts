/**
 * The knowledge matcher (candidates from the criteria index, then the rules on those) confirms
 * exactly what the rules confirm when every CVE of the knowledge is evaluated against the context:
 * random knowledge of every NVD and CVE 5 form, random fingerprints and OS guesses, both engines.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmedCves, evaluateMany } from '../../src/core/applicability/evaluate.js';
import type { AffectedCpes, ContextCpe, CveApplicability, CveEvidence } from '../../src/core/applicability/types.js';
import { parseCpe } from '../../src/core/cpe.js';
import type { MatchContext } from '../../src/core/matching.js';
import { KnowledgeMatcher } from '../../src/services/matching/matcher.js';
import { storageKnowledgeSource } from '../../src/services/matching/source.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { engineCases } from '../support/engines.js';
import { applicability, name, writeOf } from '../search/cpe-cves/random-knowledge.js';

const cveId = (i: number) => `CVE-2024-${String(1000 + i)}`;

const context = fc.record({
  fingerprintCpes: fc.array(name, { maxLength: 3 }),
  osCpes: fc.array(name, { maxLength: 2 }),
});

const contextCpes = ({ fingerprintCpes, osCpes }: MatchContext): ContextCpe[] => [
  ...[...new Set(fingerprintCpes)].map((cpe) => ({ cpe, wfn: parseCpe(cpe), role: 'fingerprint' as const })),
  ...[...new Set(osCpes)].map((cpe) => ({ cpe, wfn: parseCpe(cpe), role: 'os' as const })),
];

/** The reference: every CVE's applicability evaluated against the whole context. */
function reference(apps: CveApplicability[], context: MatchContext): string[] {
  return confirmedCves(evaluateMany(apps, contextCpes(context)));
}

/** The reference evidence (what `explain=true` shows), CVE by CVE. */
function referenceEvidence(apps: CveApplicability[], context: MatchContext): CveEvidence[] {
  return [...evaluateMany(apps, contextCpes(context)).values()].flat();
}

describe.each(engineCases())('the knowledge matcher against the rules on every CVE ($name)', (engine) => {
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

  it('confirms the same CVEs for random knowledge and contexts', async () => {
    let written: string[] = [];
    let confirmed = 0;
    const runs = engine.name === 'sqlite' ? 150 : 60;
    await fc.assert(
      fc.asyncProperty(
        fc.array(applicability, { minLength: 1, maxLength: 12 }),
        fc.array(context, { minLength: 10, maxLength: 30 }),
        async (drawn, contexts) => {
          if (written.length > 0) await storage.knowledge.remove(written);
          const apps = drawn.map((app, i) => ({ cveId: cveId(i), ...app }));
          await storage.knowledge.replace(drawn.map((app, i) => writeOf(cveId(i), app)));
          written = apps.map((app) => app.cveId);
          // Half the runs as knowledge derived before the decided flag was stored.
          if (contexts.length % 2 === 0) await storage.db.run(`UPDATE knowledge_criteria SET decided = NULL`);
          const expected = contexts.map((c) => reference(apps, c));
          confirmed += expected.filter((cves) => cves.length > 0).length;
          for (const evidence of [false, true]) {
            const matcher = new KnowledgeMatcher(storageKnowledgeSource(storage), { evidence });
            expect((await matcher.matchAll(contexts)).map((m) => m.confirmed)).toEqual(expected);
          }
        },
      ),
      { numRuns: runs },
    );
    // The random knowledge does confirm CVEs (the comparison is not of empty lists).
    expect(confirmed).toBeGreaterThan(runs / 5);
  }, 300_000);

  it('explains with the same evidence as the rules on every CVE', async () => {
    // Every id a run can write (at most 12 CVEs), so nothing from an earlier run or test stays.
    const everyId = Array.from({ length: 20 }, (_, i) => cveId(i));
    let rows = 0;
    const runs = engine.name === 'sqlite' ? 100 : 40;
    await fc.assert(
      fc.asyncProperty(
        fc.array(applicability, { minLength: 1, maxLength: 12 }),
        fc.array(context, { minLength: 5, maxLength: 20 }),
        async (drawn, contexts) => {
          await storage.knowledge.remove(everyId);
          const apps = drawn.map((app, i) => ({ cveId: cveId(i), ...app }));
          await storage.knowledge.replace(drawn.map((app, i) => writeOf(cveId(i), app)));
          const expected = contexts.map((c) => referenceEvidence(apps, c));
          rows += expected.reduce((sum, evidence) => sum + evidence.length, 0);
          const matcher = new KnowledgeMatcher(storageKnowledgeSource(storage), { evidence: true });
          expect((await matcher.matchAll(contexts)).map((m) => m.evidence)).toEqual(expected);
        },
      ),
      { numRuns: runs },
    );
    // The comparison is not of empty lists.
    expect(rows).toBeGreaterThan(runs);
  }, 300_000);

  it('confirms CVE 5 entries without versions by their CPEs’ versions, updates folded in or not', async () => {
    const widget = (version: string, update = '*') => `cpe:2.3:a:acme:widget:${version}:${update}:*:*:*:*:*:*`;
    const entries: Array<[string, string]> = [
      [widget('7.4', 'p1'), 'affected'],
      [widget('7.4p1'), 'unknown'],
      [widget('7.4'), 'unaffected'],
      [widget('*'), 'affected'],
      [widget('*'), 'unknown'],
      [widget('2.0'), 'affected'],
    ];
    const cna = (entry: AffectedCpes): Omit<CveApplicability, 'cveId'> => ({
      origin: 'mitre-cvelist-v5',
      statements: [{ source: 'cna', configurations: [], affected: [entry] }],
    });
    // Enough CVEs with version lists that the product is matched through them, not prepared for NVD-style hits.
    const lists = ['1.0', '1.1', '1.2', '2.0', '2.1', '3.0', '3.1', '5', '6', '7.4', '7.4p1', '9'].map((version) =>
      cna({ cpes: [widget('*')], versions: [{ version, status: 'affected' }] }),
    );
    const drawn = [...entries.map(([cpe, defaultStatus]) => cna({ cpes: [cpe], defaultStatus })), ...lists];
    await storage.knowledge.remove(Array.from({ length: 20 }, (_, i) => cveId(i)));
    await storage.knowledge.replace(drawn.map((app, i) => writeOf(cveId(i), app)));
    const apps = drawn.map((app, i) => ({ cveId: cveId(i), ...app }));
    const contexts = ['7.4p1', '7.4', '2.0', '2.0.0', '3.1'].flatMap((version) =>
      ['*', 'p1', '-'].map((update): MatchContext => ({ fingerprintCpes: [widget(version, update)], osCpes: [] })),
    );
    const expected = contexts.map((c) => reference(apps, c));
    expect(expected.filter((cves) => cves.length > 1).length).toBeGreaterThan(3);
    const matcher = new KnowledgeMatcher(storageKnowledgeSource(storage), { evidence: false });
    expect((await matcher.matchAll(contexts)).map((m) => m.confirmed)).toEqual(expected);
  });
});
