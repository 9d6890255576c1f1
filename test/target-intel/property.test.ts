import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { labelSet, loadDataset, TI } from './dataset.js';
import { schemaErrors } from './helpers.js';

const KNOWN = [
  'cidr',
  'hostname',
  'domain',
  'cve',
  'vendor',
  'product',
  'version',
  'cpe',
  'asn',
  'country',
  'country_code',
  'protocol',
  'transport',
  'port',
  'contains_cve',
  'confirmed',
  'classifications',
  'id',
  'date',
  'pubStartDate',
  'pubEndDate',
  'updatedAtStartDate',
  'updatedAtEndDate',
  'lastModStartDate',
  'lastModEndDate',
  'page',
  'limit',
  'start_cursor',
  'cursor',
  'sort',
  'order',
  'token',
  'show_pages',
  'show_query',
];

const INTERESTING = [
  '',
  ' ',
  'true',
  'false',
  'TRUE',
  'yes',
  '1',
  '0',
  '-1',
  '1.5',
  '2',
  '7',
  '100',
  '101',
  '443',
  '65535',
  '65536',
  '2000',
  '2001',
  '9'.repeat(40),
  '9'.repeat(400),
  '1e3',
  '0x10',
  'NaN',
  'Infinity',
  '-0',
  '10.0.0.0/8',
  '192.0.2.10',
  '::/0',
  '2001:db8::/32',
  '2001:db8::/129',
  '10.0.0.0/33',
  '300.1.1.1',
  '1.2.3.4/0',
  'CVE-2021-41773',
  'cve-2021-41773',
  'CVE-21-1',
  'cpe:2.3:a:apache:http_server',
  'cpe:/a:apache',
  'cpe:2.3:a:*:*:2.4.*',
  'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*:*',
  'cpe:2.3:a:a\\:b',
  'cpe:2.3:a:a*b',
  'cpe:/a:%zz',
  'cpe:/a:%01%01',
  'c2',
  'c2:cobalt_strike',
  'C2:Cobalt Strike',
  'c2,cdn,',
  ',',
  'bogus',
  'scanner:',
  ':c2',
  'AS64500',
  'as0',
  'AS99999999999',
  'US',
  'usa',
  'Germany',
  'apache',
  'Apache httpd',
  'example.com',
  '.example.com',
  '2025-06-04',
  '2025-02-30',
  '2025-06-04T00:00:00Z',
  '2025-06-04 00:00Z',
  '2025-06-04T00:00:00+0200',
  '0099-01-01',
  '275760-09-13',
  '9999-12-31T23:59:59.999999999Z',
  'asc',
  'desc',
  'ip',
  'port',
  'timestamp',
  'date_added',
  'DESC',
  'udp',
  'tcp',
  'TCP',
  'icmp',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  '[]',
  '{}',
  '"',
  "'",
  '<script>',
  'a'.repeat(3000),
  '\u0000',
  'é',
  '日本',
  '😀',
  'VALID_CURSOR',
  'VALID_CURSOR_TAMPERED',
];

/** Raw (not re-encoded) fragments: malformed and unusual escapes, form-encoding details. */
const RAW = [
  '%',
  '%zz',
  '%2',
  '%%',
  '%00',
  '%E2%82',
  '%C0%AF',
  '%FF',
  '%ED%A0%80',
  '+',
  '%2B',
  '%26',
  '%3D',
  '%23',
  '%3F',
  '%20',
  '=',
  '==',
];

const key = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 5 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'Limit',
      'TOKEN',
      'pages',
      'foo',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'cve[]',
      'a.b',
      '',
    ),
  },
);
const value = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...INTERESTING) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 10 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
);
const encoding = fc.constantFrom('component', 'form', 'raw-suffix', 'raw-prefix', 'no-value');
const pair = fc.tuple(key, value, encoding, fc.constantFrom(...RAW));
const query = fc.array(pair, { minLength: 0, maxLength: 6 });

function encode(text: string, how: string): string {
  return how === 'form' ? encodeURIComponent(text).replace(/%20/g, '+') : encodeURIComponent(text);
}

