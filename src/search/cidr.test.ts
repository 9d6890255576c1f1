import { describe, expect, it } from 'vitest';
import { parseCidr, parseIp, rangeContains } from '../core/ip.js';
import type { IndexEntry } from '../core/host-record.js';
import { HostIndex } from './host-index.js';

function record(id: number, ip: string): IndexEntry {
  return {
    id,
    ip,
    port: 443,
    protocol: 'tcp',
    hostname: '',
    observedAt: id * 1000,
    dateAdded: id * 1000,
    fingerprintsJson: '[]',
    cvesJson: '[]',
    confirmed: false,
    classificationsJson: '[]',
  };
}

/** Addresses crowding the /16 and /24 edges the filter splits on, plus a few IPv6. */
const ADDRESSES = [
  ...['9.255.255.255', '10.0.0.0', '10.0.0.1', '10.0.0.255', '10.0.1.0', '10.0.255.255', '10.1.0.0', '10.1.0.7'],
  ...['10.1.127.255', '10.1.128.0', '10.1.128.1', '10.1.255.254', '10.2.0.0', '10.3.3.3', '10.255.255.255', '11.0.0.0'],
  ...[
    '192.0.2.1',
    '192.0.2.128',
    '192.0.2.129',
    '192.0.3.0',
    '0.0.0.0',
    '255.255.255.255',
    '2001:db8::1',
    '::ffff:10.1.0.1',
  ],
];

describe('HostIndex cidr filter (whole /16 and /24 blocks plus checked edges)', () => {
  const index = new HostIndex();
  for (const [i, ip] of ADDRESSES.entries()) index.upsert(record(i + 1, ip), i + 1);

  it.each([
    '10.0.0.0/8',
    '10.0.0.0/15',
    '10.0.0.0/16',
    '10.1.0.0/16',
    '10.1.0.0/17',
    '10.1.128.0/17',
    '10.1.0.0/24',
    '10.0.0.0/23',
    '10.0.255.0/24',
    '10.0.255.255/32',
    '10.1.0.0/29',
    '10.1.0.4/30',
    '192.0.2.128/25',
    '192.0.2.0/23',
    '10.0.0.0/7',
    '0.0.0.0/0',
    '0.0.0.0/1',
    '128.0.0.0/1',
    '9.255.255.255',
    '11.0.0.0/31',
    '2001:db8::/32',
  ])('%s holds exactly the records whose address it contains', (cidr) => {
    const range = parseCidr(cidr);
    const expected = ADDRESSES.flatMap((ip, i) => (rangeContains(range, parseIp(ip)) ? [i + 1] : []));
    expect(index.evaluate({ cidr: range, dateAdded: [], observed: [] }).toArray()).toEqual(expected);
  });
});
