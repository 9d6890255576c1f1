import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprintKey, normaliseFingerprint } from './fingerprint.js';
import type { Fingerprint } from './observation.js';

const HTTPD_2_4_49 = 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*';

describe('fingerprintKey', () => {
  it.each<[string, Fingerprint[]]>([
    ['no fingerprints', []],
    ['an empty fingerprint', [{}]],
    ['only volatile fields', [{ banner: 'SSH-2.0-OpenSSH_8.9p1', service: 'ssh', extrainfo: 'Ubuntu' }]],
    ['blank vendor/product/version', [{ vendor: '', product: '   ', version: undefined }]],
    ['an invalid CPE and nothing else', [{ cpe: 'cpe:2.3:a:apache' }]],
  ])('is empty for %s', (_, fingerprints) => {
    expect(fingerprintKey(fingerprints)).toBe('');
  });

  it('is sha256 (first 32 hex characters) of the JSON list of sorted identities', () => {
    const expected = createHash('sha256')
      .update(JSON.stringify([':nginx:', HTTPD_2_4_49]))
      .digest('hex')
      .slice(0, 32);
    const key = fingerprintKey([{ product: 'nginx' }, { cpe: HTTPD_2_4_49 }]);
    expect(key).toBe(expected);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
  });

  // Each row: two fingerprint lists that name the same service, so their keys must be equal.
  it.each<[string, Fingerprint[], Fingerprint[]]>([
    [
      'volatile fields never count',
      [{ cpe: HTTPD_2_4_49, banner: 'Apache/2.4.49 (Unix)', service: 'http', extrainfo: '(Unix)' }],
      [{ cpe: HTTPD_2_4_49, banner: 'Apache/2.4.49', service: 'https', conf: '10' }],
    ],
    ['a CPE 2.2 URI and the same CPE 2.3 name', [{ cpe: 'cpe:/a:apache:http_server:2.4.49' }], [{ cpe: HTTPD_2_4_49 }]],
    [
      'CPE case does not count',
      [{ cpe: 'CPE:2.3:A:Apache:HTTP_Server:2.4.49:*:*:*:*:*:*:*' }],
      [{ cpe: HTTPD_2_4_49 }],
    ],
    [
      'a valid CPE outranks vendor/product/version',
      [{ cpe: HTTPD_2_4_49, vendor: 'Apache', product: 'httpd', version: '2.4.49' }],
      [{ cpe: HTTPD_2_4_49, product: 'Apache httpd' }],
    ],
    [
      'an invalid CPE falls back to vendor:product:version',
      [
        {
          cpe: 'cpe:2.3:a:ibm:sterling_connect:direct:6.0.0.0:*:*:*:*:unix:*:*',
          vendor: 'IBM',
          product: 'Connect:Direct',
        },
      ],
      [{ vendor: 'ibm', product: 'connect:direct' }],
    ],
    [
      'vendor:product:version is lower-cased and trimmed',
      [{ vendor: ' Apache ', product: 'HTTPD', version: '2.4.49\n' }],
      [{ vendor: 'apache', product: 'httpd', version: '2.4.49' }],
    ],
    [
      'fingerprint order does not count',
      [{ cpe: HTTPD_2_4_49 }, { cpe: 'cpe:/a:openbsd:openssh:8.9p1' }],
      [{ cpe: 'cpe:/a:openbsd:openssh:8.9p1' }, { cpe: HTTPD_2_4_49 }],
    ],
    [
      'duplicates do not count',
      [{ cpe: HTTPD_2_4_49 }, { cpe: 'cpe:/a:apache:http_server:2.4.49' }],
      [{ cpe: HTTPD_2_4_49 }],
    ],
    [
      'fingerprints without identity do not count',
      [{ cpe: HTTPD_2_4_49 }, { banner: 'hello' }, { cpe: 'not a cpe' }],
      [{ cpe: HTTPD_2_4_49 }],
    ],
    [
      'normalising first does not change the key',
      [normaliseFingerprint({ cpe: 'cpe:/a:apache:http_server:2.4.49', banner: 'x' })],
      [{ cpe: 'cpe:/a:apache:http_server:2.4.49' }],
    ],
    [
      'normalising a fingerprint with an invalid CPE does not change the key',
      [normaliseFingerprint({ cpe: 'cpe:/a:apache:http server', vendor: 'Apache', product: 'httpd' })],
      [{ cpe: 'cpe:/a:apache:http server', vendor: 'Apache', product: 'httpd' }],
    ],
  ])('same key: %s', (_, a, b) => {
    expect(fingerprintKey(a)).not.toBe('');
    expect(fingerprintKey(a)).toBe(fingerprintKey(b));
  });

  // Each row: two fingerprint lists that name different services.
  it.each<[string, Fingerprint[], Fingerprint[]]>([
    ['another version', [{ cpe: HTTPD_2_4_49 }], [{ cpe: 'cpe:2.3:a:apache:http_server:2.4.50:*:*:*:*:*:*:*' }]],
    [
      'another vendor (nginx renames)',
      [{ cpe: 'cpe:/a:igor_sysoev:nginx:1.0.1' }],
      [{ cpe: 'cpe:/a:nginx:nginx:1.0.1' }],
    ],
    [
      'another version without CPE',
      [{ product: 'nginx', version: '1.18.0' }],
      [{ product: 'nginx', version: '1.20.0' }],
    ],
    ['a version added', [{ product: 'nginx' }], [{ product: 'nginx', version: '1.18.0' }]],
    ['field positions count', [{ vendor: 'nginx' }], [{ product: 'nginx' }]],
    ['an extra fingerprint', [{ cpe: HTTPD_2_4_49 }], [{ cpe: HTTPD_2_4_49 }, { product: 'php', version: '8.1' }]],
    ['NA differs from ANY', [{ cpe: 'cpe:2.3:a:v:p:-:*:*:*:*:*:*:*' }], [{ cpe: 'cpe:2.3:a:v:p:*:*:*:*:*:*:*:*' }]],
  ])('different key: %s', (_, a, b) => {
    expect(fingerprintKey(a)).not.toBe(fingerprintKey(b));
  });
});

