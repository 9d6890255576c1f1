import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Observation, ReadItem } from '../../core/observation.js';
import { readShodan } from './shodan.js';
import { fixture } from '../../../test/support/fixtures.js';

const SCANS = fixture('scans/');

async function read(input: string | Readable, file = 'shodan.json'): Promise<ReadItem[]> {
  const stream = typeof input === 'string' ? Readable.from([Buffer.from(input)]) : input;
  const items: ReadItem[] = [];
  for await (const item of readShodan(stream, file)) items.push(item);
  return items;
}

const observationsOf = (items: ReadItem[]): Observation[] =>
  items.map((item) => {
    if (item.kind !== 'observation') throw new Error(`line ${item.at.line}: ${item.reason}`);
    return item.observation;
  });

/** The banner from the reference (§3.5), extended with the quirks the reader must handle. */
const BANNER = {
  ip_str: '203.0.113.7',
  ip: 3405803783,
  port: 443,
  transport: 'tcp',
  timestamp: '2026-03-15T22:57:45.950793',
  hostnames: ['A.example.com'],
  domains: ['example.com'],
  asn: 'AS64500',
  org: 'ACME',
  isp: 'ACME ISP',
  location: { country_code: 'US', country_name: 'United States', city: 'X' },
  product: 'nginx',
  version: '1.25',
  cpe: ['cpe:/a:f5:nginx:1.25'],
  cpe23: ['cpe:2.3:a:f5:nginx:1.25'],
  vulns: { 'CVE-2021-23017': { verified: false, cvss: 9.8 }, 'cve-2019-9511': { verified: false } },
  tags: ['cloud', 'honeypot', 'tor', 'self-signed'],
  data: `HTTP/1.1 200 OK\r\nServer: nginx/1.25\r\n${'x'.repeat(2000)}`,
  _shodan: { module: 'https', id: 'abc', ptr: true },
};

describe('Shodan host-API fixtures', () => {
  it('reads the pretty-printed DNS host object with host-level enrichment', async () => {
    const items = await read(createReadStream(`${SCANS}shodan_host_dns_sample.json`), 'dns.json');
    expect(items).toEqual([
      {
        kind: 'observation',
        at: { file: 'dns.json', line: 1 },
        observation: {
          ip: '192.0.2.10',
          port: 53,
          protocol: 'udp',
          hostnames: ['dns.example.net'],
          timestamp: Date.UTC(2021, 0, 22, 8, 49, 35, 190),
          fingerprints: [{ service: 'dns-udp', banner: 'Recursion: enabled' }],
          osCpes: [],
          cves: [],
          classifications: [],
          asn: 'AS64496',
          asName: 'Example DNS',
          country: 'United States',
          countryCode: 'US',
        },
      },
    ]);
  });

  it('reads the cropped nginx host (no top-level ip_str) with its truncated cpe23', async () => {
    const observation = observationsOf(
      await read(createReadStream(`${SCANS}shodan_host_cropped_nginx_sample.json`)),
    )[0]!;
    expect(observation).toEqual({
      ip: '198.51.100.80',
      port: 80,
      protocol: 'tcp',
      hostnames: ['www.example.org'],
      timestamp: Date.UTC(2023, 4, 16, 13, 23, 58, 464),
      fingerprints: [
        {
          cpe: 'cpe:2.3:a:igor_sysoev:nginx:1.9.4:*:*:*:*:*:*:*',
          vendor: 'igor_sysoev',
          product: 'nginx',
          version: '1.9.4',
          service: 'http',
        },
      ],
      osCpes: [],
      cves: [],
      classifications: [],
      asn: 'AS64511',
      asName: 'Example Hosting',
      country: 'Germany',
      countryCode: 'DE',
    });
  });

  it('reads the same host object compacted onto one line', async () => {
    const compact = JSON.stringify(JSON.parse(readFileSync(`${SCANS}shodan_host_dns_sample.json`, 'utf8')));
    expect(observationsOf(await read(`${compact}\n`)).map((o) => `${o.ip}:${o.port}/${o.protocol}`)).toEqual([
      '192.0.2.10:53/udp',
    ]);
  });
});