describe.each(engineCases())('target-intel with random and malformed query strings on $name', (engine) => {
  let t: TestApp;
  let cursor: string;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadDataset(t);
    cursor = (await t.get(`${TI}?start_cursor=true&limit=3&sort=ip`)).body._meta.next_cursor;
  });
  afterAll(async () => t?.close());

  const build = (pairs: Array<[string, string, string, string]>) =>
    pairs
      .map(([k, v, how, raw]) => {
        const resolved = v === 'VALID_CURSOR' ? cursor : v === 'VALID_CURSOR_TAMPERED' ? `x${cursor}` : v;
        const name = encode(k, how);
        if (how === 'no-value') return name;
        if (how === 'raw-suffix') return `${name}=${encode(resolved, 'component')}${raw}`;
        if (how === 'raw-prefix') return `${raw}${name}=${encode(resolved, 'component')}`;
        return `${name}=${encode(resolved, how)}`;
      })
      .join('&');

  it('never a 5xx; always JSON; 200 bodies valid; 400 bodies {error: true, errors: [string…]}', async () => {
    await fc.assert(
      fc.asyncProperty(query, async (pairs) => {
        const qs = build(pairs);
        const response = await t.app.inject({
          method: 'GET',
          url: `${TI}?${qs}`,
          headers: { authorization: `Bearer ${t.token}` },
        });
        const context = `${response.statusCode} for ?${qs.slice(0, 500)}: ${response.body.slice(0, 300)}`;
        expect(response.statusCode, context).toBeLessThan(500);
        expect([200, 400], context).toContain(response.statusCode);
        expect(String(response.headers['content-type']), context).toMatch(/^application\/json/);
        const body = JSON.parse(response.body);
        if (response.statusCode === 200) {
          expect(schemaErrors(body), context).toEqual([]);
          const meta = body._meta;
          expect(body.data.length, context).toBeLessThanOrEqual(meta.limit);
          expect(Number.isInteger(meta.total_documents), context).toBe(true);
          expect(meta.total_documents, context).toBeLessThanOrEqual(20);
          expect(meta.last_item - meta.first_item + 1, context).toBe(body.data.length);
          expect(
            meta.matches.some((m: { field: string }) => m.field === 'token'),
            context,
          ).toBe(false);
          if ('next_cursor' in meta)
            expect(typeof meta.next_cursor === 'string' && meta.next_cursor.length > 0, context).toBe(true);
        } else {
          expect(Object.keys(body).sort(), context).toEqual(['error', 'errors']);
          expect(body.error, context).toBe(true);
          expect(Array.isArray(body.errors) && body.errors.length > 0, context).toBe(true);
          for (const message of body.errors) expect(typeof message, context).toBe('string');
        }
      }),
      { numRuns: 300, seed: 20250611, endOnFailure: true },
    );
  });

  /** Valid filter values; combining filters on different parameters is the AND of their results. */
  const VALID: Array<[string, string[]]> = [
    ['cidr', ['192.0.2.0/24', '10.0.0.0/8', '2001:db8::/32', '203.0.113.9', '0.0.0.0/0']],
    ['hostname', ['example', 'www', 'api,tomcat', 'EXAMPLE']],
    ['domain', ['example.com', 'example.org,example.net']],
    ['cve', ['CVE-2021-41773', 'CVE-2023-38408', 'CVE-2020-8625']],
    ['asn', ['AS64500', 'AS64502']],
    ['country', ['Germany', 'united states']],
    ['country_code', ['NL', 'us']],
    ['protocol', ['tcp', 'udp']],
    ['port', ['443', '22', '53', '8080']],
    ['contains_cve', ['true', 'false']],
    ['classifications', ['c2', 'cdn,scanner', 'honeypot:cowrie']],
    ['date', ['2025-06-02', '2025-06-04']],
    ['pubStartDate', ['2025-06-03', '2025-06-06T12:00:00Z']],
    ['pubEndDate', ['2025-06-07', '2025-06-04T00:00:00Z']],
    ['updatedAtStartDate', ['2025-06-05']],
    ['lastModEndDate', ['2025-06-08']],
    ['vendor', ['apache', 'f5', 'openbsd']],
    ['version', ['2.4.49', '9.16.1', '1.1.1k']],
  ];
  const filterSet = fc.uniqueArray(
    fc
      .integer({ min: 0, max: VALID.length - 1 })
      .chain((i) => fc.constantFrom(...VALID[i]![1]).map((v) => [VALID[i]![0], v] as const)),
    { minLength: 2, maxLength: 4, selector: ([name]) => name },
  );

  it('a combination of filters serves the intersection of the single-filter results', async () => {
    const single = new Map<string, string[]>();
    const resultOf = async (qs: string) => {
      const response = await t.get(`${TI}?limit=100&${qs}`);
      expect(response.status, qs).toBe(200);
      expect(response.body._meta.total_documents, qs).toBe(response.body.data.length);
      return labelSet(response.body);
    };
    await fc.assert(
      fc.asyncProperty(filterSet, async (filters) => {
        const parts = filters.map(([name, v]) => `${name}=${encodeURIComponent(v)}`);
        for (const part of parts) if (!single.has(part)) single.set(part, await resultOf(part));
        const combined = await resultOf(parts.join('&'));
        const intersection = parts.map((p) => single.get(p)!).reduce((a, b) => a.filter((x) => b.includes(x)));
        // vendor and version must hold for one fingerprint: then the result may be smaller.
        const sameFingerprint = filters.some(([n]) => n === 'vendor') && filters.some(([n]) => n === 'version');
        if (sameFingerprint) for (const label of combined) expect(intersection, parts.join('&')).toContain(label);
        else expect(combined, parts.join('&')).toEqual(intersection);
      }),
      { numRuns: 150, seed: 611, endOnFailure: true },
    );
  });
});
