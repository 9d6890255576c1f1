import { describe, expect, it } from 'vitest';
import { parseCidr, parseIp, rangeContains } from '../../core/ip.js';
import { DEMO_NETWORKS, DEMO_RANGES } from './catalog.js';
import { demoObservationLines } from './generate.js';

/** Reserved from the internet: RFC 5737 documentation, RFC 2544 benchmarking, RFC 3849 IPv6 documentation. */
const RESERVED = ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '198.18.0.0/15', '2001:db8::/32'].map(parseCidr);

describe('the demo dataset', () => {
  it.each([5000, 100_000])('puts every one of %i observations in documentation or benchmarking ranges', (count) => {
    const ips = new Set<string>();
    for (const line of demoObservationLines({ count, now: Date.UTC(2026, 0, 1) })) {
      ips.add((JSON.parse(line) as { ip: string }).ip);
    }
    const outside = [...ips].filter((ip) => !RESERVED.some((range) => rangeContains(range, parseIp(ip))));
    expect(outside).toEqual([]);
    expect([...ips].some((ip) => ip.startsWith('100.64.'))).toBe(false);
  });

  it('declares only those ranges, one network inside one of them each', () => {
    expect(DEMO_RANGES.map(parseCidr)).toEqual(RESERVED);
    for (const network of DEMO_NETWORKS) {
      const block = parseCidr(network.cidr);
      const inside = RESERVED.some(
        (range) => range.version === block.version && range.first <= block.first && block.last <= range.last,
      );
      expect(inside, network.cidr).toBe(true);
    }
  });

  it('is the same for the same seed', () => {
    const a = [...demoObservationLines({ count: 300, now: 0 })];
    const b = [...demoObservationLines({ count: 300, now: 0 })];
    expect(a).toEqual(b);
  });
});
