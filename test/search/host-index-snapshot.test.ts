import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { IndexEntry } from '../../src/core/host-record.js';
import { SeededRandom } from '../../src/ingest/demo/random.js';
import { HostIndex } from '../../src/search/host-index.js';
import type { PageRequest } from '../../src/search/host-query.js';
import {
  readHostIndexSnapshot,
  writeHostIndexSnapshot,
  type SnapshotIdentity,
} from '../../src/search/snapshot/host-index-file.js';
import { parseHostQuery, typedFilters } from '../../src/server/routes/target-intel/query.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-snapshot-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const IDENTITY: SnapshotIdentity = { schema: 7, database: 'a'.repeat(64) };
const HOUR = 3_600_000;

const FINGERPRINTS = [
  '[]',
  '[{"vendor":"nginx","product":"nginx","version":"1.20.0","cpe":"cpe:2.3:a:nginx:nginx:1.20.0:*:*:*:*:*:*:*"}]',
  '[{"vendor":"apache","product":"http_server","version":"2.4.49"}]',
  '[{"vendor":"openbsd","product":"openssh","version":"8.9"},{"vendor":"nginx","product":"nginx","version":"1.22"}]',
  '[{"product":"Ünïcode Srv","version":"1"}]',
];
const CVES = ['[]', '["CVE-2021-41773"]', '["CVE-2021-41773","CVE-2021-42013"]', '["CVE-2024-0001"]'];
const CLASSIFICATIONS = ['[]', '["c2:sliver"]', '["honeypot","proxy:tor"]'];

/** Every query class: terms, flags, combinations, ranges, hostnames, CIDRs of both families. */
const QUERIES: Array<Record<string, string>> = [
  {},
  { vendor: 'nginx' },
  { product: 'openssh' },
  { vendor: 'apache', version: '2.4.49' },
  { cpe: 'cpe:2.3:a:nginx:nginx:*:*:*:*:*:*:*:*' },
  { cve: 'CVE-2021-42013' },
  { contains_cve: 'true' },
  { contains_cve: 'false', protocol: 'udp' },
  { classifications: 'c2' },
  { classifications: 'proxy:tor' },
  { asn: 'AS64501' },
  { country_code: 'FR' },
  { country: 'germany' },
  { port: '443' },
  { cidr: '198.51.100.0/24' },
  { cidr: '198.51.0.0/16' },
  { cidr: '198.51.100.16/28' },
  { cidr: '2001:db8::/32' },
  { hostname: 'h1' },
  { domain: 'example' },
  { hostname: 'ünï' },
  { lastModStartDate: new Date(40 * HOUR).toISOString() },
  { pubEndDate: new Date(20 * HOUR + 1234).toISOString() },
  { confirmed: 'true' },
  { vendor: 'nginx', country_code: 'FR', port: '80' },
];
const SORTS: Array<Pick<PageRequest, 'sort' | 'order'>> = [
  { sort: 'timestamp', order: 'desc' },
  { sort: 'date_added', order: 'asc' },
  { sort: 'ip', order: 'asc' },
  { sort: 'port', order: 'desc' },
];

function randomEntry(random: SeededRandom, id: number): IndexEntry {
  const pick = <T>(values: T[]) => values[Math.floor(random.next() * values.length)]!;
  const observedAt = Math.floor(random.next() * 72) * HOUR + Math.floor(random.next() * HOUR);
  return {
    id,
    ip:
      random.next() < 0.2
        ? `2001:db8:${Math.floor(random.next() * 4)}::${Math.floor(random.next() * 50)}`
        : `198.51.${Math.floor(random.next() * 3) + 99}.${Math.floor(random.next() * 250)}`,
    port: pick([22, 80, 443, 8443]),
    protocol: pick(['tcp', 'tcp', 'udp']),
    hostname: pick(['', '', `h${Math.floor(random.next() * 40)}.example`, 'shared.example', 'ünïcode.example']),
    observedAt,
    dateAdded: observedAt - Math.floor(random.next() * 24) * HOUR,
    asn: pick([undefined, 'AS64500', 'AS64501']),
    countryCode: pick([undefined, 'DE', 'FR']),
    country: pick([undefined, 'Germany', 'France']),
    fingerprintsJson: pick(FINGERPRINTS),
    cvesJson: pick(CVES),
    confirmed: random.next() < 0.3,
    classificationsJson: pick(CLASSIFICATIONS),
  };
}

