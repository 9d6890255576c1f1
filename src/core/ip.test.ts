import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VulnscopeError } from './errors.js';
import {
  formatIp,
  ipRange,
  ipSortKey,
  ipv4ToNumber,
  parseCidr,
  parseIp,
  rangeContains,
  tryParseIp,
  type IpRange,
} from './ip.js';
import { FIXTURES } from '../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

const FIXTURE_URL = pathToFileURL(FIXTURES);

function expectInvalid(action: () => unknown, fragment: string): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(VulnscopeError);
  expect((thrown as VulnscopeError).code).toBe('invalid_input');
  expect((thrown as VulnscopeError).message).toContain(fragment);
}

describe('parseIp: IPv4', () => {
  it.each([
    ['0.0.0.0', 0n],
    ['255.255.255.255', 0xffffffffn],
    ['10.0.0.1', 0x0a000001n],
    ['192.168.1.10', 0xc0a8010an],
    ['8.8.8.8', 0x08080808n],
    ['1.2.3.4', 0x01020304n],
    ['100.64.0.0', 0x64400000n],
  ])('%s', (text, value) => {
    expect(parseIp(text)).toEqual({ version: 4, value, text });
  });

  it.each([
    ['010.1.1.1', 'octet "010" has a leading zero'],
    ['1.1.1.01', 'octet "01" has a leading zero'],
    ['00.1.1.1', 'octet "00" has a leading zero'],
    ['256.0.0.1', 'octet "256" is out of range (0-255)'],
    ['1.2.3.999', 'octet "999" is out of range'],
    ['1.2.3', 'expected 4 dot-separated decimal octets'],
    ['1.2.3.4.5', 'expected 4 dot-separated decimal octets'],
    ['1.2.3.', 'octet "" is not a decimal number'],
    ['1..3.4', 'octet "" is not a decimal number'],
    ['1.2.3.1234', 'octet "1234" is not a decimal number of 1-3 digits'],
    ['0x7f.0.0.1', 'octet "0x7f" is not a decimal number'],
    ['+1.2.3.4', 'octet "+1" is not a decimal number'],
    ['1.2.3.-4', 'octet "-4" is not a decimal number'],
    [' 1.2.3.4', 'octet " 1" is not a decimal number'],
    ['1.2.3.4 ', 'octet "4 " is not a decimal number'],
    ['167772161', 'expected 4 dot-separated decimal octets'],
    ['1.2.3.4/32', 'octet "4/32" is not a decimal number'],
    ['', 'expected 4 dot-separated decimal octets'],
    ['localhost', 'expected 4 dot-separated decimal octets'],
  ])('rejects %j: %s', (text, reason) => {
    expectInvalid(() => parseIp(text), `invalid IP address "${text}": ${reason}`);
    expect(tryParseIp(text)).toBeUndefined();
  });
});

