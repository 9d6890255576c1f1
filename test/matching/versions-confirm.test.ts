/**
 * `versionsConfirm` (what CVE 5 version lists ask of a candidate entry without platforms) answers
 * what relating the whole entry does for a CPE of it with ANY in every attribute but its identity:
 * confirmed exactly when that relation is a definite match.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COVERING_KINDS, HOST } from '../../src/core/applicability/evaluate.js';
import {
  isMatch,
  relateAffected,
  versionListConfirms,
  versionsConfirm,
} from '../../src/core/applicability/name-match.js';
import { ANY, CPE_ATTRIBUTES, parseCpe, type Wfn } from '../../src/core/cpe.js';
import { applicability, name } from '../search/cpe-cves/random-knowledge.js';

describe('versionsConfirm', () => {
  it.each([
    ['a release inside the range', '4.19.1', {}, true],
    ['a family the range cuts, for a host', '4', HOST, false],
    ['a family the range cuts, as CPE search reads it', '4', {}, true],
    ['a family wholly inside the range, for a host', '3', HOST, true],
    ['a release past the range', '4.19.2', HOST, false],
    ['a release the entry marks unaffected', '4.19.0', HOST, false],
  ])('%s', (_, version, options, expected) => {
    const entry = {
      cpes: ['cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*'],
      versions: [
        { version: '4.19.0', status: 'unaffected' },
        { version: '0', lessThan: '4.19.2', status: 'affected', versionType: 'semver' },
      ],
    };
    expect(versionsConfirm(entry, parseCpe(`cpe:2.3:o:linux:linux_kernel:${version}:*:*:*:*:*:*:*`), options)).toBe(
      expected,
    );
  });

  it('is a definite match of the entry for a CPE of ANY version, for random entries and names', () => {
    let entries = 0;
    let confirmed = 0;
    fc.assert(
      fc.property(applicability, name, (app, cpe) => {
        const wfn = parseCpe(cpe);
        const anyVersion = Object.fromEntries(
          CPE_ATTRIBUTES.map((attribute) => [
            attribute,
            ['part', 'vendor', 'product'].includes(attribute) ? wfn[attribute] : ANY,
          ]),
        ) as Wfn;
        for (const statement of app.statements)
          for (const entry of statement.affected) {
            // Version lists never place entries with platforms, which relating the entry reads too.
            if ((entry.versions ?? []).length === 0 || (entry.platforms ?? []).length > 0) continue;
            entries++;
            for (const options of [{}, HOST]) {
              const relation = relateAffected(anyVersion, entry, wfn, options);
              const expected = isMatch(relation) && relation.truth === 'definite';
              if (expected) confirmed++;
              expect(versionsConfirm(entry, wfn, options)).toBe(expected);
            }
          }
      }),
      { numRuns: 4000 },
    );
    expect(entries).toBeGreaterThan(200);
    expect(confirmed).toBeGreaterThan(50);
  });
});

describe('versionListConfirms', () => {
  it('where it answers, answers what relating the entry CPE does: a definite, covering match', () => {
    let answered = 0;
    let confirmed = 0;
    fc.assert(
      fc.property(applicability, name, (app, cpe) => {
        const wfn = parseCpe(cpe);
        for (const statement of app.statements)
          for (const entry of statement.affected)
            for (const entryCpe of entry.cpes) {
              const own = parseCpe(entryCpe);
              for (const options of [{}, HOST]) {
                const listed = versionListConfirms(own, entry, wfn, options);
                if (listed === undefined) continue;
                answered++;
                const relation = relateAffected(own, entry, wfn, options);
                const expected =
                  isMatch(relation) && relation.truth === 'definite' && COVERING_KINDS.has(relation.kind);
                if (expected) confirmed++;
                expect(listed).toBe(expected);
              }
            }
      }),
      { numRuns: 4000 },
    );
    expect(answered).toBeGreaterThan(500);
    expect(confirmed).toBeGreaterThan(20);
  });
});
