import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reader } from 'mmdb-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMmdb, mmdbType, writeMmdb, type MmdbEntry } from './mmdb-writer.js';

type Data = Record<string, any>;
const read = (buffer: Buffer) => new Reader<any>(buffer);

const GOOGLE_ASN = { autonomous_system_number: 15169, autonomous_system_organization: 'GOOGLE' };
const US = { geoname_id: 6252001, iso_code: 'US', names: { en: 'United States', de: 'USA', 'zh-CN': '美国' } };

describe('buildMmdb', () => {
  it('answers IPv4 and IPv6 lookups like GeoLite2-ASN, and misses', () => {
    const reader = read(
      buildMmdb(
        [
          { cidr: '8.8.8.0/24', data: GOOGLE_ASN },
          { cidr: '2001:4860::/32', data: GOOGLE_ASN },
          {
            cidr: '1.1.1.0/24',
            data: { autonomous_system_number: 13335, autonomous_system_organization: 'CLOUDFLARENET' },
          },
        ],
        { databaseType: 'GeoLite2-ASN', description: 'test ASN data' },
      ),
    );
    expect(reader.get('8.8.8.8')).toEqual(GOOGLE_ASN);
    expect(reader.getWithPrefixLength('8.8.8.255')).toEqual([GOOGLE_ASN, 24]);
    expect(reader.get('2001:4860:4860::8888')).toEqual(GOOGLE_ASN);
    expect(reader.getWithPrefixLength('2001:4860:ffff::1')).toEqual([GOOGLE_ASN, 32]);
    expect(reader.get('1.1.1.1')?.autonomous_system_number).toBe(13335);
    expect(reader.get('8.8.9.1')).toBeNull();
    expect(reader.get('8.8.7.255')).toBeNull();
    expect(reader.get('2001:4861::1')).toBeNull();
    expect(reader.get('::1')).toBeNull();
  });

  it('stores IPv4 networks under ::/96', () => {
    const reader = read(buildMmdb([{ cidr: '8.8.8.0/24', data: GOOGLE_ASN }], { databaseType: 'test' }));
    expect(reader.get('::8.8.8.8')).toEqual(GOOGLE_ASN);
    expect(reader.getWithPrefixLength('::8.8.8.8')).toEqual([GOOGLE_ASN, 120]);
  });

  it('keeps nested maps and arrays like GeoLite2-Country', () => {
    const record = {
      continent: { code: 'NA', geoname_id: 6255149, names: { en: 'North America' } },
      country: US,
      registered_country: US,
      subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }],
      location: { latitude: 37.751, longitude: -97.822, accuracy_radius: 1000 },
    };
    const reader = read(buildMmdb([{ cidr: '8.8.8.0/24', data: record }], { databaseType: 'GeoLite2-Country' }));
    const found = reader.get('8.8.8.8');
    expect(found).toEqual(record);
    expect(found.country.names.en).toBe('United States');
    expect(found.country.iso_code).toBe('US');
  });

  it('round-trips every data type', () => {
    const long = 'x'.repeat(70_000);
    const data: Data = {
      utf8: 'héllo, wörld ✓',
      empty: '',
      size29: 'a'.repeat(29),
      size284: 'b'.repeat(284),
      size285: 'c'.repeat(285),
      long,
      double: Math.PI,
      negativeDouble: -0.5,
      float: mmdbType.float(1.5),
      bytes: Uint8Array.from([0, 1, 2, 255]),
      uint16: mmdbType.uint16(65_535),
      uint32: 4_294_967_295,
      zero: 0,
      int32: -123_456,
      int32Min: mmdbType.int32(-(2 ** 31)),
      int32Positive: mmdbType.int32(70_000),
      uint64: 18_446_744_073_709_551_615n,
      uint64Small: mmdbType.uint64(5),
      uint128: 2n ** 127n + 12_345n,
      yes: true,
      no: false,
      array: [1, 'two', [3], { four: 4 }],
      emptyArray: [],
      emptyMap: {},
    };
    const found: Data = read(buildMmdb([{ cidr: '10.0.0.0/8', data }], { databaseType: 'test' })).get('10.1.2.3');
    expect(found.utf8).toBe(data.utf8);
    expect(found.empty).toBe('');
    expect(found.size29).toBe(data.size29);
    expect(found.size284).toBe(data.size284);
    expect(found.size285).toBe(data.size285);
    expect(found.long).toBe(long);
    expect(found.double).toBe(data.double);
    expect(found.negativeDouble).toBe(-0.5);
    expect(found.float).toBe(1.5);
    expect(Buffer.from(found.bytes)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(found.uint16).toBe(65_535);
    expect(found.uint32).toBe(4_294_967_295);
    expect(found.zero).toBe(0);
    expect(found.int32).toBe(-123_456);
    expect(found.int32Min).toBe(-(2 ** 31));
    expect(found.int32Positive).toBe(70_000);
    expect(found.uint64).toBe(18_446_744_073_709_551_615n);
    expect(found.uint64Small).toBe(5n);
    expect(found.uint128).toBe(2n ** 127n + 12_345n);
    expect(found.yes).toBe(true);
    expect(found.no).toBe(false);
    expect(found.array).toEqual([1, 'two', [3], { four: 4 }]);
    expect(found.emptyArray).toEqual([]);
    expect(found.emptyMap).toEqual({});
  });

  it('rejects values that do not fit their type', () => {
    expect(() =>
      buildMmdb([{ cidr: '10.0.0.0/8', data: { v: mmdbType.uint16(65_536) } }], { databaseType: 't' }),
    ).toThrow(/does not fit in uint16/);
    expect(() => buildMmdb([{ cidr: '10.0.0.0/8', data: { v: null } }], { databaseType: 't' })).toThrow(
      /cannot encode/,
    );
  });

  it('writes the metadata', () => {
    const reader = read(
      buildMmdb([{ cidr: '8.8.8.0/24', data: GOOGLE_ASN }], {
        databaseType: 'GeoLite2-ASN',
        description: 'fixture',
        buildEpoch: 1_700_000_000,
      }),
    );
    expect(reader.metadata).toMatchObject({
      binaryFormatMajorVersion: 2,
      binaryFormatMinorVersion: 0,
      databaseType: 'GeoLite2-ASN',
      description: { en: 'fixture' },
      ipVersion: 6,
      languages: ['en'],
      recordSize: 24,
      buildEpoch: new Date(1_700_000_000_000),
    });
    // 96 nodes down to ::/96, then 24 more to 8.8.8.0/24.
    expect(reader.metadata.nodeCount).toBe(120);
  });

  it.each([24, 28, 32] as const)('reads back with %i-bit records', (recordSize) => {
    const reader = read(
      buildMmdb(
        [
          { cidr: '8.8.8.0/24', data: GOOGLE_ASN },
          { cidr: '2001:4860::/32', data: { v: 6 } },
        ],
        { databaseType: 'test', recordSize },
      ),
    );
    expect(reader.metadata.recordSize).toBe(recordSize);
    expect(reader.get('8.8.8.8')).toEqual(GOOGLE_ASN);
    expect(reader.get('2001:4860::1')).toEqual({ v: 6 });
    expect(reader.get('9.9.9.9')).toBeNull();
  });

  it('uses 28-bit records, top nibbles included, once the data passes 16 MiB', () => {
    // One value is at most 65,821 + 2²⁴ − 1 bytes, so two large ones pass 2²⁴.
    const big = new Uint8Array(9 * 1024 * 1024);
    const reader = read(
      buildMmdb(
        [
          { cidr: '10.0.0.0/8', data: { big, big2: big } },
          { cidr: '11.0.0.0/8', data: { after: 'big' } },
          { cidr: '2001:db8::/32', data: { after: 'big', v: 6 } },
        ],
        { databaseType: 'test' },
      ),
    );
    expect(reader.metadata.recordSize).toBe(28);
    expect(reader.get('11.1.1.1')).toEqual({ after: 'big' });
    expect(reader.get('2001:db8::1')).toEqual({ after: 'big', v: 6 });
    expect(reader.get('10.1.1.1').big2.length).toBe(big.length);
  });

  it('refuses a record size too small for the data', () => {
    const big = new Uint8Array(9 * 1024 * 1024);
    expect(() =>
      buildMmdb(
        [
          { cidr: '10.0.0.0/8', data: { big, big2: big } },
          { cidr: '11.0.0.0/8', data: { after: 'big' } },
        ],
        { databaseType: 'test', recordSize: 24 },
      ),
    ).toThrow(/record size 24 is too small/);
  });

  it('shares identical records and repeated strings through pointers of every size', () => {
    const organisation = 'A very long autonomous system organisation name';
    const entries: MmdbEntry[] = [];
    for (let i = 0; i < 256; i++)
      entries.push({ cidr: `10.0.${i}.0/24`, data: { autonomous_system_organization: organisation } });
    const shared = buildMmdb(entries, { databaseType: 'test' });
    const reader = read(shared);
    expect(reader.get('10.0.200.1')).toEqual({ autonomous_system_organization: organisation });

    // Strings first written past 2,048 and past 526,336 bytes need 3- and 4-byte pointers.
    const late = 'first written after a large padding value';
    const later = 'first written after an even larger padding value';
    const withPointers = buildMmdb(
      [
        { cidr: '10.0.0.0/24', data: { pad: new Uint8Array(3000) } },
        { cidr: '10.0.1.0/24', data: { s: late } },
        { cidr: '10.0.2.0/24', data: { s: late, n: 2 } },
        { cidr: '10.0.3.0/24', data: { pad: new Uint8Array(600_000) } },
        { cidr: '10.0.4.0/24', data: { s: later } },
        { cidr: '10.0.5.0/24', data: { s: later, t: late, n: 5 } },
      ],
      { databaseType: 'test' },
    );
    const pointers = read(withPointers);
    expect(pointers.get('10.0.2.1')).toEqual({ s: late, n: 2 });
    expect(pointers.get('10.0.5.1')).toEqual({ s: later, t: late, n: 5 });
    expect(countOccurrences(withPointers, late)).toBe(1);
    expect(countOccurrences(withPointers, later)).toBe(1);
    expect(countOccurrences(shared, organisation)).toBe(1);
  });

  it('lets a later entry replace what it covers', () => {
    const reader = read(
      buildMmdb(
        [
          { cidr: '10.0.0.0/8', data: { net: 'wide' } },
          { cidr: '10.1.0.0/16', data: { net: 'narrow' } },
          { cidr: '192.168.1.0/24', data: { net: 'replaced' } },
          { cidr: '192.168.0.0/16', data: { net: 'wide again' } },
        ],
        { databaseType: 'test' },
      ),
    );
    expect(reader.get('10.1.2.3')).toEqual({ net: 'narrow' });
    expect(reader.get('10.2.0.0')).toEqual({ net: 'wide' });
    expect(reader.get('10.255.255.255')).toEqual({ net: 'wide' });
    expect(reader.get('192.168.1.1')).toEqual({ net: 'wide again' });
  });

  it('handles whole-space networks, single addresses and an empty database', () => {
    const all = read(
      buildMmdb(
        [
          { cidr: '::/0', data: { net: 'all' } },
          { cidr: '0.0.0.0/0', data: { net: 'ipv4' } },
          { cidr: '192.0.2.7', data: { net: 'one' } },
          { cidr: '2001:db8::1', data: { net: 'one v6' } },
        ],
        { databaseType: 'test' },
      ),
    );
    expect(all.get('2606:4700::1')).toEqual({ net: 'all' });
    expect(all.get('8.8.8.8')).toEqual({ net: 'ipv4' });
    expect(all.getWithPrefixLength('192.0.2.7')).toEqual([{ net: 'one' }, 32]);
    expect(all.get('192.0.2.8')).toEqual({ net: 'ipv4' });
    expect(all.getWithPrefixLength('2001:db8::1')).toEqual([{ net: 'one v6' }, 128]);

    const empty = read(buildMmdb([], { databaseType: 'test' }));
    expect(empty.metadata.nodeCount).toBe(1);
    expect(empty.get('8.8.8.8')).toBeNull();
    expect(empty.get('2001:db8::1')).toBeNull();
  });
});