describe('parseIp: IPv6 and its RFC 5952 canonical text', () => {
  it.each([
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1', 'upper case lowered, longest zero run compressed'],
    ['2001:db8::1', '2001:db8::1', 'already canonical'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1', 'leading zeros suppressed'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1', 'equal runs: the first is compressed'],
    ['2001:db8:0:1:0:0:0:1', '2001:db8:0:1::1', 'the longest run wins over an earlier shorter one'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1', 'a single zero group is not compressed'],
    ['2001:db8::1:1:1:1:1', '2001:db8:0:1:1:1:1:1', 'a :: standing for one group is expanded'],
    ['::', '::', 'all zeros'],
    ['0:0:0:0:0:0:0:0', '::', 'all zeros spelled out'],
    ['::1', '::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', '::1', 'loopback spelled out'],
    ['1::', '1::', 'trailing run'],
    ['1:0:0:0:0:0:0:0', '1::', 'trailing run spelled out'],
    ['fe80::1:2', 'fe80::1:2', 'link-local'],
    ['FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'all ones'],
    ['2001:db8:aaaa:bbbb:cccc:dddd:eeee:0001', '2001:db8:aaaa:bbbb:cccc:dddd:eeee:1', 'no zero group'],
    ['2001:db8:a::', '2001:db8:a::', 'compressed at the end'],
    ['::ffff:1.2.3.4', '::ffff:1.2.3.4', 'IPv4-mapped keeps the dotted quad (RFC 5952 §5)'],
    ['::FFFF:102:304', '::ffff:1.2.3.4', 'IPv4-mapped written in hex'],
    ['0:0:0:0:0:ffff:1.2.3.4', '::ffff:1.2.3.4', 'IPv4-mapped spelled out'],
    ['::ffff:0.0.0.0', '::ffff:0.0.0.0', 'IPv4-mapped zero address'],
    ['::1.2.3.4', '::102:304', 'deprecated IPv4-compatible form is plain hex'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221', 'embedded IPv4 after the :: (NAT64)'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0', 'a :: standing for the last group'],
    ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8', 'a :: standing for the first group'],
  ])('%s -> %s (%s)', (input, canonical) => {
    const ip = parseIp(input);
    expect(ip.version).toBe(6);
    expect(ip.text).toBe(canonical);
    expect(parseIp(canonical)).toEqual(ip);
  });

  it.each([
    ['::1', 1n],
    ['::ffff:1.2.3.4', 0xffff01020304n],
    ['2001:db8::', 0x20010db8n << 96n],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', (1n << 128n) - 1n],
  ])('%s has value %s', (text, value) => {
    expect(parseIp(text).value).toBe(value);
  });

  it.each([
    ['fe80::1%eth0', 'zone ids are not accepted'],
    ['fe80::1%25eth0', 'zone ids are not accepted'],
    ['1::2::3', '"::" may appear only once'],
    [':::', '"::" may appear only once'],
    ['1:2:3:4:5:6:7:8:9', 'expected 8 groups of 16 bits, found 9'],
    ['1:2:3:4:5:6:7', 'expected 8 groups of 16 bits, found 7'],
    ['1:2:3:4:5:6:7::8', 'too many groups for "::"'],
    ['::1:2:3:4:5:6:7:8', 'too many groups for "::"'],
    ['12345::', 'group "12345" is not 1-4 hexadecimal digits'],
    ['2001:db8::g', 'group "g" is not 1-4 hexadecimal digits'],
    [':1::', 'empty group (stray ":")'],
    ['1::2:', 'empty group (stray ":")'],
    [':1:2:3:4:5:6:7', 'empty group (stray ":")'],
    [':', 'empty group (stray ":")'],
    ['[::1]', 'group "[" is not 1-4 hexadecimal digits'],
    ['::ffff:1.2.3.256', 'embedded IPv4 address: octet "256" is out of range'],
    ['::ffff:01.2.3.4', 'embedded IPv4 address: octet "01" has a leading zero'],
    ['::1.2.3.4:5', 'group "1.2.3.4" is not 1-4 hexadecimal digits'],
    ['1:2:3:4:5:6:7:1.2.3.4', 'expected 8 groups of 16 bits, found 9'],
    ['1.2.3.4::', 'group "1.2.3.4" is not 1-4 hexadecimal digits'],
    [' ::1', 'group " " is not 1-4 hexadecimal digits'],
  ])('rejects %j: %s', (text, reason) => {
    expectInvalid(() => parseIp(text), `invalid IP address "${text}": ${reason}`);
    expect(tryParseIp(text)).toBeUndefined();
  });
});

describe('formatIp', () => {
  it.each([
    [4, 0n, '0.0.0.0'],
    [4, 0xffffffffn, '255.255.255.255'],
    [4, 0x7f000001n, '127.0.0.1'],
    [6, 0n, '::'],
    [6, 1n, '::1'],
    [6, 0xffff7f000001n, '::ffff:127.0.0.1'],
    [6, (0x20010db8n << 96n) | 1n, '2001:db8::1'],
    [6, (1n << 128n) - 1n, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ] as const)('IPv%s %s -> %s', (version, value, text) => {
    expect(formatIp(version, value)).toBe(text);
  });

  it.each([
    [4, -1n],
    [4, 1n << 32n],
    [6, 1n << 128n],
  ] as const)('rejects IPv%s value %s', (version, value) => {
    expectInvalid(() => formatIp(version, value), 'is out of range');
  });
});

describe('parseCidr', () => {
  const v4 = (first: bigint, last: bigint, prefix: number): IpRange => ({ version: 4, first, last, prefix });
  const v6 = (first: bigint, last: bigint, prefix: number): IpRange => ({ version: 6, first, last, prefix });

  it.each([
    ['10.0.0.0/8', v4(0x0a000000n, 0x0affffffn, 8)],
    ['10.1.2.3/8', v4(0x0a000000n, 0x0affffffn, 8)],
    ['192.168.1.0/24', v4(0xc0a80100n, 0xc0a801ffn, 24)],
    ['192.168.1.77/31', v4(0xc0a8014cn, 0xc0a8014dn, 31)],
    ['1.2.3.4/32', v4(0x01020304n, 0x01020304n, 32)],
    ['1.2.3.4', v4(0x01020304n, 0x01020304n, 32)],
    ['0.0.0.0/0', v4(0n, 0xffffffffn, 0)],
    ['255.255.255.255/0', v4(0n, 0xffffffffn, 0)],
    ['2001:db8::/32', v6(0x20010db8n << 96n, (0x20010db8n << 96n) | ((1n << 96n) - 1n), 32)],
    ['2001:db8:1234::1/32', v6(0x20010db8n << 96n, (0x20010db8n << 96n) | ((1n << 96n) - 1n), 32)],
    ['::/0', v6(0n, (1n << 128n) - 1n, 0)],
    ['::1', v6(1n, 1n, 128)],
    ['::1/128', v6(1n, 1n, 128)],
    ['fe80::1/64', v6(0xfe80n << 112n, (0xfe80n << 112n) | ((1n << 64n) - 1n), 64)],
    ['::ffff:10.0.0.0/104', v6(0xffff0a000000n, 0xffff0affffffn, 104)],
  ])('%s', (text, expected) => {
    expect(parseCidr(text)).toEqual(expected);
  });

  it.each([
    ['10.0.0.0/33', 'prefix /33 is out of range for IPv4 (0-32)'],
    ['2001:db8::/129', 'prefix /129 is out of range for IPv6 (0-128)'],
    ['10.0.0.0/-1', 'prefix "-1" is not a decimal number'],
    ['10.0.0.0/', 'prefix "" is not a decimal number'],
    ['10.0.0.0/08', 'prefix "08" is not a decimal number'],
    ['10.0.0.0/8/8', 'prefix "8/8" is not a decimal number'],
    ['10.0.0.0/ 8', 'prefix " 8" is not a decimal number'],
    ['10.0.0/8', 'expected 4 dot-separated decimal octets'],
    ['010.0.0.0/8', 'octet "010" has a leading zero'],
    ['fe80::%eth0/64', 'zone ids are not accepted'],
    ['/8', 'expected 4 dot-separated decimal octets'],
  ])('rejects %j: %s', (text, reason) => {
    expectInvalid(() => parseCidr(text), `invalid CIDR "${text}": ${reason}`);
  });
});

describe('ipRange', () => {
  it.each([
    ['10.0.0.0', '10.0.0.255', 24],
    ['10.0.0.0', '10.255.255.255', 8],
    ['1.2.3.4', '1.2.3.4', 32],
    ['0.0.0.0', '255.255.255.255', 0],
    ['10.0.0.1', '10.0.0.255', -1],
    ['10.0.0.0', '10.0.0.254', -1],
    ['10.0.0.128', '10.0.1.127', -1],
    ['10.0.0.0', '10.0.0.2', -1],
    ['2001:db8::', '2001:db8::ffff', 112],
    ['::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 0],
    ['2001:db8::1', '2001:db8::5', -1],
  ])('%s-%s has prefix %s', (first, last, prefix) => {
    const range = ipRange(parseIp(first), parseIp(last));
    expect(range).toEqual({
      version: parseIp(first).version,
      first: parseIp(first).value,
      last: parseIp(last).value,
      prefix,
    });
  });

  it.each([
    ['10.0.0.2', '10.0.0.1', 'invalid IP range "10.0.0.2-10.0.0.1": the first address is after the last'],
    ['10.0.0.1', '::1', 'invalid IP range "10.0.0.1-::1": mixes IPv4 and IPv6'],
    ['::ffff:1.2.3.4', '1.2.3.5', 'mixes IPv4 and IPv6'],
  ])('rejects %s-%s', (first, last, message) => {
    expectInvalid(() => ipRange(parseIp(first), parseIp(last)), message);
  });
});

describe('rangeContains', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0', true],
    ['10.0.0.0/8', '10.255.255.255', true],
    ['10.0.0.0/8', '10.1.2.3', true],
    ['10.0.0.0/8', '9.255.255.255', false],
    ['10.0.0.0/8', '11.0.0.0', false],
    ['0.0.0.0/0', '255.255.255.255', true],
    ['1.2.3.4/32', '1.2.3.4', true],
    ['1.2.3.4/32', '1.2.3.5', false],
    ['2001:db8::/32', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', true],
    ['2001:db8::/32', '2001:db9::', false],
    ['::/0', '::1', true],
    ['::/0', '1.2.3.4', false],
    ['0.0.0.0/0', '::1', false],
    ['1.2.3.0/24', '::ffff:1.2.3.4', false],
    ['::ffff:0.0.0.0/96', '::ffff:1.2.3.4', true],
  ])('%s contains %s: %s', (cidr, ip, expected) => {
    expect(rangeContains(parseCidr(cidr), parseIp(ip))).toBe(expected);
  });

  it('works on start-end ranges', () => {
    const range = ipRange(parseIp('10.0.0.5'), parseIp('10.0.0.9'));
    expect(rangeContains(range, parseIp('10.0.0.4'))).toBe(false);
    expect(rangeContains(range, parseIp('10.0.0.5'))).toBe(true);
    expect(rangeContains(range, parseIp('10.0.0.9'))).toBe(true);
    expect(rangeContains(range, parseIp('10.0.0.10'))).toBe(false);
  });
});

describe('ipv4ToNumber', () => {
  it.each([
    ['0.0.0.0', 0],
    ['0.0.0.1', 1],
    ['127.0.0.1', 2130706433],
    ['128.0.0.0', 2147483648],
    ['255.255.255.255', 4294967295],
  ])('%s -> %s (unsigned)', (text, number) => {
    expect(ipv4ToNumber(parseIp(text))).toBe(number);
  });

  it('rejects IPv6', () => {
    expectInvalid(() => ipv4ToNumber(parseIp('::ffff:1.2.3.4')), 'not an IPv4 address: "::ffff:1.2.3.4"');
  });
});

describe('ipSortKey', () => {
  it.each([
    ['0.0.0.0', '400000000'],
    ['10.0.0.1', '40a000001'],
    ['255.255.255.255', '4ffffffff'],
    ['::', '600000000000000000000000000000000'],
    ['::1', '600000000000000000000000000000001'],
    ['2001:db8::1', '620010db8000000000000000000000001'],
  ])('%s -> %s', (text, key) => {
    expect(ipSortKey(parseIp(text))).toBe(key);
  });

  it('sorts every IPv4 before every IPv6, numerically within each', () => {
    const ordered = [
      '0.0.0.0',
      '1.2.3.4',
      '9.255.255.255',
      '10.0.0.0',
      '100.0.0.0',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:1.2.3.4',
      '2001:db8::',
      '2001:db8::1',
      'fe80::',
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ];
    const shuffled = [...ordered].reverse();
    shuffled.push(shuffled.shift()!);
    const sorted = shuffled.map((text) => parseIp(text)).sort((a, b) => (ipSortKey(a) < ipSortKey(b) ? -1 : 1));
    expect(sorted.map((ip) => ip.text)).toEqual(ordered);
  });
});

describe('IP lists in the public layouts', () => {
  const torExits = readFileSync(new URL('ip-lists/tor_exit_nodes.lst', FIXTURE_URL), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

  it('every Tor exit node parses, and its canonical text is a fixed point', () => {
    expect(torExits.length).toBe(600);
    const addresses = torExits.map((line) => parseIp(line));
    expect(addresses.some((ip) => ip.version === 6)).toBe(true);
    for (const ip of addresses) {
      expect(parseIp(ip.text)).toEqual(ip);
      expect(formatIp(ip.version, ip.value)).toBe(ip.text);
      expect(rangeContains(parseCidr(ip.text), ip)).toBe(true);
    }
  });

  it('the C2 tracker list parses', () => {
    const lines = readFileSync(new URL('ip-lists/c2_tracker_all.txt', FIXTURE_URL), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const unparsed = lines.filter((line) => tryParseIp(line) === undefined);
    expect(unparsed).toEqual([]);
  });
});

describe('dotted quads: the quick path accepts exactly the valid ones', () => {
  // Octets of every shape: in and out of range, leading zeros, empty, too long; three to five of them.
  const octet = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.stringMatching(/^[0-9]{0,4}$/));
  const nearQuads = fc.array(octet, { minLength: 3, maxLength: 5 }).map((octets) => octets.join('.'));
  const VALID = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
  it('agrees with the grammar on random strings of digits and dots', () => {
    fc.assert(
      fc.property(fc.oneof(fc.stringMatching(/^[0-9.]{1,17}$/), nearQuads), (text) => {
        const parsed = tryParseIp(text);
        if (!VALID.test(text)) return parsed === undefined;
        const value = text.split('.').reduce((acc, octet) => acc * 256n + BigInt(octet), 0n);
        return parsed?.version === 4 && parsed.text === text && parsed.value === value;
      }),
      { numRuns: 20_000, seed: 7 },
    );
  });
});
