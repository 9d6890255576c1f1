import { describe, expect, it } from 'vitest';
import type { IndexEntry } from '../core/host-record.js';
import { classifiedAddresses, classifiedHostnames, stillCurrent } from './classified-members.js';
import { HostIndex } from './host-index.js';

const HOUR = 3_600_000;
const NOW = 1000 * HOUR;

let nextId = 1;
function entry(ip: string, classifications: string[], more: Partial<IndexEntry> = {}): IndexEntry {
  return {
    id: nextId++,
    ip,
    port: 443,
    protocol: 'tcp',
    hostname: '',
    observedAt: NOW - HOUR,
    dateAdded: NOW - HOUR,
    fingerprintsJson: '[]',
    cvesJson: '[]',
    confirmed: false,
    classificationsJson: JSON.stringify(classifications),
    ...more,
  };
}

function indexOf(entries: IndexEntry[]): HostIndex {
  const index = new HostIndex();
  for (const [i, e] of entries.entries()) index.upsert(e, i + 1);
  return index;
}

const addressesOf = (index: HostIndex, since = -Infinity) => {
  const found = classifiedAddresses(index, 0, 'c2', since);
  return [
    ...Array.from(found.ipv4, (value, i) => [value, found.ipv4Products.of(i)]),
    ...found.ipv6.map((value, i) => [value, found.ipv6Products.of(i)]),
  ];
};

const hostnamesOf = (index: HostIndex, since = -Infinity) => {
  const found = classifiedHostnames(index, 0, 'c2', since);
  return found.hostnames.map((name, i) => [name, found.products.of(i)]);
};

describe('the addresses and hostnames of one classification type', () => {
  it('each once, in order, with every product it is classified under', () => {
    const index = indexOf([
      entry('192.0.2.20', ['c2']),
      entry('192.0.2.10', ['c2:sliver'], { port: 8443, hostname: 'b.example' }),
      entry('192.0.2.10', ['c2:cobalt_strike', 'proxy:tor'], { hostname: 'b.example' }),
      entry('192.0.2.10', ['c2:sliver'], { port: 80 }),
      entry('2001:db8::1', ['c2:mythic'], { hostname: 'a.example' }),
      entry('10.0.0.1', ['proxy:tor', 'scanner'], { hostname: 'c.example' }),
      entry('10.0.0.2', ['c2', 'c2:havoc']),
    ]);
    expect(addressesOf(index)).toEqual([
      [0x0a000002, ['havoc']],
      [0xc000020a, ['cobalt_strike', 'sliver']],
      [0xc0000214, []],
      [0x20010db8000000000000000000000001n, ['mythic']],
    ]);
    expect(hostnamesOf(index)).toEqual([
      ['a.example', ['mythic']],
      ['b.example', ['cobalt_strike', 'sliver']],
    ]);
  });

  it('leaves out records observed before the window, and records that lost the classification', () => {
    const old = entry('192.0.2.1', ['c2:sliver'], { observedAt: NOW - 50 * HOUR, hostname: 'old.example' });
    const edge = entry('192.0.2.2', ['c2:sliver'], { observedAt: NOW - 10 * HOUR, hostname: 'edge.example' });
    const lost = entry('192.0.2.3', ['c2'], { hostname: 'lost.example' });
    const index = indexOf([old, edge, lost]);
    const since = NOW - 10 * HOUR;
    expect(addressesOf(index, since).map(([ip]) => ip)).toEqual([0xc0000202, 0xc0000203]);
    index.upsert({ ...lost, classificationsJson: '[]' }, 10);
    expect(hostnamesOf(index, since)).toEqual([['edge.example', ['sliver']]]);
    expect(hostnamesOf(index)).toEqual([
      ['edge.example', ['sliver']],
      ['old.example', ['sliver']],
    ]);
    index.remove(edge.id, 11);
    expect(addressesOf(index, since)).toEqual([]);
  });

  it('an index without the type has nothing', () => {
    const index = indexOf([entry('192.0.2.1', ['scanner'])]);
    expect(addressesOf(index)).toEqual([]);
    expect(hostnamesOf(index)).toEqual([]);
  });
});

describe('a list read earlier is still the list', () => {
  const index = indexOf([
    entry('192.0.2.1', ['c2'], { observedAt: NOW - 5 * HOUR }),
    entry('192.0.2.2', ['c2'], { observedAt: NOW - 2 * HOUR }),
  ]);
  const since = NOW - 10 * HOUR;
  const { readAt } = classifiedAddresses(index, 7, 'c2', since);

  it.each<[string, HostIndex, number, number, boolean]>([
    ['unchanged, a moment later', index, 7, since + 1000, true],
    ['until the window passes its oldest member', index, 7, NOW - 5 * HOUR, true],
    ['not once it has', index, 7, NOW - 5 * HOUR + 1, false],
    ['not after the index changed', index, 8, since, false],
    ['not for another index', new HostIndex(), 7, since, false],
    ['not for an earlier window start', index, 7, since - 1, false],
  ])('%s', (_name, other, seq, at, expected) => {
    expect(stillCurrent(readAt, other, seq, at)).toBe(expected);
  });
});
