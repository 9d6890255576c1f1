/**
 * The confirmed-only evaluation (what ingest and re-mapping use) says what the evidence says:
 * `isConfirmed` is true exactly when `evaluateApplicability` returns a confirmed row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isConfirmed } from '../../src/core/applicability/confirmed.js';
import { evaluateApplicability } from '../../src/core/applicability/evaluate.js';
import type { ContextCpe, CveApplicability } from '../../src/core/applicability/types.js';
import { parseCpe } from '../../src/core/cpe.js';
import { applicability, name } from '../search/cpe-cves/random-knowledge.js';

const context = fc
  .record({ fingerprints: fc.array(name, { minLength: 1, maxLength: 3 }), os: fc.array(name, { maxLength: 2 }) })
  .map(({ fingerprints, os }): ContextCpe[] => [
    ...fingerprints.map((cpe) => ({ cpe, wfn: parseCpe(cpe), role: 'fingerprint' as const })),
    ...os.map((cpe) => ({ cpe, wfn: parseCpe(cpe), role: 'os' as const })),
  ]);

describe('isConfirmed', () => {
  it('agrees with the evidence for random knowledge and contexts', () => {
    let confirmed = 0;
    fc.assert(
      fc.property(applicability, context, (drawn, cpes) => {
        const app: CveApplicability = { cveId: 'CVE-2024-0001', ...drawn };
        const expected = evaluateApplicability(app, cpes).some((row) => row.confirmed);
        if (expected) confirmed++;
        expect(isConfirmed(app, cpes)).toBe(expected);
      }),
      { numRuns: 4000 },
    );
    expect(confirmed).toBeGreaterThan(30);
  });
});
