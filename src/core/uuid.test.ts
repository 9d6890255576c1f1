import { describe, expect, it } from 'vitest';
import { UUID_NAMESPACES, uuidV5 } from './uuid.js';

// Expected values: RFC 4122 errata 1352 / RFC 9562 Appendix A.4 (www.example.com), the rest from
// Python's uuid.uuid5, an independent implementation.
const VECTORS: Array<[string, string, string]> = [
  [UUID_NAMESPACES.dns, 'www.example.com', '2ed6657d-e927-568b-95e1-2665a8aea6a2'],
  [UUID_NAMESPACES.dns, 'python.org', '886313e1-3b8a-5372-9b90-0c9aee199e5d'],
  [UUID_NAMESPACES.dns, '', '4ebd0208-8328-5d69-8c44-ec50939c0967'],
  [UUID_NAMESPACES.dns, 'ünïcødé', '274666bc-618d-5ba1-8813-eed3e880cca6'],
  [
    UUID_NAMESPACES.url,
    'https://www.cisa.gov/known-exploited-vulnerabilities-catalog',
    'ad435ce6-dff9-5e60-9d54-e4dfa8c4b263',
  ],
  [UUID_NAMESPACES.oid, '1.3.6.1', '1447fa61-5277-5fef-a9b3-fbc6e44f4af3'],
  [UUID_NAMESPACES.x500, 'cn=John Smith, o=Example', '82180779-2313-55d2-831e-25fe735b2db6'],
  // An upper-case namespace is the same namespace.
  [UUID_NAMESPACES.dns.toUpperCase(), 'www.example.com', '2ed6657d-e927-568b-95e1-2665a8aea6a2'],
];

describe('uuidV5', () => {
  it.each(VECTORS)('%s %j → %s', (namespace, name, expected) => {
    expect(uuidV5(namespace, name)).toBe(expected);
  });

  it.each(['', 'not-a-uuid', '6ba7b8109dad11d180b400c04fd430c8'])('rejects the namespace %j', (namespace) => {
    expect(() => uuidV5(namespace, 'x')).toThrow(/not a UUID/);
  });
});