describe('buildMmdb with an IPv4-only tree', () => {
  it('stores IPv4 networks from the root', () => {
    const reader = read(buildMmdb([{ cidr: '8.8.8.0/24', data: GOOGLE_ASN }], { databaseType: 'test', ipVersion: 4 }));
    expect(reader.metadata.ipVersion).toBe(4);
    expect(reader.metadata.nodeCount).toBe(24);
    expect(reader.getWithPrefixLength('8.8.8.8')).toEqual([GOOGLE_ASN, 24]);
    expect(reader.get('8.8.9.8')).toBeNull();
  });

  it('refuses IPv6 networks', () => {
    expect(() => buildMmdb([{ cidr: '2001:db8::/32', data: {} }], { databaseType: 'test', ipVersion: 4 })).toThrow(
      /IPv4-only tree/,
    );
  });
});

describe('writeMmdb', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mmdb-writer-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a file mmdb-lib reads', async () => {
    const path = join(dir, 'asn.mmdb');
    await writeMmdb(path, [{ cidr: '8.8.8.0/24', data: GOOGLE_ASN }], { databaseType: 'GeoLite2-ASN' });
    expect(read(await readFile(path)).get('8.8.8.8')).toEqual(GOOGLE_ASN);
  });
});

function countOccurrences(haystack: Buffer, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) count += 1;
  return count;
}
