/**
 * Which CVE 5 `versions` entries a matcher can find by key (keyedListsFor): an entry is placed
 * where it can make a version affected, left out when it never can, and its whole list is given
 * to the full evaluation when the vendor order cannot place it. The matcher property test checks
 * the answers these placements lead to against the rules.
 */
import { describe, expect, it } from 'vitest';
import { keyedListsFor } from '../../src/core/applicability/version-lists.js';
import type { AffectedCpes, CveApplicability } from '../../src/core/applicability/types.js';
import { parseCpe } from '../../src/core/cpe.js';
import type { Cve5VersionEntry } from '../../src/core/version/cve5-affected.js';
import { versionSortKey } from '../../src/core/version/sort-key.js';

const NAME = parseCpe('cpe:2.3:a:acme:widget:2.1:*:*:*:*:*:*:*');
const key = (version: string) => versionSortKey(version)!;

/** A CVE whose one CNA statement has these affected entries. */
const cnaOf = (affected: AffectedCpes[]): CveApplicability => ({
  cveId: 'CVE-2024-0001',
  origin: 'mitre-cvelist-v5',
  statements: [{ source: 'cna', configurations: [], affected }],
});

function listFor(versions: Cve5VersionEntry[], entry: Partial<AffectedCpes> = {}) {
  const lists = keyedListsFor(cnaOf([{ cpes: ['cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*'], versions, ...entry }]), NAME);
  return lists === undefined ? 'evaluated' : lists.map(({ spans, texts }) => ({ spans, texts }));
}

const affected = (entry: Cve5VersionEntry): Cve5VersionEntry => ({ status: 'affected', ...entry });