describe('Shodan banners', () => {
  it('maps a full banner: zone-less UTC time, tags, vulns dict, cpe23, banner text', async () => {
    const observation = observationsOf(await read(`${JSON.stringify(BANNER)}\n`))[0]!;
    expect(observation).toMatchObject({
      ip: '203.0.113.7',
      port: 443,
      protocol: 'tcp',
      hostnames: ['a.example.com'],
      timestamp: Date.UTC(2026, 2, 15, 22, 57, 45, 950),
      osCpes: [],
      cves: ['CVE-2021-23017', 'CVE-2019-9511'],
      classifications: ['honeypot', 'proxy:tor'],
      asn: 'AS64500',
      asName: 'ACME',
      country: 'United States',
      countryCode: 'US',
    });
    expect(observation.fingerprints).toHaveLength(1);
    expect(observation.fingerprints[0]).toMatchObject({
      cpe: 'cpe:2.3:a:f5:nginx:1.25:*:*:*:*:*:*:*',
      vendor: 'f5',
      product: 'nginx',
      version: '1.25',
      service: 'https',
    });
    expect(observation.fingerprints[0]!.banner).toHaveLength(1024);
    expect(observation.fingerprints[0]!.banner!.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
  });

  it('fills a versionless single CPE from the banner version and rebuilds the CPE', async () => {
    const banner = {
      ...BANNER,
      cpe23: ['cpe:2.3:a:embedthis:goahead'],
      cpe: undefined,
      product: 'GoAhead',
      version: '2.5.0',
    };
    const observation = observationsOf(await read(JSON.stringify(banner)))[0]!;
    expect(observation.fingerprints[0]).toMatchObject({
      cpe: 'cpe:2.3:a:embedthis:goahead:2.5.0:*:*:*:*:*:*:*',
      vendor: 'embedthis',
      product: 'goahead',
      version: '2.5.0',
    });
  });

  it('keeps a version that cannot go into the CPE as shodan_version', async () => {
    const banner = {
      ...BANNER,
      cpe23: ['cpe:2.3:a:openbsd:openssh'],
      cpe: undefined,
      product: 'OpenSSH',
      version: '7.4p1 Debian 10+deb9u7',
    };
    const observation = observationsOf(await read(JSON.stringify(banner)))[0]!;
    expect(observation.fingerprints[0]).toMatchObject({
      cpe: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*',
      shodan_version: '7.4p1 Debian 10+deb9u7',
    });
    expect(observation.fingerprints[0]!.version).toBeUndefined();
  });

  it('falls back to CPE 2.2 entries, keeps o/h CPEs as fingerprints and skips unparsable ones', async () => {
    const banner = {
      ...BANNER,
      cpe23: ['not a cpe'],
      cpe: ['cpe:/a:openbsd:openssh:7.4', 'cpe:/o:linux:linux_kernel', 'cpe:/a:openbsd:openssh:7.4'],
      version: '7.4',
    };
    const observation = observationsOf(await read(JSON.stringify(banner)))[0]!;
    expect(observation.fingerprints.map((f) => f.cpe)).toEqual([
      'cpe:2.3:a:openbsd:openssh:7.4:*:*:*:*:*:*:*',
      'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*',
    ]);
    expect(observation.osCpes).toEqual([]);
  });

  it('keeps the banner product when the only CPE names the OS', async () => {
    const banner = { ...BANNER, cpe23: ['cpe:2.3:o:linux:linux_kernel'], product: 'OpenSSH', version: '7.4' };
    const observation = observationsOf(await read(JSON.stringify(banner)))[0]!;
    expect(observation.fingerprints.map((f) => [f.cpe, f.product, f.version])).toEqual([
      [undefined, 'OpenSSH', '7.4'],
      ['cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*', 'linux_kernel', undefined],
    ]);
  });

  it('uses product/version when there is no CPE, numeric ip, default tcp transport', async () => {
    const { ip_str: _ignored, cpe: _c, cpe23: _c23, transport: _t, ...rest } = BANNER;
    const observation = observationsOf(
      await read(JSON.stringify({ ...rest, ip: 134744072, product: 'Acme httpd', version: '2.0' })),
    )[0]!;
    expect(observation.ip).toBe('8.8.8.8');
    expect(observation.protocol).toBe('tcp');
    expect(observation.fingerprints).toEqual([
      { product: 'Acme httpd', version: '2.0', service: 'https', banner: expect.any(String) },
    ]);
  });

  it('skips failed lines silently, rejects bad banners by line, reads JSONL and arrays', async () => {
    const lines = [
      JSON.stringify(BANNER),
      JSON.stringify({ failed: true, ip_str: '203.0.113.8' }),
      JSON.stringify({ ...BANNER, port: 0 }),
      JSON.stringify({ ...BANNER, transport: 'sctp' }),
      JSON.stringify({ ...BANNER, timestamp: 'yesterday' }),
      JSON.stringify({ ...BANNER, ip_str: undefined, ip: undefined }),
      '{not json',
      JSON.stringify({ ...BANNER, port: 8443, asn: 'unknown', location: { country_code: 'Germany' } }),
    ];
    const items = await read(lines.join('\n'));
    expect(items.map((i) => [i.at.line, i.kind === 'rejected' ? i.reason : 'ok'])).toEqual([
      [1, 'ok'],
      [3, 'port 0 out of range 1–65535'],
      [4, 'unknown transport "sctp": expected tcp or udp'],
      [5, expect.stringMatching(/^bad timestamp "yesterday"/)],
      [6, 'missing ip'],
      [7, expect.stringMatching(/^invalid JSON/)],
      [8, 'ok'],
    ]);
    // Scanner enrichment that does not validate is dropped, the banner kept.
    const last = items[items.length - 1];
    expect(last?.kind === 'observation' && [last.observation.asn, last.observation.countryCode]).toEqual([
      undefined,
      undefined,
    ]);

    const array = await read(`[${JSON.stringify(BANNER)},\n${JSON.stringify({ ...BANNER, port: 0 })}]`);
    expect(array.map((i) => [i.kind, i.at.line])).toEqual([
      ['observation', 1],
      ['rejected', 2],
    ]);
  });

  it('applies host-level fields to banners lacking them; host vulns only for a single-banner host', async () => {
    const host = {
      ip_str: '192.0.2.50',
      hostnames: ['host.example.org'],
      asn: 'AS64501',
      org: 'Host Org',
      country_code: 'fr',
      country_name: 'France',
      tags: ['c2'],
      vulns: ['CVE-2020-0001', 'bogus'],
      data: [
        { port: 22, transport: 'tcp', timestamp: '2024-02-01T00:00:00.000000', _shodan: { module: 'ssh' } },
        {
          port: 80,
          timestamp: '2024-02-01T00:00:00.000000',
          hostnames: ['own.example.org'],
          org: 'Banner Org',
          vulns: { 'CVE-2020-0002': {} },
        },
        { failed: true },
        { port: 99999, timestamp: '2024-02-01T00:00:00' },
      ],
    };
    const items = await read(JSON.stringify(host, null, 2));
    expect(items.map((i) => (i.kind === 'observation' ? i.observation : i))).toEqual([
      {
        ip: '192.0.2.50',
        port: 22,
        protocol: 'tcp',
        hostnames: ['host.example.org'],
        timestamp: Date.UTC(2024, 1, 1),
        fingerprints: [{ service: 'ssh' }],
        osCpes: [],
        cves: [],
        classifications: ['c2'],
        asn: 'AS64501',
        asName: 'Host Org',
        country: 'France',
        countryCode: 'FR',
      },
      expect.objectContaining({
        port: 80,
        hostnames: ['own.example.org'],
        asName: 'Banner Org',
        cves: ['CVE-2020-0002'],
      }),
      { kind: 'rejected', at: { file: 'shodan.json', line: 1 }, reason: 'data[3]: port 99999 out of range 1–65535' },
    ]);

    const single = await read(JSON.stringify({ ...host, data: [host.data[0]] }));
    expect(observationsOf(single)[0]!.cves).toEqual(['CVE-2020-0001']);
  });
});