describe('normaliseFingerprint', () => {
  it.each<[string, Fingerprint, Fingerprint]>([
    [
      'a 2.2 URI becomes CPE 2.3 and fills vendor/product/version (nmap Apache httpd)',
      { cpe: 'cpe:/a:apache:http_server:2.2.22' },
      {
        cpe: 'cpe:2.3:a:apache:http_server:2.2.22:*:*:*:*:*:*:*',
        vendor: 'apache',
        product: 'http_server',
        version: '2.2.22',
      },
    ],
    [
      'scanner-reported fields are kept, only missing ones are filled',
      { cpe: 'cpe:/a:apache:http_server:2.2.22', product: 'Apache httpd', version: '2.2.22', extrainfo: '(Ubuntu)' },
      {
        cpe: 'cpe:2.3:a:apache:http_server:2.2.22:*:*:*:*:*:*:*',
        vendor: 'apache',
        product: 'Apache httpd',
        version: '2.2.22',
        extrainfo: '(Ubuntu)',
      },
    ],
    [
      'a version-less CPE takes the fingerprint version, so each version is its own identity',
      { cpe: 'cpe:/a:igor_sysoev:nginx', version: '1.14.0' },
      {
        cpe: 'cpe:2.3:a:igor_sysoev:nginx:1.14.0:*:*:*:*:*:*:*',
        vendor: 'igor_sysoev',
        product: 'nginx',
        version: '1.14.0',
      },
    ],
    [
      'a version that cannot be a CPE value leaves the CPE version-less',
      { cpe: 'cpe:/a:igor_sysoev:nginx', version: '1.14 beta' },
      {
        cpe: 'cpe:2.3:a:igor_sysoev:nginx:*:*:*:*:*:*:*:*',
        vendor: 'igor_sysoev',
        product: 'nginx',
        version: '1.14 beta',
      },
    ],
    [
      'empty fields count as missing',
      { cpe: HTTPD_2_4_49, vendor: '', product: ' ', version: '' },
      { cpe: HTTPD_2_4_49, vendor: 'apache', product: 'http_server', version: '2.4.49' },
    ],
    [
      'ANY in the CPE fills nothing (nmap nginx without version)',
      { cpe: 'cpe:/a:igor_sysoev:nginx', product: 'nginx', service: 'http' },
      { cpe: 'cpe:2.3:a:igor_sysoev:nginx:*:*:*:*:*:*:*:*', vendor: 'igor_sysoev', product: 'nginx', service: 'http' },
    ],
    [
      'NA in the CPE fills nothing',
      { cpe: 'cpe:2.3:a:netapp:solidfire:-:*:*:*:*:*:*:*' },
      { cpe: 'cpe:2.3:a:netapp:solidfire:-:*:*:*:*:*:*:*', vendor: 'netapp', product: 'solidfire' },
    ],
    [
      'a wildcard pattern fills nothing',
      { cpe: 'cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*' },
      { cpe: 'cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*', vendor: 'apache', product: 'http_server' },
    ],
    [
      'filled values are unquoted',
      { cpe: 'cpe:2.3:a:badgermeter:moni\\:\\:tool:1.0-beta:*:*:*:*:*:*:*' },
      {
        cpe: 'cpe:2.3:a:badgermeter:moni\\:\\:tool:1.0-beta:*:*:*:*:*:*:*',
        vendor: 'badgermeter',
        product: 'moni::tool',
        version: '1.0-beta',
      },
    ],
    [
      'a literal hyphen version fills "-"',
      { cpe: 'cpe:2.3:a:v:p:\\-:*:*:*:*:*:*:*' },
      { cpe: 'cpe:2.3:a:v:p:\\-:*:*:*:*:*:*:*', vendor: 'v', product: 'p', version: '-' },
    ],
    [
      'the CPE is lower-cased',
      { cpe: 'cpe:2.3:a:1Panel-dev:1Panel:1.10.1:*:*:*:*:*:*:*' },
      {
        cpe: 'cpe:2.3:a:1panel-dev:1panel:1.10.1:*:*:*:*:*:*:*',
        vendor: '1panel-dev',
        product: '1panel',
        version: '1.10.1',
      },
    ],
    [
      'a packed 2.2 edition becomes 2.3 attributes',
      { cpe: 'cpe:/a:nodejs:node.js:18.12.0::~~lts~~~' },
      {
        cpe: 'cpe:2.3:a:nodejs:node.js:18.12.0:*:*:*:lts:*:*:*',
        vendor: 'nodejs',
        product: 'node.js',
        version: '18.12.0',
      },
    ],
    [
      'surrounding whitespace around the CPE is ignored',
      { cpe: '  cpe:/o:microsoft:windows_7::sp1\n' },
      { cpe: 'cpe:2.3:o:microsoft:windows_7:*:sp1:*:*:*:*:*:*', vendor: 'microsoft', product: 'windows_7' },
    ],
    [
      'an invalid CPE is dropped, the rest kept',
      { cpe: 'cpe:2.3:a:ibm:sterling_connect:direct:6.0.0.0:*:*:*:*:unix:*:*', product: 'Connect:Direct', banner: 'b' },
      { product: 'Connect:Direct', banner: 'b' },
    ],
    ['an empty CPE is dropped', { cpe: '', product: 'nginx' }, { product: 'nginx' }],
    ['no CPE: a plain copy', { product: 'nginx', version: '1.18.0' }, { product: 'nginx', version: '1.18.0' }],
  ])('%s', (_, input, expected) => {
    expect(normaliseFingerprint(input)).toStrictEqual(expected);
  });

  it('returns a new object and leaves its input alone', () => {
    const input: Fingerprint = { cpe: 'cpe:/a:apache:http_server:2.2.22', banner: 'x' };
    const copy = { ...input };
    const output = normaliseFingerprint(input);
    expect(output).not.toBe(input);
    expect(input).toStrictEqual(copy);
    const plain: Fingerprint = { product: 'nginx' };
    expect(normaliseFingerprint(plain)).not.toBe(plain);
  });

  it('is idempotent', () => {
    const once = normaliseFingerprint({ cpe: 'cpe:/a:openbsd:openssh:8.9p1', banner: 'SSH-2.0' });
    expect(normaliseFingerprint(once)).toStrictEqual(once);
  });
});
