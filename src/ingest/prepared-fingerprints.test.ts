import { describe, expect, it } from 'vitest';
import { classifyFingerprints } from '../core/fingerprint-rules.js';
import { fingerprintKey, normaliseFingerprint } from '../core/fingerprint.js';
import type { Fingerprint } from '../core/observation.js';
import { prepareFingerprints } from './prepared-fingerprints.js';

describe('prepareFingerprints', () => {
  it.each<[string, Fingerprint[]]>([
    ['none', []],
    ['one CPE 2.3 name', [{ cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*' }]],
    ['a 2.2 URI with a detected version', [{ cpe: 'cpe:/a:igor_sysoev:nginx', version: '1.18.0', banner: 'nginx' }]],
    ['no CPE, fields only', [{ vendor: 'Apache', product: 'httpd', version: '2.4.49' }]],
    ['a honeypot', [{ product: 'Cowrie SSH honeypot' }]],
    ['a C2 beside a web server', [{ product: 'Cobalt Strike' }, { cpe: 'cpe:/a:apache:http_server:2.4.49' }]],
    ['the same two in the other order', [{ cpe: 'cpe:/a:apache:http_server:2.4.49' }, { product: 'Cobalt Strike' }]],
    ['an invalid CPE (dropped, fields kept)', [{ cpe: 'cpe:2.3:a:bad', product: 'x' }]],
  ])('equals working each step out directly: %s', (_, fingerprints) => {
    const normalised = fingerprints.map(normaliseFingerprint);
    const expected = {
      fingerprints: normalised,
      fpKey: fingerprintKey(normalised),
      implied: classifyFingerprints(normalised),
    };
    // First call computes, second is remembered; both must be the direct answer.
    expect(prepareFingerprints(fingerprints)).toStrictEqual(expected);
    expect(prepareFingerprints(structuredClone(fingerprints))).toStrictEqual(expected);
  });

  it('gives equal lists one shared answer, and different lists different identities', () => {
    const a = prepareFingerprints([{ cpe: 'cpe:/a:openbsd:openssh:8.9p1' }]);
    expect(prepareFingerprints([{ cpe: 'cpe:/a:openbsd:openssh:8.9p1' }])).toBe(a);
    expect(prepareFingerprints([{ cpe: 'cpe:/a:openbsd:openssh:9.0p1' }]).fpKey).not.toBe(a.fpKey);
    expect(prepareFingerprints([]).fpKey).toBe('');
  });
});