describe('keyedListsFor places each versions entry', () => {
  const cases: Array<[string, Cve5VersionEntry[], ReturnType<typeof listFor>]> = [
    [
      'an affected vendor range by its bounds',
      [affected({ version: '1.0', lessThan: '2.4', versionType: 'custom' })],
      [{ spans: [{ start: key('1.0'), end: key('2.4') }], texts: [] }],
    ],
    [
      'an affected range from 0 with no lower bound',
      [affected({ version: '0', lessThanOrEqual: '2.4' })],
      [{ spans: [{ end: key('2.4') }], texts: [] }],
    ],
    [
      'an affected release by its key and its text',
      [affected({ version: '2.1' })],
      [{ spans: [{ start: key('2.1'), end: key('2.1') }], texts: ['2.1'] }],
    ],
    ['"all versions" everywhere', [affected({ version: 'all versions' })], [{ spans: [{}], texts: [] }]],
    [
      'an unaffected entry nowhere, whatever it says',
      [{ status: 'unaffected', version: '4.19.312', lessThanOrEqual: '4.19.*', versionType: 'custom' }],
      [{ spans: [], texts: [] }],
    ],
    ['an entry of unknown status nowhere', [{ status: 'unknown', version: 'n/a' }], [{ spans: [], texts: [] }]],
    [
      'an affected commit range nowhere (a release is never inside one)',
      [
        affected({ version: '1da177e4c3f4', lessThan: '0015581a79bb', versionType: 'git' }),
        affected({ version: '2.0' }),
      ],
      [{ spans: [{ start: key('2.0'), end: key('2.0') }], texts: ['2.0'] }],
    ],
    [
      'an affected commit by its text only',
      [affected({ version: 'abc123', versionType: 'git' })],
      [{ spans: [], texts: ['abc123'] }],
    ],
    ['a placeholder nowhere', [affected({ version: 'n/a' }), affected({ version: '-' })], [{ spans: [], texts: [] }]],
    [
      'a release no order can place by its text only',
      [affected({ version: 'Windows Vista Gold' })],
      [{ spans: [], texts: ['windows vista gold'] }],
    ],
    [
      'a text that reads like a range nowhere',
      [affected({ version: '1.x < 1.22.4, 0.10.x' })],
      [{ spans: [], texts: [] }],
    ],
    [
      'both bounds given nowhere',
      [affected({ version: '1.0', lessThan: '2.0', lessThanOrEqual: '2.0' })],
      [{ spans: [], texts: [] }],
    ],
    [
      'a range of a known scheme: evaluated',
      [affected({ version: '0', lessThan: '6.2', versionType: 'semver' })],
      'evaluated',
    ],
    ['a release line as a bound: evaluated', [affected({ version: '0', lessThanOrEqual: '7.3.x' })], 'evaluated'],
    ['a release line as a version: evaluated', [affected({ version: '2.10.x' })], 'evaluated'],
    ['an unreadable bound: evaluated', [affected({ version: '10.0.0', lessThan: 'publication' })], 'evaluated'],
    [
      'changes: evaluated',
      [affected({ version: '1.2.0', lessThan: '1.2.96', changes: [{ at: '1.2.5', status: 'unaffected' }] })],
      'evaluated',
    ],
  ];
  it.each(cases)('%s', (_, versions, expected) => {
    expect(listFor(versions)).toEqual(expected);
  });

  const widget = (version: string, update = '*') => `cpe:2.3:a:acme:widget:${version}:${update}:*:*:*:*:*:*`;
  const versionless: Array<[string, Partial<AffectedCpes>, ReturnType<typeof listFor>]> = [
    [
      'a CPE of every version, affected by default: everywhere',
      { defaultStatus: 'affected' },
      [{ spans: [{}], texts: [] }],
    ],
    [
      'a CPE of every version, not affected by default: nowhere',
      { defaultStatus: 'unknown' },
      [{ spans: [], texts: [] }],
    ],
    [
      'a CPE of one version: at that version',
      { cpes: [widget('2.1')] },
      [{ spans: [{ start: key('2.1'), end: key('2.1') }], texts: [] }],
    ],
    [
      'a CPE with an update: at its version and with the update folded in',
      { cpes: [widget('7.4', 'p1')] },
      [
        {
          spans: [
            { start: key('7.4'), end: key('7.4') },
            { start: key('7.4p1'), end: key('7.4p1') },
          ],
          texts: [],
        },
      ],
    ],
    [
      'a CPE of another product: nowhere',
      { cpes: [widget('2.1'), 'cpe:2.3:a:acme:gadget:2.1:*:*:*:*:*:*:*'] },
      [{ spans: [{ start: key('2.1'), end: key('2.1') }], texts: [] }],
    ],
    ['a CPE version with a pattern: evaluated', { cpes: [widget('2.*')] }, 'evaluated'],
  ];
  it.each(versionless)('without versions, %s', (_, entry, expected) => {
    expect(listFor([], entry)).toEqual(expected);
  });

  it('leaves out a CPE setting an attribute a plain name leaves ANY, and evaluates it for a name that sets one', () => {
    const app = cnaOf([
      { cpes: ['cpe:/a:acme:widget:8::crb'], versions: [{ status: 'affected', version: '0', lessThan: '9' }] },
    ]);
    expect(keyedListsFor(app, NAME)).toEqual([]);
    expect(keyedListsFor(app, parseCpe('cpe:2.3:a:acme:widget:8.1:*:crb:*:*:*:*:*'))).toBeUndefined();
  });

  it('evaluates an entry without versions for a name without a concrete version', () => {
    const app = cnaOf([{ cpes: [widget('*')], defaultStatus: 'affected' }]);
    expect(keyedListsFor(app, parseCpe(widget('*')))).toBeUndefined();
  });

  it('leaves out the entries of other products and gives lists only for the name’s', () => {
    const app = cnaOf([
      { cpes: ['cpe:2.3:a:acme:gadget:*:*:*:*:*:*:*:*'], versions: [{ status: 'affected', version: '9.9' }] },
      { cpes: ['cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*'], versions: [{ status: 'affected', version: '2.1' }] },
      { cpes: ['cpe:2.3:a:acme:wid*:*:*:*:*:*:*:*:*'], versions: [{ status: 'affected', version: '3.0' }] },
    ]);
    expect(keyedListsFor(app, NAME)?.map((list) => list.texts)).toEqual([['2.1'], ['3.0']]);
  });
});
