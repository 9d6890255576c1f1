/**
 * The confirmed-only evaluation (what ingest and re-mapping use) says what the evidence says:
 * `isConfirmed` is true exactly when `evaluateApplicability` returns a confirmed row, and
 * `mayBeConfirmed`, read from the context's products alone, never rules out a confirmed CVE.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  confirmedAlone,
  confirmedByMarks,
  isConfirmed,
  marksOf,
  mayBeConfirmed,
  mayMark,
  productsOf,
} from '../../src/core/applicability/confirmed.js';
import { evaluateApplicability, standsAlone } from '../../src/core/applicability/evaluate.js';
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

describe('confirmedAlone', () => {
  it('says what the marks of one name say, for CVEs whose configurations stand alone', () => {
    let alone = 0;
    let confirmed = 0;
    fc.assert(
      fc.property(applicability, context, (drawn, cpes) => {
        const app: CveApplicability = { cveId: 'CVE-2024-0001', ...drawn };
        if (!standsAlone(app)) return;
        alone++;
        for (const input of cpes) {
          const expected = confirmedByMarks(app, [marksOf(app, input)]);
          if (expected) confirmed++;
          expect(confirmedAlone(app, input)).toBe(expected);
        }
      }),
      { numRuns: 4000 },
    );
    expect(alone).toBeGreaterThan(500);
    expect(confirmed).toBeGreaterThan(30);
  });
});

describe('mayBeConfirmed', () => {
  it('is true whenever the context confirms the CVE, and rules some out otherwise', () => {
    let confirmed = 0;
    let ruledOut = 0;
    fc.assert(
      fc.property(applicability, context, (drawn, cpes) => {
        const app: CveApplicability = { cveId: 'CVE-2024-0001', ...drawn };
        const may = mayBeConfirmed(app, productsOf(cpes));
        if (isConfirmed(app, cpes)) {
          confirmed++;
          expect(may).toBe(true);
        } else if (!may) ruledOut++;
      }),
      { numRuns: 4000 },
    );
    expect(confirmed).toBeGreaterThan(30);
    expect(ruledOut).toBeGreaterThan(100);
  });

  it('a name that mayMark rules out leaves no mark but those every name leaves on unreadable criteria', () => {
    let ruledOut = 0;
    fc.assert(
      fc.property(applicability, context, (drawn, cpes) => {
        const app: CveApplicability = { cveId: 'CVE-2024-0001', ...drawn };
        const reference = marksOf(app, { ...cpes[0]!, wfn: parseCpe('cpe:2.3:a:nobody:nothing:1:*:*:*:*:*:*:*') });
        for (const input of cpes) {
          if (mayMark(app, input.wfn.product)) continue;
          ruledOut++;
          expect([...marksOf(app, input)]).toEqual([...reference]);
        }
      }),
      { numRuns: 2000 },
    );
    expect(ruledOut).toBeGreaterThan(100);
  });

  it.each([
    ['an AND with its platform absent', ['a:acme:app:1.0'], false],
    ['an AND with its platform present', ['a:acme:app:1.0', 'o:acme:os:-'], true],
    ['an AND whose platform a name without a product may be', ['a:acme:app:1.0', 'o:acme:*:*'], true],
    ['an AND whose vulnerable side no name has', ['o:acme:os:-'], false],
  ])('%s', (_, names, expected) => {
    const app: CveApplicability = {
      cveId: 'CVE-2024-0002',
      origin: 'nist-nvd2',
      statements: [
        {
          source: 'nvd',
          affected: [],
          configurations: [
            {
              operator: 'AND',
              negate: false,
              nodes: [
                {
                  operator: 'OR',
                  negate: false,
                  cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:acme:app:1.0:*:*:*:*:*:*:*' }],
                },
                {
                  operator: 'OR',
                  negate: false,
                  cpeMatch: [{ vulnerable: false, criteria: 'cpe:2.3:o:acme:os:-:*:*:*:*:*:*:*' }],
                },
              ],
            },
          ],
        },
      ],
    };
    const cpes = names.map((n) => {
      const cpe = `cpe:2.3:${n}:*:*:*:*:*:*:*`;
      return { cpe, wfn: parseCpe(cpe), role: 'fingerprint' as const };
    });
    expect(mayBeConfirmed(app, productsOf(cpes))).toBe(expected);
  });
});