/** Applies `steps` random upserts, re-observations and removals over ids 1..`ids` to each index alike. */
function churn(indexes: HostIndex[], random: SeededRandom, steps: number, ids: number, firstSeq: number): void {
  for (let step = 0; step < steps; step++) {
    const seq = firstSeq + step;
    const id = 1 + Math.floor(random.next() * ids);
    const roll = random.next();
    if (roll < 0.2) {
      const observedAt = Math.floor(random.next() * 72) * HOUR + 5;
      for (const index of indexes) index.retime(id, observedAt, seq);
    } else if (roll < 0.25) {
      const removed = Array.from(
        { length: 1 + Math.floor(random.next() * 40) },
        () => 1 + Math.floor(random.next() * ids),
      );
      for (const index of indexes)
        index.removeMany(
          removed,
          removed.map(() => seq),
        );
    } else if (roll < 0.35) {
      for (const index of indexes) index.remove(id, seq);
    } else {
      const entry = randomEntry(random, id);
      for (const index of indexes) {
        index.beginBatch();
        index.upsert(entry, seq);
        index.endBatch();
      }
    }
  }
}

/** Totals and first pages of every query class in every sort order, plus a cursor-style page. */
function answers(index: HostIndex): unknown[] {
  const out: unknown[] = [];
  for (const params of QUERIES) {
    const query = parseHostQuery(typedFilters(params));
    for (const order of SORTS) {
      const page = index.page(query, { ...order, offset: 3, limit: 25 });
      out.push([params, order, page.total, page.ids]);
    }
    const changed = index.page(query, { sort: 'timestamp', order: 'desc', offset: 0, limit: 50, snapshotSeq: 4000 });
    out.push([params, 'unchanged since 4000', changed.total, changed.ids]);
  }
  return out;
}

async function roundTrip(index: HostIndex, name: string, seq = 1): Promise<HostIndex> {
  const file = path.join(dir, name);
  await writeHostIndexSnapshot(file, index, IDENTITY, seq);
  const read = await readHostIndexSnapshot(file, IDENTITY);
  if ('rejected' in read) throw new Error(read.rejected);
  expect(read.header.seq).toBe(seq);
  return read.index;
}

