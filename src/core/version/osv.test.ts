import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { osvAffected, osvVersionScheme, type OsvAffected, type OsvRange } from './osv.js';
import { fixture } from '../../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

const FEEDS = pathToFileURL(fixture('feeds/'));

interface OsvRecord {
  id: string;
  affected: Array<OsvAffected & { package: { ecosystem: string; name: string } }>;
}

const feeds = new Map<string, OsvRecord[]>();
function feed(name: string): OsvRecord[] {
  if (!feeds.has(name)) {
    const text = gunzipSync(readFileSync(new URL(`${name}.jsonl.gz`, FEEDS))).toString('utf8');
    feeds.set(
      name,
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as OsvRecord),
    );
  }
  return feeds.get(name) as OsvRecord[];
}

function advisory(feedName: string, id: string, packageName: string) {
  const record = feed(feedName).find((r) => r.id === id);
  const affected = record?.affected.find((a) => a.package.name === packageName);
  if (!affected) throw new Error(`${id} / ${packageName} not found in ${feedName}`);
  return affected;
}

const range = (type: string, ...events: OsvRange['events']): OsvAffected => ({ ranges: [{ type, events }] });

describe('osvAffected: one row per rule (§2.6)', () => {
  const rows: Array<[string, string, OsvAffected, string | undefined, string]> = [
    [
      'introduced "0" is the beginning',
      '0.0.1',
      range('SEMVER', { introduced: '0' }, { fixed: '1.0.0' }),
      'npm',
      'affected',
    ],
    [
      'fixed excludes its version',
      '1.0.0',
      range('SEMVER', { introduced: '0' }, { fixed: '1.0.0' }),
      'npm',
      'unaffected',
    ],
    [
      'introduced includes its version',
      '1.2.0',
      range('SEMVER', { introduced: '1.2.0' }, { fixed: '1.3.0' }),
      'npm',
      'affected',
    ],
    ['below introduced', '1.1.9', range('SEMVER', { introduced: '1.2.0' }, { fixed: '1.3.0' }), 'npm', 'unaffected'],
    [
      'last_affected includes its version',
      '1.11.0',
      range('ECOSYSTEM', { introduced: '0' }, { last_affected: '1.11.0' }),
      'PyPI',
      'affected',
    ],
    [
      'after last_affected',
      '1.11.1',
      range('ECOSYSTEM', { introduced: '0' }, { last_affected: '1.11.0' }),
      'PyPI',
      'unaffected',
    ],
    [
      'an open introduced means every later version',
      '99.0.0',
      range('SEMVER', { introduced: '2.0.0' }),
      'crates.io',
      'affected',
    ],
    [
      'several intervals in one range',
      '2.5.0',
      range('SEMVER', { introduced: '0' }, { fixed: '1.0.0' }, { introduced: '2.0.0' }, { fixed: '3.0.0' }),
      'npm',
      'affected',
    ],
    [
      'between two intervals',
      '1.5.0',
      range('SEMVER', { introduced: '0' }, { fixed: '1.0.0' }, { introduced: '2.0.0' }, { fixed: '3.0.0' }),
      'npm',
      'unaffected',
    ],
    [
      'ranges are ORed',
      '5.0.0',
      {
        ranges: [
          { type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.0' }] },
          { type: 'SEMVER', events: [{ introduced: '5.0.0' }] },
        ],
      },
      'npm',
      'affected',
    ],
    ['versions[] is ORed in', '1.4.7.dev3', { ranges: [], versions: ['1.4.7.dev3'] }, 'PyPI', 'affected'],
    ['versions[] match uses the ecosystem order', '1.0', { versions: ['1.0.0'] }, 'PyPI', 'affected'],
    [
      'ECOSYSTEM uses the ecosystem order (PEP 440: 1.0rc1 < 1.0)',
      '1.0rc1',
      range('ECOSYSTEM', { introduced: '0' }, { fixed: '1.0' }),
      'PyPI',
      'affected',
    ],
    ['Go versions may carry a v', 'v1.5.9', range('SEMVER', { introduced: '0' }, { fixed: '1.6.0' }), 'Go', 'affected'],
    [
      'Go toolchain spelling go1.21.0',
      'go1.21.0',
      range('SEMVER', { introduced: '1.21.0-0' }, { fixed: '1.21.0-rc.4' }),
      'Go',
      'unaffected',
    ],
    [
      'limit is ignored outside GIT',
      '1.5.0',
      range('SEMVER', { introduced: '1.0.0' }, { limit: '1.2.0' }),
      'npm',
      'affected',
    ],
    [
      'empty interval (introduced X, fixed X) contains nothing',
      '0.10.0',
      range('SEMVER', { introduced: '0.10.0' }, { fixed: '0.10.0' }),
      'crates.io',
      'unaffected',
    ],
    [
      'unsorted intervals keep their meaning',
      '0.13.0',
      range(
        'ECOSYSTEM',
        { introduced: '0.13.0' },
        { fixed: '0.14.0rc1' },
        { introduced: '0.12.2' },
        { fixed: '0.13.0' },
      ),
      'PyPI',
      'affected',
    ],
    [
      'non-alternating events are sorted and replayed',
      '1.5.0',
      range('SEMVER', { introduced: '1.0.0' }, { introduced: '1.2.0' }, { fixed: '2.0.0' }),
      'npm',
      'affected',
    ],
    [
      'GIT only, version not listed → unknown',
      '1.5.0',
      range('GIT', { introduced: '0' }, { fixed: 'abc123' }),
      'PyPI',
      'unknown',
    ],
    [
      'GIT only, version listed → affected',
      '1.5.0',
      { ranges: [{ type: 'GIT', events: [{ introduced: '0' }, { fixed: 'abc123' }] }], versions: ['1.5.0'] },
      'PyPI',
      'affected',
    ],
    [
      'GIT next to an ECOSYSTEM range: the ECOSYSTEM range decides',
      '3.0',
      {
        ranges: [
          { type: 'GIT', events: [{ introduced: '0' }, { fixed: 'abc123' }] },
          { type: 'ECOSYSTEM', events: [{ introduced: '4.0' }, { fixed: '4.3' }] },
        ],
      },
      'PyPI',
      'unaffected',
    ],
    ['neither ranges nor versions → unknown', '1.0', {}, 'PyPI', 'unknown'],
    [
      'an uncomparable bound → unknown',
      '1.0',
      range('ECOSYSTEM', { introduced: '0' }, { fixed: 'n/a' }),
      'PyPI',
      'unknown',
    ],
    [
      'an uncomparable version → unknown',
      'latest',
      range('SEMVER', { introduced: '0' }, { fixed: '1.0.0' }),
      'npm',
      'unknown',
    ],
    ['an unknown range type → unknown', '1.0', range('MYSTERY', { introduced: '0' }), 'npm', 'unknown'],
  ];
  it.each(rows)('%s: %s', (_rule, version, affected, ecosystem, expected) => {
    expect(osvAffected(version, affected, ecosystem)).toBe(expected);
  });

  it.each([
    ['Go', 'go'],
    ['PyPI', 'python'],
    ['crates.io', 'semver'],
    ['npm', 'npm'],
    ['Maven', 'maven'],
    ['RubyGems', 'gem'],
    ['Debian:11', 'deb'],
    ['Ubuntu:22.04:LTS', 'deb'],
    ['Red Hat', 'rpm'],
    ['Packagist', 'custom'],
    [undefined, 'custom'],
    ['constructor', 'custom'],
    ['__proto__', 'custom'],
  ])('ecosystem %s compares with %s', (ecosystem, scheme) => {
    expect(osvVersionScheme(ecosystem)).toBe(scheme);
  });
});

describe('osvAffected on the Go vulnerability database', () => {
  it('GO-2020-0001 (gin): introduced 0, fixed 1.6.0', () => {
    const gin = advisory('golang_vulndb_osv', 'GO-2020-0001', 'github.com/gin-gonic/gin');
    expect(osvAffected('v1.5.0', gin)).toBe('affected');
    expect(osvAffected('v1.6.0', gin)).toBe('unaffected');
    expect(osvAffected('1.6.0', gin)).toBe('unaffected');
    expect(osvAffected('v1.6.0-rc1', gin)).toBe('affected');
  });

  it('GO-2023-1987 (stdlib): three release lines, pre-release bounds', () => {
    const stdlib = advisory('golang_vulndb_osv', 'GO-2023-1987', 'stdlib');
    const rows: Array<[string, string]> = [
      ['go1.19.11', 'affected'],
      ['go1.19.12', 'unaffected'],
      ['go1.20.0-rc.1', 'affected'],
      ['go1.20.6', 'affected'],
      ['go1.20.7', 'unaffected'],
      ['go1.21.0-rc.3', 'affected'],
      ['go1.21.0-rc.4', 'unaffected'],
      ['go1.21.0', 'unaffected'],
    ];
    for (const [version, status] of rows) expect(osvAffected(version, stdlib), version).toBe(status);
  });

  it('GO-2020-0006 (miekg/dns): fixed at a pseudo-version', () => {
    const dns = advisory('golang_vulndb_osv', 'GO-2020-0006', 'github.com/miekg/dns');
    expect(osvAffected('v1.0.3', dns)).toBe('affected');
    expect(osvAffected('v1.0.4-0.20180101000000-000000000000', dns)).toBe('affected');
    expect(osvAffected('v1.0.4-0.20180125103619-43913f2f4fbd', dns)).toBe('unaffected');
    expect(osvAffected('v1.0.4', dns)).toBe('unaffected');
  });
});

describe('osvAffected on the PyPA advisory database', () => {
  it('PYSEC-2021-335 (AccessControl): ECOSYSTEM 4.0–4.3 and 5.0–5.2, a GIT range, versions[]', () => {
    const accesscontrol = advisory('pypa_advisory_database_osv', 'PYSEC-2021-335', 'accesscontrol');
    const rows: Array<[string, string]> = [
      ['3.0', 'unaffected'], // the GIT range from "0" does not override the ECOSYSTEM range
      ['4.0', 'affected'],
      ['4.2', 'affected'],
      ['4.3', 'unaffected'],
      ['5.1', 'affected'],
      ['5.2', 'unaffected'],
      ['6.0', 'unaffected'],
    ];
    for (const [version, status] of rows) expect(osvAffected(version, accesscontrol), version).toBe(status);
  });

  it('PYSEC-2022-42969 (py): last_affected 1.11.0', () => {
    const py = advisory('pypa_advisory_database_osv', 'PYSEC-2022-42969', 'py');
    expect(osvAffected('1.11.0', py)).toBe('affected');
    expect(osvAffected('1.11.0.post1', py)).toBe('unaffected');
    expect(osvAffected('1.11.1', py)).toBe('unaffected');
  });

  it('PYSEC-2020-208 (ansible): fixed at a pre-release 2.8.0a1, re-introduced at 2.8.0', () => {
    const ansible = advisory('pypa_advisory_database_osv', 'PYSEC-2020-208', 'ansible');
    const rows: Array<[string, string]> = [
      ['2.6.20', 'unaffected'],
      ['2.7.0', 'affected'],
      ['2.7.18', 'affected'],
      ['2.8.0a1', 'unaffected'],
      ['2.8.0rc3', 'unaffected'],
      ['2.8.0', 'affected'],
      ['2.8.13', 'unaffected'],
      ['2.9.9', 'affected'],
      ['2.9.10', 'unaffected'],
    ];
    for (const [version, status] of rows) expect(osvAffected(version, ansible), version).toBe(status);
  });

  it('PYSEC-2022-236 (pyspark): overlapping intervals in one range', () => {
    const pyspark = advisory('pypa_advisory_database_osv', 'PYSEC-2022-236', 'pyspark');
    expect(osvAffected('3.1.1', pyspark)).toBe('affected');
    expect(osvAffected('3.1.3', pyspark)).toBe('unaffected');
    expect(osvAffected('3.2.1', pyspark)).toBe('affected');
  });

  it('PYSEC-2022-15 (loguru) names the package with no versions at all: unknown, not unaffected', () => {
    const loguru = advisory('pypa_advisory_database_osv', 'PYSEC-2022-15', 'loguru');
    expect(osvAffected('0.5.3', loguru)).toBe('unknown');
  });

  it('agrees with the versions PyPA enumerated for every ECOSYSTEM range (PEP 440 ordering)', () => {
    const disagreements: string[] = [];
    let checked = 0;
    for (const record of feed('pypa_advisory_database_osv')) {
      for (const affected of record.affected) {
        const ranges = (affected.ranges ?? []).filter((r) => r.type === 'ECOSYSTEM');
        if (ranges.length === 0) continue;
        for (const version of affected.versions ?? []) {
          checked++;
          if (osvAffected(version, { ranges }, 'PyPI') !== 'affected') disagreements.push(`${record.id} ${version}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100_000);
    // The few left are data errors: pre-releases listed before their introducing release
    // (django 3.2a1 for "introduced 3.2"), a version listed although it is the fix (gevent
    // 23.9.0), and a non-version string.
    expect(disagreements.length).toBeLessThan(20);
    expect(disagreements).toContain('PYSEC-2023-61 3.2a1');
    expect(disagreements).toContain('PYSEC-2023-177 23.9.0');
  });
});

describe('osvAffected on the RustSec advisory database', () => {
  it('RUSTSEC-2016-0001 (openssl): introduced 0.0.0-0, fixed 0.9.0', () => {
    const openssl = advisory('rustsec_advisory_db_osv', 'RUSTSEC-2016-0001', 'openssl');
    expect(osvAffected('0.0.1', openssl)).toBe('affected');
    expect(osvAffected('0.8.3', openssl)).toBe('affected');
    expect(osvAffected('0.9.0', openssl)).toBe('unaffected');
    expect(osvAffected('0.10.0', openssl)).toBe('unaffected');
  });

  it('RUSTSEC-2018-0003 (smallvec): four release lines', () => {
    const smallvec = advisory('rustsec_advisory_db_osv', 'RUSTSEC-2018-0003', 'smallvec');
    const rows: Array<[string, string]> = [
      ['0.3.1', 'unaffected'],
      ['0.3.2', 'affected'],
      ['0.3.4', 'unaffected'],
      ['0.4.4', 'affected'],
      ['0.4.5', 'unaffected'],
      ['0.5.0', 'affected'],
      ['0.5.1', 'unaffected'],
      ['0.6.2', 'affected'],
      ['0.6.3', 'unaffected'],
      ['1.0.0', 'unaffected'],
    ];
    for (const [version, status] of rows) expect(osvAffected(version, smallvec), version).toBe(status);
  });

  it('RUSTSEC-2022-0012 (arrow2): "introduced 0.10.0, fixed 0.10.0" is an empty interval', () => {
    const arrow2 = advisory('rustsec_advisory_db_osv', 'RUSTSEC-2022-0012', 'arrow2');
    expect(osvAffected('0.10.0', arrow2)).toBe('unaffected');
    expect(osvAffected('0.9.1', arrow2)).toBe('affected');
  });

  it('every event bound in the Go and RustSec feeds evaluates as its kind says', () => {
    for (const name of ['golang_vulndb_osv', 'rustsec_advisory_db_osv']) {
      for (const record of feed(name)) {
        for (const affected of record.affected) {
          for (const osvRange of affected.ranges ?? []) {
            const single = { ranges: [osvRange] };
            for (const event of osvRange.events) {
              const version = event.introduced ?? event.fixed;
              if (version === undefined || version === '0') continue;
              const status = osvAffected(version, single, affected.package.ecosystem);
              expect(status, `${record.id} ${JSON.stringify(event)}`).not.toBe('unknown');
              if (event.fixed) expect(status, `${record.id} fixed ${version}`).toBe('unaffected');
            }
          }
        }
      }
    }
  });
});
