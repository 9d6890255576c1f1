import { describe, expect, it } from 'vitest';
import type { Cve5VersionEntry } from '../version/cve5-affected.js';
import { fixedVersion } from './fixed-version.js';

const entry = (...versions: Cve5VersionEntry[]) => ({ versions, defaultStatus: 'unaffected' });
const semver = (version: string, bounds: Partial<Cve5VersionEntry>): Cve5VersionEntry => ({
  version,
  status: 'affected',
  versionType: 'semver',
  ...bounds,
});

describe('fixedVersion', () => {
  it.each<[string, string, ReturnType<typeof entry>, string | undefined]>([
    ['the lessThan of the range holding the version', '1.2.0', entry(semver('0', { lessThan: '1.2.3' })), '1.2.3'],
    [
      'the second range when the version is past the first',
      '2.1.0',
      entry(semver('0', { lessThan: '1.2.3' }), semver('2.0.0', { lessThan: '2.1.4' })),
      '2.1.4',
    ],
    [
      'the first range when the version is in it',
      '1.0.0',
      entry(semver('0', { lessThan: '1.2.3' }), semver('2.0.0', { lessThan: '2.1.4' })),
      '1.2.3',
    ],
    ['none for a range left open (lessThan *)', '3.0.0', entry(semver('2.0.0', { lessThan: '*' })), undefined],
    ['none for last_affected (lessThanOrEqual)', '1.0.0', entry(semver('0', { lessThanOrEqual: '1.0.0' })), undefined],
    ['none for a version outside every range', '1.2.3', entry(semver('0', { lessThan: '1.2.3' })), undefined],
    ['none for a version before the range starts', '0.9.0', entry(semver('1.0.0', { lessThan: '1.2.3' })), undefined],
    [
      'the first unaffected change after the version',
      '1.5.0',
      entry(
        semver('1.0.0', {
          lessThan: '*',
          changes: [
            { at: '1.9.0', status: 'unaffected' },
            { at: '1.6.2', status: 'unaffected' },
            { at: '1.2.0', status: 'unaffected' },
          ],
        }),
      ),
      '1.6.2',
    ],
    [
      'PEP 440 order for python ranges',
      '2.0rc1',
      entry({ version: '0', status: 'affected', versionType: 'python', lessThan: '2.0' }),
      '2.0',
    ],
    ['none for an unaffected entry', '1.0.0', entry({ version: '1.0.0', status: 'unaffected' }), undefined],
  ])('%s', (_rule, version, affected, expected) => {
    expect(fixedVersion(version, affected)).toBe(expected);
  });
});