describe('host index snapshot', () => {
  it.each([1, 2, 3])(
    'reads back an index answering as the one written, before and after more changes (seed %i)',
    async (seed) => {
      const random = new SeededRandom(seed);
      const original = new HostIndex();
      churn([original], random, 6000, 600, 1);
      const loaded = await roundTrip(original, `round-${seed}.snapshot`);
      expect(loaded.size).toBe(original.size);
      expect(answers(loaded)).toEqual(answers(original));
      expect(loaded.memoryBytes()).toBe(original.memoryBytes());

      // Both take the same further changes: the loaded one must go on exactly as the original does.
      churn([original, loaded], random, 3000, 700, 6001);
      expect(answers(loaded)).toEqual(answers(original));
      expect(loaded.size).toBe(original.size);
    },
  );

  it('round-trips an empty index', async () => {
    const loaded = await roundTrip(new HostIndex(), 'empty.snapshot');
    expect(loaded.size).toBe(0);
    loaded.upsert(randomEntry(new SeededRandom(1), 5), 2);
    expect(loaded.size).toBe(1);
  });

  describe('rejects, with the reason, a snapshot that cannot be used', () => {
    const writeOne = async (name: string) => {
      const index = new HostIndex();
      churn([index], new SeededRandom(9), 2000, 300, 1);
      const file = path.join(dir, name);
      await writeHostIndexSnapshot(file, index, IDENTITY, 42);
      return file;
    };

    it.each([
      ['missing', (file: string) => fs.rmSync(file), /no snapshot/],
      ['truncated', (file: string) => fs.truncateSync(file, fs.statSync(file).size - 100), /corrupt.*truncated/],
      [
        'truncated before its end frame',
        (file: string) => fs.truncateSync(file, fs.statSync(file).size - 9),
        /corrupt/,
      ],
      ['with a flipped byte', (file: string) => flipByte(file, 0.6), /corrupt.*checksum/],
      ['with a flipped byte in its header', (file: string) => flipByte(file, 0.0001), /corrupt|not a host index/],
      ['with bytes after its end', (file: string) => fs.appendFileSync(file, 'x'), /corrupt/],
      ['empty', (file: string) => fs.writeFileSync(file, ''), /corrupt/],
      ['not a snapshot', (file: string) => fs.writeFileSync(file, 'hello world, this is not a snapshot'), /corrupt/],
    ])('%s', async (name, damage, reason) => {
      const file = await writeOne(`${name}.snapshot`);
      damage(file);
      const read = await readHostIndexSnapshot(file, IDENTITY);
      expect('rejected' in read && read.rejected).toMatch(reason);
    });

    it.each([
      ['another schema version', { ...IDENTITY, schema: 8 }, /schema version 7, the database is at 8/],
      ['another database', { ...IDENTITY, database: 'b'.repeat(64) }, /another database/],
    ])('from %s', async (name, identity, reason) => {
      const file = await writeOne(`${name}.snapshot`);
      const read = await readHostIndexSnapshot(file, identity);
      expect('rejected' in read && read.rejected).toMatch(reason);
    });

    it('from another format version', async () => {
      const file = await writeOne('format.snapshot');
      // The header is JSON inside the first (checksummed) frame: rewrite it with a valid checksum.
      rewriteHeader(file, (header) => ({ ...header, format: 999 }));
      const read = await readHostIndexSnapshot(file, IDENTITY);
      expect('rejected' in read && read.rejected).toMatch(/snapshot format 999/);
    });

    it('that its reader objects to (a change log trimmed past it)', async () => {
      const file = await writeOne('objection.snapshot');
      const read = await readHostIndexSnapshot(file, IDENTITY, async (header) =>
        header.seq === 42 ? 'log trimmed' : undefined,
      );
      expect('rejected' in read && read.rejected).toBe('log trimmed');
    });
  });

  it('leaves no temporary file, and replaces the previous snapshot whole', async () => {
    const sub = fs.mkdtempSync(path.join(dir, 'replace-'));
    const file = path.join(sub, 'index.snapshot');
    const index = new HostIndex();
    churn([index], new SeededRandom(4), 500, 100, 1);
    await writeHostIndexSnapshot(file, index, IDENTITY, 1);
    churn([index], new SeededRandom(5), 500, 100, 501);
    await writeHostIndexSnapshot(file, index, IDENTITY, 2);
    expect(fs.readdirSync(sub)).toEqual(['index.snapshot']);
    // What a writer that died mid-write left goes once it is old; a recent one may be a live writer's.
    const stale = `${file}.999.1.tmp`;
    const recent = `${file}.998.2.tmp`;
    fs.writeFileSync(stale, 'partial');
    fs.writeFileSync(recent, 'partial');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    fs.utimesSync(stale, twoHoursAgo, twoHoursAgo);
    await writeHostIndexSnapshot(file, index, IDENTITY, 3);
    expect(fs.readdirSync(sub).sort()).toEqual(['index.snapshot', 'index.snapshot.998.2.tmp']);
    const read = await readHostIndexSnapshot(file, IDENTITY);
    expect('rejected' in read ? read.rejected : read.header.seq).toBe(3);
  });
});

function flipByte(file: string, at: number): void {
  const bytes = fs.readFileSync(file);
  const position = Math.floor(bytes.length * at) + 12;
  bytes[position] = bytes[position]! ^ 0x55;
  fs.writeFileSync(file, bytes);
}

function rewriteHeader(file: string, change: (header: Record<string, unknown>) => Record<string, unknown>): void {
  const bytes = fs.readFileSync(file);
  // First frames: [numbers: count of strings], then [strings: count, lengths, UTF-16 text].
  const firstLength = bytes.readUInt32LE(0);
  const stringsAt = 9 + firstLength;
  const length = bytes.readUInt32LE(stringsAt);
  const payload = bytes.subarray(stringsAt + 9, stringsAt + 9 + length);
  const count = payload.readUInt32LE(0);
  const lengths = Array.from({ length: count }, (_, i) => payload.readUInt32LE(4 + i * 4));
  const text = payload.toString('utf16le', 4 + count * 4);
  const magic = text.slice(0, lengths[0]);
  const header = JSON.stringify(change(JSON.parse(text.slice(lengths[0]))));
  const newPayload = Buffer.concat([
    Buffer.from(Uint32Array.of(2, magic.length, header.length).buffer),
    Buffer.from(magic + header, 'utf16le'),
  ]);
  const frameHeader = Buffer.alloc(9);
  frameHeader.writeUInt32LE(newPayload.length, 0);
  frameHeader.writeUInt32LE(zlibCrc(newPayload), 4);
  frameHeader.writeUInt8(bytes.readUInt8(stringsAt + 8), 8);
  fs.writeFileSync(
    file,
    Buffer.concat([bytes.subarray(0, stringsAt), frameHeader, newPayload, bytes.subarray(stringsAt + 9 + length)]),
  );
}

import { crc32 as zlibCrc } from 'node:zlib';
