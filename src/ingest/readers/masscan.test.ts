import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ReadItem } from '../../core/observation.js';
import { readMasscan } from './masscan.js';

async function read(text: string): Promise<ReadItem[]> {
  const items: ReadItem[] = [];
  for await (const item of readMasscan(Readable.from([Buffer.from(text)]), 'masscan.json')) items.push(item);
  return items;
}

const bare = (ip: string, port: number, timestamp: number, protocol = 'tcp') => ({
  ip,
  port,
  protocol,
  hostnames: [],
  timestamp,
  fingerprints: [],
  osCpes: [],
  cves: [],
  classifications: [],
});

/** masscan 1.3 `-oJ`: every record after the first is prefixed with `,\n`. */
const MASSCAN_OJ = `[
{   "ip": "192.0.2.1",   "timestamp": "1700000000", "ports": [ {"port": 80, "proto": "tcp", "status": "open", "reason": "syn-ack", "ttl": 54} ] }
,
{   "ip": "192.0.2.1",   "timestamp": "1700000003", "ports": [ {"port": 80, "proto": "tcp", "service": {"name": "http", "banner": "HTTP/1.0 200 OK\\u000d\\u000aServer: Apache/2.4.49 \\u0028Unix\\u0029"} } ] }
,
{   "ip": "2001:db8::5",   "timestamp": "1700000004", "ports": [ {"port": 161, "proto": "udp", "status": "open", "reason": "none", "ttl": 60} ] }
,
{   "ip": "192.0.2.2",   "timestamp": "1700000005", "ports": [ {"port": 443, "proto": "tcp", "status": "closed", "reason": "rst", "ttl": 54} ] }
,
{   "ip": "192.0.2.3",   "timestamp": "1700000006", "ports": [ {"port": 0, "proto": "tcp", "status": "open", "reason": "syn-ack", "ttl": 54} ] }
,
{   "ip": "192.0.2.4",   "timestamp": "not-a-time", "ports": [ {"port": 22, "proto": "tcp", "status": "open", "reason": "syn-ack", "ttl": 54} ] }
]
`;

describe('masscan -oJ', () => {
  it('reads status and banner records, skips closed ports, rejects bad ones by element index', async () => {
    const items = await read(MASSCAN_OJ);
    expect(items).toEqual([
      {
        kind: 'observation',
        at: { file: 'masscan.json', line: 1 },
        observation: bare('192.0.2.1', 80, 1700000000_000),
      },
      {
        kind: 'observation',
        at: { file: 'masscan.json', line: 2 },
        observation: {
          ...bare('192.0.2.1', 80, 1700000003_000),
          fingerprints: [{ service: 'http', banner: 'HTTP/1.0 200 OK\r\nServer: Apache/2.4.49 (Unix)' }],
        },
      },
      {
        kind: 'observation',
        at: { file: 'masscan.json', line: 3 },
        observation: bare('2001:db8::5', 161, 1700000004_000, 'udp'),
      },
      { kind: 'rejected', at: { file: 'masscan.json', line: 5 }, reason: 'port 0 out of range 1–65535' },
      {
        kind: 'rejected',
        at: { file: 'masscan.json', line: 6 },
        reason: 'bad timestamp "not-a-time": expected epoch seconds',
      },
    ]);
  });

  it("tolerates old masscan's trailing comma before ] and a closing {finished: 1}", async () => {
    const oldStyle = `[\n{"ip": "192.0.2.7", "timestamp": "1700000000", "ports": [{"port": 22, "proto": "tcp", "status": "open"}]},\n]\n`;
    expect((await read(oldStyle)).map((i) => i.kind)).toEqual(['observation']);
    const compatible = `[{"ip": "192.0.2.8", "timestamp": "1700000000", "ports": [{"port": 25, "proto": "tcp", "service": {"name": null, "banner": "220 mail ESMTP"}}]},\n{"finished": 1}]\n`;
    const items = await read(compatible);
    expect(items).toHaveLength(1);
    const [item] = items;
    expect(item?.kind === 'observation' && item.observation.fingerprints).toEqual([{ banner: '220 mail ESMTP' }]);
  });

  it('keeps a comma that is inside a string near the end', async () => {
    const items = await read(
      `[{"ip": "192.0.2.9", "timestamp": "1700000000", "ports": [{"port": 21, "proto": "tcp", "service": {"name": "ftp", "banner": "a,]"}}]}]`,
    );
    const [item] = items;
    expect(item?.kind === 'observation' && item.observation.fingerprints[0]!.banner).toBe('a,]');
  });

  it('reports a broken array once and stops', async () => {
    const items = await read(
      `[{"ip": "192.0.2.1", "timestamp": "1700000000", "ports": [{"port": 80, "proto": "tcp", "status": "open"}]},\n{"ip": oops}]`,
    );
    expect(items.map((i) => i.kind)).toEqual(['observation', 'rejected']);
    expect(items[1]).toMatchObject({
      at: { line: 2 },
      reason: expect.stringMatching(/^invalid JSON array after element 1: .*the rest of the file was not read$/),
    });
  });
});

describe('masscan -oD (NDJSON)', () => {
  it('reads status and banner records line by line', async () => {
    const lines = [
      '{"ip":"198.51.100.1","timestamp":"1700000000","port":80,"proto":"tcp","rec_type":"status","data":{"status":"open","reason":"syn-ack","ttl":54}}',
      '{"ip":"198.51.100.1","timestamp":"1700000002","port":80,"proto":"tcp","rec_type":"banner","data":{"service_name":"http","banner":"HTTP/1.1 404 Not Found"}}',
      '{"ip":"198.51.100.2","timestamp":"1700000003","port":81,"proto":"tcp","rec_type":"status","data":{"status":"closed","reason":"rst","ttl":54}}',
      '{"ip":"198.51.100.3","timestamp":"1700000004","port":82,"proto":"tcp","rec_type":"ping","data":{}}',
      '{"ip":"198.51.100.4","timestamp":"1700000005","port":83,"proto":"icmp","rec_type":"status","data":{"status":"open"}}',
    ];
    const items = await read(`${lines.join('\n')}\n`);
    expect(items).toEqual([
      {
        kind: 'observation',
        at: { file: 'masscan.json', line: 1 },
        observation: bare('198.51.100.1', 80, 1700000000_000),
      },
      {
        kind: 'observation',
        at: { file: 'masscan.json', line: 2 },
        observation: {
          ...bare('198.51.100.1', 80, 1700000002_000),
          fingerprints: [{ service: 'http', banner: 'HTTP/1.1 404 Not Found' }],
        },
      },
      { kind: 'rejected', at: { file: 'masscan.json', line: 4 }, reason: 'unknown masscan rec_type "ping"' },
      {
        kind: 'rejected',
        at: { file: 'masscan.json', line: 5 },
        reason: 'unknown transport "icmp": expected tcp or udp',
      },
    ]);
  });
});
