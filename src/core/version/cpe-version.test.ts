import { describe, expect, it } from 'vitest';
import { parseCpe } from '../cpe.js';
import { foldUpdate, versionOfWfn } from './cpe-version.js';

describe('versionOfWfn: the version a CPE name is compared with (§3.3 step 2)', () => {
  const rows: Array<[string, string, string | undefined]> = [
    ['patch-like update p1 is folded in', 'cpe:2.3:a:openbsd:openssh:7.9:p1:*:*:*:*:*:*', '7.9p1'],
    ['service pack', 'cpe:2.3:a:oracle:mysql:5.1.52:sp1:*:*:*:*:*:*', '5.1.52sp1'],
    ['Java update u181', 'cpe:2.3:a:oracle:jdk:1.8.0:u181:*:*:*:*:*:*', '1.8.0u181'],
    ['update_181', 'cpe:2.3:a:oracle:jre:1.8.0:update_181:*:*:*:*:*:*', '1.8.0update181'],
    [
      'Exchange cumulative update',
      'cpe:2.3:a:microsoft:exchange_server:2016:cumulative_update_23:*:*:*:*:*:*',
      '2016update23',
    ],
    ['Ivanti r2.1', 'cpe:2.3:a:ivanti:connect_secure:22.7:r2.1:*:*:*:*:*:*', '22.7r2.1'],
    ['beta becomes a pre-release suffix', 'cpe:2.3:a:apache:log4j:2.0:beta7:*:*:*:*:*:*', '2.0-beta7'],
    ['rc becomes a pre-release suffix', 'cpe:2.3:a:apache:log4j:2.0:rc1:*:*:*:*:*:*', '2.0-rc1'],
    [
      'milestone becomes a pre-release suffix',
      'cpe:2.3:a:apache:tomcat:10.1.0:milestone1:*:*:*:*:*:*',
      '10.1.0-milestone1',
    ],
    [
      'a bare number extends the version',
      'cpe:2.3:a:starwind:starwind_virtual_san:v8r13:14398:*:*:*:*:*:*',
      'v8r13.14398',
    ],
    ['update ANY is ignored', 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', '2.4.49'],
    ['update NA is ignored', 'cpe:2.3:a:apache:http_server:2.4.49:-:*:*:*:*:*:*', '2.4.49'],
    ['neutral update ga is ignored', 'cpe:2.3:a:vendor:product:1.0:ga:*:*:*:*:*:*', '1.0'],
    ['version ANY has no version', 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*', undefined],
    ['version NA has no version', 'cpe:2.3:a:apache:http_server:-:*:*:*:*:*:*:*', undefined],
    ['a version pattern is not a version', 'cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*', undefined],
    ['quoted characters are unquoted', 'cpe:2.3:a:citrix:netscaler:13.1-49.13:*:*:*:*:*:*:*', '13.1-49.13'],
  ];
  it.each(rows)('%s: %s → %s', (_rule, cpe, expected) => {
    expect(versionOfWfn(parseCpe(cpe))).toBe(expected);
  });

  it('keeps an unrecognised update for the comparator to rank', () => {
    expect(foldUpdate('10.2.0', '2h')).toBe('10.2.0-2h');
    // A name every object has is not a patch word.
    expect(foldUpdate('1.0', 'constructor1')).toBe('1.0-constructor1');
  });
});
