import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpeMatches, parseCpe } from '../cpe.js';
import { versionOfWfn } from './cpe-version.js';
import { checkRange, inRange, type VersionRange } from './range.js';
import { fixture } from '../../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

describe('inRange: NVD bounds applied exactly as given (§2.4 rule 4b, §3.3 step 6)', () => {
  const rows: Array<[string, string, VersionRange, string]> = [
    ['startIncluding holds at the bound', '2.4.0', { startIncluding: '2.4.0' }, 'inside'],
    ['startIncluding fails below', '2.3.9', { startIncluding: '2.4.0' }, 'outside'],
    ['startExcluding fails at the bound', '2.4.0', { startExcluding: '2.4.0' }, 'outside'],
    ['startExcluding holds above', '2.4.1', { startExcluding: '2.4.0' }, 'inside'],
    ['endIncluding holds at the bound', '2.4.55', { endIncluding: '2.4.55' }, 'inside'],
    ['endIncluding fails above', '2.4.56', { endIncluding: '2.4.55' }, 'outside'],
    ['endExcluding fails at the bound', '3.0.7', { endExcluding: '3.0.7' }, 'outside'],
    ['endExcluding holds below', '3.0.6', { endExcluding: '3.0.7' }, 'inside'],
    ['both bounds', '2.4.49', { startIncluding: '2.4.0', endIncluding: '2.4.55' }, 'inside'],
    ['numeric, not textual, order', '2.4.5', { startIncluding: '2.4.10' }, 'outside'],
    [
      'a pre-release lies below its release',
      '3.0.0-alpha1',
      { startIncluding: '3.0.0', endExcluding: '3.0.7' },
      'outside',
    ],
    [
      'a letter release sits between patch levels',
      '1.1.1k',
      { startIncluding: '1.1.1', endExcluding: '1.1.1l' },
      'inside',
    ],
    ['no bounds: every version', '9.9.9', {}, 'inside'],
    ['an uncomparable version is unknown, never outside', 'n/a', { endExcluding: '2.0' }, 'unknown'],
    ['an uncomparable bound is unknown, never outside', '2.0', { startIncluding: '1.0', endExcluding: '-' }, 'unknown'],
    ['even when another bound already fails', '0.5', { startIncluding: '1.0', endExcluding: '*' }, 'unknown'],
  ];
  it.each(rows)('%s: %s in %j → %s', (_rule, version, range, expected) => {
    expect(inRange(version, range)).toBe(expected);
  });

  it('honours versionType and reports the confidence', () => {
    expect(checkRange('1.0.0-m1', { endExcluding: '1.0.0-cr1' }, 'maven')).toEqual({
      result: 'inside',
      confidence: 'exact',
    });
    expect(checkRange('1.0.0-m1', { endExcluding: '1.0.0-cr1' }, 'semver')).toEqual({
      result: 'outside',
      confidence: 'exact',
    });
    expect(checkRange('2.4', { endExcluding: '2.5.0' }, 'semver')).toEqual({
      result: 'inside',
      confidence: 'heuristic',
    });
    expect(inRange('abc', { endExcluding: 'def' }, 'git')).toBe('unknown');
  });
});

describe('CPE version folding against ranges (the §3.3 CPE cases)', () => {
  const openssh = versionOfWfn(parseCpe('cpe:2.3:a:openbsd:openssh:7.4:p1:*:*:*:*:*:*')) as string;

  it('openssh:7.4:p1 lies in [7.4, 7.5)', () => {
    expect(inRange(openssh, { startIncluding: '7.4', endExcluding: '7.5' })).toBe('inside');
  });
  it('openssh:7.4:p1 does not lie in [7.5, 9.8)', () => {
    expect(inRange(openssh, { startIncluding: '7.5', endExcluding: '9.8' })).toBe('outside');
  });
  it('openssh 10.3p1 is newer than 10.3 (gominimal/pkgs #181)', () => {
    expect(inRange('10.3p1', { endIncluding: '10.3' })).toBe('outside');
  });
  it('NA criteria never match a concrete version such as 2.4.53 (Dependency-Track #1832)', () => {
    const criterion = parseCpe('cpe:2.3:a:apache:http_server:-:*:*:*:*:*:*:*');
    expect(cpeMatches(criterion, parseCpe('cpe:2.3:a:apache:http_server:2.4.53:*:*:*:*:*:*:*'))).toBe(false);
    expect(versionOfWfn(criterion)).toBeUndefined();
  });
  it('ANY with no range matches every version', () => {
    const criterion = parseCpe('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*');
    const name = parseCpe('cpe:2.3:a:f5:nginx:1.25.3:*:*:*:*:*:*:*');
    expect(cpeMatches(criterion, name)).toBe(true);
    expect(inRange(versionOfWfn(name) as string, {})).toBe('inside');
  });
});

/** NVD Match Criteria API samples: the dictionary names NVD itself counts inside each criterion. */
const CPEMATCH = pathToFileURL(fixture('cpe/nvd_cpematch_api2_samples.jsonl'));

interface MatchString {
  criteria: string;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
  matches?: Array<{ cpeName: string }>;
}

describe('inRange against the expansion NVD itself publishes for real match criteria', () => {
  const criteria: MatchString[] = readFileSync(CPEMATCH, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).matchString);

  const boundsOf = (m: MatchString): VersionRange => ({
    startIncluding: m.versionStartIncluding,
    startExcluding: m.versionStartExcluding,
    endIncluding: m.versionEndIncluding,
    endExcluding: m.versionEndExcluding,
  });

  it.each(criteria.map((m) => [m.criteria, m] as const))('%s: every expanded name is inside', (_criteria, match) => {
    const results = (match.matches ?? []).map(({ cpeName }) => {
      const version = versionOfWfn(parseCpe(cpeName)) as string;
      return [cpeName, version, inRange(version, boundsOf(match))] as const;
    });
    expect(results.length).toBeGreaterThan(0);
    // NVD compares the version attribute alone, so it counts 3.0.0:alpha1 … 3.0.0:beta2 inside
    // [3.0.0, 3.0.7). Folding the update (§3.3 step 2) makes them pre-releases of 3.0.0, below
    // the start bound. Every other expanded name, e.g. openssh 9.3:p2, must agree with NVD.
    const disagreements = results.filter(([, , result]) => result !== 'inside');
    for (const [cpeName, version, result] of disagreements) {
      expect(result, cpeName).toBe('outside');
      expect(version, cpeName).toMatch(/^3\.0\.0-(alpha|beta)\d+$/);
    }
  });

  it('the OpenSSL criterion is the only one with such disagreements (19 pre-releases)', () => {
    const openssl = criteria.find((m) => m.criteria.includes(':openssl:openssl:')) as MatchString;
    const outside = (openssl.matches ?? []).filter(
      ({ cpeName }) => inRange(versionOfWfn(parseCpe(cpeName)) as string, boundsOf(openssl)) === 'outside',
    );
    expect(outside).toHaveLength(19);
  });
});
