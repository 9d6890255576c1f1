import { describe, expect, it } from 'vitest';
import {
  canonicalIp,
  cvesInText,
  extraFieldText,
  ipv4FromNumber,
  normaliseAsn,
  normaliseCves,
  normaliseHostnames,
  parsePort,
  parseTransport,
  truncateText,
} from './values.js';

describe('field rules', () => {
  it('canonicalises IPs and converts Shodan numeric IPs', () => {
    expect(canonicalIp(' 2001:DB8:0:0:0:0:0:1 ')).toBe('2001:db8::1');
    expect(canonicalIp('192.0.2.1')).toBe('192.0.2.1');
    expect(() => canonicalIp('192.0.2')).toThrow('invalid ip "192.0.2"');
    expect(() => canonicalIp(3232235777)).toThrow(/expected a string/);
    expect(ipv4FromNumber(134744072)).toBe('8.8.8.8');
    expect(() => ipv4FromNumber(2 ** 32)).toThrow(/32-bit/);
  });

  it.each([
    [80, 80],
    ['443', 443],
    [' 8080 ', 8080],
    [65535, 65535],
  ])('port %j', (input, port) => expect(parsePort(input)).toBe(port));

  it.each([
    [0, 'port 0 out of range 1–65535'],
    [65536, 'port 65536 out of range 1–65535'],
    ['99999', 'port 99999 out of range 1–65535'],
    [-1, 'port -1 out of range 1–65535'],
    ['80/tcp', 'invalid port "80/tcp": expected an integer'],
    [undefined, 'missing port'],
  ])('rejects port %j', (input, reason) => expect(() => parsePort(input)).toThrow(reason));

  it('transports', () => {
    expect(parseTransport('TCP')).toBe('tcp');
    expect(parseTransport(undefined, 'tcp')).toBe('tcp');
    expect(() => parseTransport(undefined)).toThrow('missing transport');
    expect(() => parseTransport('sctp', 'tcp')).toThrow('unknown transport "sctp"');
  });

  it('hostnames, CVEs and ASNs', () => {
    expect(normaliseHostnames(['A.Example.COM.', 'a.example.com', '', 42, ' b.example.com'])).toEqual([
      'a.example.com',
      'b.example.com',
    ]);
    expect(normaliseCves([' cve-2021-44228', 'CVE-2021-44228', 'CVE-2014-0160'], 'strict')).toEqual([
      'CVE-2021-44228',
      'CVE-2014-0160',
    ]);
    expect(normaliseCves(['MS17-010', 'CVE-2017-0143'], 'lenient')).toEqual(['CVE-2017-0143']);
    expect(() => normaliseCves(['MS17-010'], 'strict')).toThrow(/invalid CVE id "MS17-010"/);
    expect(cvesInText('see cve-2016-8705 and CVE-2018-1000127, PACKETSTORM:139572')).toEqual([
      'CVE-2016-8705',
      'CVE-2018-1000127',
    ]);
    expect([normaliseAsn('AS15169'), normaliseAsn('as015169'), normaliseAsn(15169)]).toEqual([
      'AS15169',
      'AS15169',
      'AS15169',
    ]);
    expect(() => normaliseAsn('Google')).toThrow(/invalid asn/);
  });

  it('extra fields are strings, empty values dropped', () => {
    expect(extraFieldText('x')).toBe('x');
    expect(extraFieldText(3)).toBe('3');
    expect(extraFieldText(false)).toBe('false');
    expect(extraFieldText({ a: [1] })).toBe('{"a":[1]}');
    expect([extraFieldText(null), extraFieldText(''), extraFieldText({}), extraFieldText([])]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('truncates banners without splitting a surrogate pair', () => {
    expect(truncateText('abc', 2)).toBe('ab');
    expect(truncateText('a😀b', 2)).toBe('a');
    expect(truncateText('short')).toBe('short');
  });
});
