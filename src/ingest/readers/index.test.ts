import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { normaliseFingerprint } from '../../core/fingerprint.js';
import type { ReadItem } from '../../core/observation.js';
import { readScanFile, type ScanFormat } from './index.js';
import { fixture } from '../../../test/support/fixtures.js';

const SCANS = fixture('scans/');
const work = mkdtempSync(join(tmpdir(), 'vulnscope-readers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function writeTemp(name: string, content: string | Buffer): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

async function readAll(path: string, options?: Parameters<typeof readScanFile>[1]): Promise<ReadItem[]> {
  const items: ReadItem[] = [];
  for await (const item of readScanFile(path, options)) items.push(item);
  return items;
}

const summary = (items: ReadItem[]) =>
  items.map((i) =>
    i.kind === 'observation'
      ? `${i.observation.ip}:${i.observation.port}/${i.observation.protocol}`
      : `rejected: ${i.reason}`,
  );

const SAMPLES: Record<string, { text: string; expected: string[] }> = {
  'Vulnscope NDJSON': {
    text: '{"ip":"192.0.2.1","port":22,"timestamp":1700000000}\n{"ip":"192.0.2.1","port":443,"timestamp":1700000000}\n',
    expected: ['192.0.2.1:22/tcp', '192.0.2.1:443/tcp'],
  },
  'Vulnscope JSON array': {
    text: '[{"ip":"192.0.2.1","port":22,"timestamp":1700000000}]',
    expected: ['192.0.2.1:22/tcp'],
  },
  'nmap XML': {
    text: '<?xml version="1.0"?>\n<nmaprun scanner="nmap" start="1700000000"><host><address addr="192.0.2.2" addrtype="ipv4"/><ports><port protocol="udp" portid="161"><state state="open"/></port></ports></host></nmaprun>\n',
    expected: ['192.0.2.2:161/udp'],
  },
  'masscan XML': {
    text: '<?xml version="1.0"?>\n<nmaprun scanner="masscan" start="1700000000"><host endtime="1700000001"><address addr="192.0.2.3" addrtype="ipv4"/><ports><port protocol="tcp" portid="3389"><state state="open" reason="syn-ack" reason_ttl="117"/></port></ports></host></nmaprun>\n',
    expected: ['192.0.2.3:3389/tcp'],
  },
  'masscan -oJ': {
    text: '[\n{   "ip": "192.0.2.4",   "timestamp": "1700000000", "ports": [ {"port": 8080, "proto": "tcp", "status": "open", "reason": "syn-ack", "ttl": 54} ] }\n]\n',
    expected: ['192.0.2.4:8080/tcp'],
  },
  'masscan -oD': {
    text: '{"ip":"192.0.2.5","timestamp":"1700000000","port":25,"proto":"tcp","rec_type":"status","data":{"status":"open","reason":"syn-ack","ttl":54}}\n',
    expected: ['192.0.2.5:25/tcp'],
  },
  'Shodan JSONL': {
    text: '{"ip_str":"192.0.2.6","port":443,"transport":"tcp","timestamp":"2024-01-01T00:00:00.000000"}\n{"failed":true}\n',
    expected: ['192.0.2.6:443/tcp'],
  },
  'Shodan array': {
    text: '[{"ip_str":"192.0.2.7","port":123,"transport":"udp","timestamp":"2024-01-01T00:00:00.000000"}]',
    expected: ['192.0.2.7:123/udp'],
  },
};

describe('readScanFile', () => {
  it.each(Object.entries(SAMPLES))('detects and reads %s, plain and gzipped', async (name, { text, expected }) => {
    const slug = name.replace(/\W+/g, '-');
    expect(summary(await readAll(writeTemp(`${slug}.txt`, text)))).toEqual(expected);
    expect(summary(await readAll(writeTemp(`${slug}.gz`, gzipSync(text))))).toEqual(expected);
  });

  it('reads the shared fixtures through detection', async () => {
    const dionaea = await readAll(`${SCANS}nmap_libnmap_dionaea_scan.xml`);
    expect(dionaea).toHaveLength(16);
    expect(dionaea[0]!.at).toEqual({ file: `${SCANS}nmap_libnmap_dionaea_scan.xml`, line: 23 });
    expect(summary(await readAll(`${SCANS}shodan_host_dns_sample.json`))).toEqual(['192.0.2.10:53/udp']);
    expect(summary(await readAll(`${SCANS}shodan_host_cropped_nginx_sample.json`))).toEqual(['198.51.100.80:80/tcp']);
    await expect(readAll(`${SCANS}nmap_libnmap_2_hosts.json`)).rejects.toMatchObject({
      code: 'unreadable_input',
      message: expect.stringMatching(
        /^nothing could be read from .*nmap_libnmap_2_hosts\.json: its one record was rejected \(line 1: this is a python-libnmap JSON report/,
      ),
    });
  });

  it('produces fingerprints the ingest pipeline normalises unchanged (every shared scan)', async () => {
    let fingerprints = 0;
    // The python-libnmap JSON report is no scan format (nothing can be read from it: above).
    for (const name of readdirSync(SCANS).filter((n) => n !== 'nmap_libnmap_2_hosts.json')) {
      for await (const item of readScanFile(SCANS + name)) {
        if (item.kind !== 'observation') continue;
        for (const fingerprint of item.observation.fingerprints) {
          fingerprints += 1;
          expect(normaliseFingerprint(fingerprint), name).toEqual(fingerprint);
        }
      }
    }
    expect(fingerprints).toBeGreaterThan(50);
  });

  it('gunzips by magic bytes whatever the name, and reads gzip from stdin', async () => {
    const xml = readFileSync(`${SCANS}nmap_libnmap_full_sudo6.xml`);
    const gz = writeTemp('full_sudo6.scan', gzipSync(xml));
    expect(await readAll(gz)).toHaveLength(12);
    const shodan = gzipSync(readFileSync(`${SCANS}shodan_host_dns_sample.json`));
    const fromStdin = await readAll('-', { stdin: Readable.from([shodan.subarray(0, 1), shodan.subarray(1)]) });
    expect(fromStdin).toEqual([expect.objectContaining({ kind: 'observation', at: { file: '<stdin>', line: 1 } })]);
  });

  it('uses the forced format instead of detecting', async () => {
    await expect(
      readAll(`${SCANS}shodan_host_cropped_nginx_sample.json`, { format: 'nmap' satisfies ScanFormat }),
    ).rejects.toMatchObject({
      code: 'unreadable_input',
      message: expect.stringMatching(/: its one record was rejected \(line \d+: invalid XML: /),
    });
    expect(summary(await readAll(`${SCANS}shodan_host_cropped_nginx_sample.json`, { format: 'shodan' }))).toEqual([
      '198.51.100.80:80/tcp',
    ]);
  });

  it('ends with one error when nothing could be read: empty, unknown, binary, another kind of JSON', async () => {
    const nothingRead = (file: string, why: string | RegExp) =>
      expect(readAll(file)).rejects.toMatchObject({
        code: 'unreadable_input',
        message: typeof why === 'string' ? `nothing could be read from ${file}: ${why}` : expect.stringMatching(why),
      });
    await nothingRead(writeTemp('empty.json', ''), 'it is empty');
    await nothingRead(writeTemp('blank.json.gz', gzipSync('\n\n')), 'it is empty');
    await nothingRead(writeTemp('list.csv', 'ip,port\n192.0.2.1,80\n'), /: unrecognised input starting with "ip,port/);
    await nothingRead(
      writeTemp('random.bin', Buffer.from([0x00, 0xff, 0x13, 0x37, 0x80, 0x81, 0x0a, 0xfe])),
      /: binary data, not text: expected nmap\/masscan XML/,
    );
    const kev = {
      title: 'CISA Catalog of Known Exploited Vulnerabilities',
      vulnerabilities: [{ cveID: 'CVE-2021-44228' }],
    };
    await nothingRead(
      writeTemp('kev.json', JSON.stringify(kev, null, 2)),
      'its one record was rejected (line 1: missing ip)',
    );
    const osv = Array.from({ length: 3 }, (_, n) => JSON.stringify({ id: `GO-2024-000${n}`, aliases: [] })).join('\n');
    await nothingRead(writeTemp('osv.jsonl', osv), 'all 3 records were rejected (the first, line 1: missing ip)');
  });

  it('yields nothing, and no error, for a well-formed scan that found nothing', async () => {
    const run = '<?xml version="1.0"?>\n<nmaprun scanner="nmap" start="1700000000"><runstats/></nmaprun>\n';
    expect(await readAll(writeTemp('nothing-open.xml', run))).toEqual([]);
    expect(await readAll(writeTemp('no-results.json', '[]\n'))).toEqual([]);
  });

  it('holds back rejections before the first observation, then yields them in order', async () => {
    const text = ['{"ip":"bad"}', '{"port":1}', '{"ip":"192.0.2.1","port":22,"timestamp":1700000000}', '{"x":1}'];
    expect(summary(await readAll(writeTemp('late.ndjson', text.join('\n'))))).toEqual([
      expect.stringMatching(/^rejected: /),
      expect.stringMatching(/^rejected: /),
      '192.0.2.1:22/tcp',
      expect.stringMatching(/^rejected: /),
    ]);
  });

  it('throws invalid input for a missing file', async () => {
    await expect(readAll(join(work, 'missing.xml'))).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/scan file not found/),
    });
  });

  it('ends a truncated gzip with one error naming the file, after yielding what was readable', async () => {
    const lines = Array.from(
      { length: 20_000 },
      (_, n) => `{"ip":"10.0.${n >> 8}.${n & 255}","port":80,"timestamp":${1700000000 + n}}`,
    );
    const gz = gzipSync(lines.join('\n'));
    const file = writeTemp('cut.ndjson.gz', gz.subarray(0, Math.floor(gz.length / 2)));
    const items: ReadItem[] = [];
    const error = await (async () => {
      for await (const item of readScanFile(file)) items.push(item);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'unreadable_input',
      message: expect.stringMatching(
        new RegExp(
          `^${file}: corrupt or truncated gzip data \\(unexpected end of file\\) after line \\d+; the rest of the file was not read$`,
        ),
      ),
    });
    expect(items.length).toBeGreaterThan(1000);
    expect(items.every((i) => i.kind === 'observation')).toBe(true);
  });

  it('reports a truncated gzip once, not a rejection for every record decoded before the damage', async () => {
    // Records of another kind (a KEV-like array): each is rejected, and the gzip is cut short.
    const records = Array.from({ length: 1_404 }, (_, n) => ({ cveID: `CVE-2024-${10000 + n}`, vendorProject: 'x' }));
    const gz = gzipSync(JSON.stringify(records));
    const file = writeTemp('kev-cut.json.gz', gz.subarray(0, gz.length - 8));
    const items: ReadItem[] = [];
    const error = await (async () => {
      for await (const item of readScanFile(file)) items.push(item);
    })().catch((e: unknown) => e);
    expect(items).toEqual([]);
    expect(error).toMatchObject({
      code: 'unreadable_input',
      message: `nothing could be read from ${file}: corrupt or truncated gzip data (unexpected end of file); the 1,404 records before it were rejected`,
    });
  });

  it('stops cleanly when the consumer stops early', async () => {
    let count = 0;
    for await (const _item of readScanFile(`${SCANS}nmap_libnmap_dionaea_scan.xml`)) {
      if (++count === 2) break;
    }
    expect(count).toBe(2);
  });
});
