import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ReadItem } from '../../core/observation.js';
import { readVulnscopeNdjson } from './ndjson.js';

async function read(input: string | Readable): Promise<ReadItem[]> {
  const stream = typeof input === 'string' ? Readable.from([Buffer.from(input)]) : input;
  const items: ReadItem[] = [];
  for await (const item of readVulnscopeNdjson(stream, 'obs.ndjson')) items.push(item);
  return items;
}

const GOOD = {
  ip: '203.0.113.7',
  port: 443,
  protocol: 'tcp',
  hostname: 'WWW.Example.com.',
  hostnames: ['www.example.com', 'api.example.com'],
  timestamp: '2026-03-15T22:57:45.950Z',
  fingerprints: [
    {
      cpe: 'cpe:/a:apache:http_server:2.4.49',
      service: 'https',
      port_count: 3,
      tls: true,
      headers: { server: 'Apache/2.4.49' },
      empty: '',
      nothing: null,
    },
    { vendor: 'openssl', product: 'openssl', version: '1.1.1k' },
  ],
  os_cpes: ['cpe:2.3:o:canonical:ubuntu_linux:20.04:*:*:*:lts:*:*:*'],
  cves: ['cve-2021-41773', 'CVE-2021-41773', 'CVE-2021-42013'],
  classifications: ['Honeypot:Cowrie SSH', 'c2'],
  asn: 'as64500',
  as_name: 'ACME',
  country: 'United States',
  country_code: 'us',
};

