import { describe, expect, it } from 'vitest';
import { ipSortKey, parseIp } from './ip.js';
import { cidrBlocks, formatBlock, rangeOfSortKeys } from './ip-blocks.js';

const key = (text: string) => ipSortKey(parseIp(text));
const blocksOf = (first: string, last: string) => cidrBlocks(rangeOfSortKeys(key(first), key(last))).map(formatBlock);

describe('a stored range as CIDR blocks', () => {
  it.each<[string, string, string[]]>([
    ['192.0.2.7', '192.0.2.7', ['192.0.2.7']],
    ['192.0.2.0', '192.0.2.255', ['192.0.2.0/24']],
    ['10.0.0.0', '10.255.255.255', ['10.0.0.0/8']],
    ['0.0.0.0', '255.255.255.255', ['0.0.0.0/0']],
    ['192.0.2.1', '192.0.2.6', ['192.0.2.1', '192.0.2.2/31', '192.0.2.4/31', '192.0.2.6']],
    ['192.0.2.250', '192.0.3.5', ['192.0.2.250/31', '192.0.2.252/30', '192.0.3.0/30', '192.0.3.4/31']],
    ['255.255.255.255', '255.255.255.255', ['255.255.255.255']],
    ['2001:db8::', '2001:db8::ffff', ['2001:db8::/112']],
    ['2001:db8::1', '2001:db8::1', ['2001:db8::1']],
    ['::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', ['::/0']],
  ])('%s – %s', (first, last, expected) => {
    expect(blocksOf(first, last)).toEqual(expected);
  });

  it('a range of the most blocks stays bounded (2 × bits)', () => {
    expect(blocksOf('0.0.0.1', '255.255.255.254')).toHaveLength(62);
  });

  it.each([
    ['5c0000207', '4c0000207'],
    ['4c0000207', '620010db8000000000000000000000001'],
    ['4c0000208', '4c0000207'],
    ['4c00002', '4c0000207'],
    ['4c00002zz', '4c0000207'],
  ])('refuses keys %s – %s', (first, last) => {
    expect(() => rangeOfSortKeys(first, last)).toThrow();
  });
});