describe('Vulnscope observation NDJSON', () => {
  it('normalises every field of a complete record', async () => {
    const [item] = await read(`${JSON.stringify(GOOD)}\n`);
    expect(item).toEqual({
      kind: 'observation',
      at: { file: 'obs.ndjson', line: 1 },
      observation: {
        ip: '203.0.113.7',
        port: 443,
        protocol: 'tcp',
        hostnames: ['www.example.com', 'api.example.com'],
        timestamp: Date.UTC(2026, 2, 15, 22, 57, 45, 950),
        fingerprints: [
          {
            cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
            vendor: 'apache',
            product: 'http_server',
            version: '2.4.49',
            service: 'https',
            port_count: '3',
            tls: 'true',
            headers: '{"server":"Apache/2.4.49"}',
          },
          { vendor: 'openssl', product: 'openssl', version: '1.1.1k' },
        ],
        osCpes: ['cpe:2.3:o:canonical:ubuntu_linux:20.04:*:*:*:lts:*:*:*'],
        cves: ['CVE-2021-41773', 'CVE-2021-42013'],
        classifications: ['honeypot:cowrie_ssh', 'c2'],
        asn: 'AS64500',
        asName: 'ACME',
        country: 'United States',
        countryCode: 'US',
      },
    });
  });

  it('accepts transport as an alias, epoch seconds and milliseconds, IPv6, and minimal records', async () => {
    const lines = [
      { ip: '2001:DB8::0:1', port: 53, transport: 'UDP', timestamp: 1700000000 },
      { ip: '198.51.100.1', port: '8080', timestamp: 1700000000123 },
      { ip: '198.51.100.2', port: 22, protocol: 'tcp', transport: 'tcp', timestamp: '2024-01-01T01:00:00+01:00' },
    ];
    const items = await read(lines.map((l) => JSON.stringify(l)).join('\r\n'));
    expect(items.map((i) => (i.kind === 'observation' ? i.observation : i))).toEqual([
      {
        ip: '2001:db8::1',
        port: 53,
        protocol: 'udp',
        hostnames: [],
        timestamp: 1700000000_000,
        fingerprints: [],
        osCpes: [],
        cves: [],
        classifications: [],
      },
      {
        ip: '198.51.100.1',
        port: 8080,
        protocol: 'tcp',
        hostnames: [],
        timestamp: 1700000000123,
        fingerprints: [],
        osCpes: [],
        cves: [],
        classifications: [],
      },
      {
        ip: '198.51.100.2',
        port: 22,
        protocol: 'tcp',
        hostnames: [],
        timestamp: Date.UTC(2024, 0, 1),
        fingerprints: [],
        osCpes: [],
        cves: [],
        classifications: [],
      },
    ]);
  });

  it('reports each bad line with its line number and reads on', async () => {
    const ok = (port: number) => JSON.stringify({ ip: '192.0.2.1', port, timestamp: 1700000000 });
    const lines = [
      ok(1), // 1
      '{"ip": "192.0.2.1", "port": 80,', // 2 invalid JSON (truncated)
      '', // 3 blank: skipped
      JSON.stringify({ port: 80, timestamp: 1700000000 }), // 4
      JSON.stringify({ ip: '192.0.2.1', port: 0, timestamp: 1700000000 }), // 5
      JSON.stringify({ ip: '192.0.2.1', port: 70000, timestamp: 1700000000 }), // 6
      JSON.stringify({ ip: '192.0.2.1', port: 80, protocol: 'sctp', timestamp: 1700000000 }), // 7
      JSON.stringify({ ip: '192.0.2.1', port: 80, timestamp: '2024-13-01T00:00:00Z' }), // 8
      JSON.stringify({ ip: '192.0.2.1', port: 80, timestamp: 1700000000, classifications: ['malware:emotet'] }), // 9
      JSON.stringify({ ip: '999.1.1.1', port: 80, timestamp: 1700000000 }), // 10
      JSON.stringify({ ip: '192.0.2.1', port: 80, timestamp: '2024-01-01T00:00:00' }), // 11
      JSON.stringify({ ip: '192.0.2.1', port: 80, timestamp: 1700000000, cves: ['CVE-21-1'] }), // 12
      JSON.stringify({ ip: '192.0.2.1', port: 80, timestamp: 1700000000, fingerprints: [{ cpe: 'cpe:2.3:a:bad' }] }), // 13
      JSON.stringify({ ip: '192.0.2.1', port: 80, timestamp: 1700000000, fingerprints: ['nginx'] }), // 14
      '[1, 2]', // 15
      JSON.stringify({ ip: '192.0.2.1', port: 80.5, timestamp: 1700000000 }), // 16
      JSON.stringify({ ip: '192.0.2.1', port: 80, protocol: 'tcp', transport: 'udp', timestamp: 1700000000 }), // 17
      JSON.stringify({ ip: '192.0.2.1', port: 80, timestamp: 1700000000, country_code: 'USA' }), // 18
      JSON.stringify({ ip: '192.0.2.1', port: 80, timestamp: 1700000000, hostnames: ['a.example', 7] }), // 19
      ok(65535), // 20
    ];
    const items = await read(`${lines.join('\n')}\n`);
    const summary = items.map((i) => [i.at.line, i.kind === 'rejected' ? i.reason : `ok ${i.observation.port}`]);
    expect(summary).toEqual([
      [1, 'ok 1'],
      [2, expect.stringMatching(/^invalid JSON: /)],
      [4, 'missing ip'],
      [5, 'port 0 out of range 1–65535'],
      [6, 'port 70000 out of range 1–65535'],
      [7, 'unknown transport "sctp": expected tcp or udp'],
      [8, 'bad timestamp "2024-13-01T00:00:00Z": no such date'],
      [9, expect.stringMatching(/^unknown classification type "malware"/)],
      [10, 'invalid ip "999.1.1.1"'],
      [11, 'bad timestamp "2024-01-01T00:00:00": a time zone offset (Z or ±hh:mm) is required'],
      [12, 'invalid CVE id "CVE-21-1": expected CVE-YYYY-NNNN'],
      [13, expect.stringMatching(/^fingerprints\[0\]\.cpe: /)],
      [14, 'fingerprints[0] must be an object, got the string "nginx"'],
      [15, 'expected a JSON object, got an array'],
      [16, 'invalid port 80.5: expected an integer'],
      [17, 'protocol "tcp" and transport "udp" disagree'],
      [18, 'invalid country_code "USA": expected two letters'],
      [19, 'hostnames must be strings, got number'],
      [20, 'ok 65535'],
    ]);
  });

  it('reads the example of docs/observation-format.md', async () => {
    const doc = readFileSync('docs/observation-format.md', 'utf8');
    const example = /## Vulnscope observation NDJSON[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)![1]!;
    const items = await read(example);
    expect(
      items.map((i) =>
        i.kind === 'observation' ? `${i.observation.ip}:${i.observation.port}/${i.observation.protocol}` : i.reason,
      ),
    ).toEqual(['203.0.113.7:443/tcp', '2001:db8::1:53/udp']);
  });

  it('reads a JSON array of observations, positions being element indexes', async () => {
    const items = await read(`[\n${JSON.stringify(GOOD)},\n{"ip": "192.0.2.9", "port": 0, "timestamp": 1700000000}\n]`);
    expect(items.map((i) => [i.kind, i.at.line])).toEqual([
      ['observation', 1],
      ['rejected', 2],
    ]);
  });

  it('reads pretty-printed records one after another', async () => {
    const text = [
      JSON.stringify(GOOD, null, 2),
      JSON.stringify({ ip: '192.0.2.9', port: 9, timestamp: 1700000000 }, null, 2),
    ].join('\n');
    const items = await read(text);
    expect(items.map((i) => [i.kind, i.at.line])).toEqual([
      ['observation', 1],
      ['observation', text.split('\n').findIndex((l, n) => n > 0 && l === '{') + 1],
    ]);
  });

  it('explains that a python-libnmap JSON report is not this format', async () => {
    const items = await read('{"__NmapReport__": {"_hosts": []}}\n');
    expect(items).toEqual([
      {
        kind: 'rejected',
        at: { file: 'obs.ndjson', line: 1 },
        reason: expect.stringMatching(/python-libnmap JSON report/),
      },
    ]);
  });

  it('streams a generated 50,000-line input without holding it', async () => {
    const total = 50_000;
    let produced = 0;
    async function* generate() {
      for (let batch = 0; batch < total / 1000; batch++) {
        let chunk = '';
        for (let i = 0; i < 1000; i++, produced++) {
          const n = produced;
          chunk += `{"ip":"10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}","port":${(n % 65535) + 1},"timestamp":${1700000000 + n}}\n`;
        }
        yield Buffer.from(chunk);
      }
    }
    let count = 0;
    let maxLead = 0;
    for await (const item of readVulnscopeNdjson(Readable.from(generate(), { objectMode: false }), 'gen.ndjson')) {
      if (item.kind !== 'observation') throw new Error(JSON.stringify(item));
      count += 1;
      // How far the producer is ahead of the reader: small if nothing is buffered whole.
      maxLead = Math.max(maxLead, produced - count);
    }
    expect(count).toBe(total);
    // At most a few 1,000-line chunks are ever buffered ahead of the reader.
    expect(maxLead).toBeLessThan(total / 5);
  });
});
