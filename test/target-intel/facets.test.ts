import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { loadDataset, TI } from './dataset.js';
import { naiveFacet } from './facets-naive.js';
import { servedLabels, walk } from './helpers.js';

const FACETS = `${TI}/facets`;
const FIELDS = [
  'country',
  'country_code',
  'asn',
  'as_name',
  'port',
  'protocol',
  'vendor',
  'product',
  'version',
  'cpe',
  'cve',
  'classifications',
  'date_added',
  'timestamp',
];

/** Query string → the parameter the 400 must name. */
const BAD_REQUESTS: Array<[string, string]> = [
  ['', 'fields'],
  ['fields=', 'fields'],
  ['fields=%20', 'fields'],
  ['fields=bogus', 'fields'],
  ['fields=country,bogus', 'fields'],
  ['fields=port:0', 'fields'],
  ['fields=port:1001', 'fields'],
  ['fields=port:-1', 'fields'],
  ['fields=port:1.5', 'fields'],
  ['fields=port:ten', 'fields'],
  ['fields=port:', 'fields'],
  ['fields=port:1:2', 'fields'],
  ['fields=port:99999999999999999999', 'fields'],
  ['fields=port,port', 'fields'],
  ['fields=port,port:5', 'fields'],
  ['fields=country,', 'fields'],
  ['fields=,country', 'fields'],
  [`fields=${FIELDS.slice(0, 11).join(',')}`, 'fields'],
  ['fields=ip', 'fields'],
  ['fields=hostname', 'fields'],
  ['fields=port&fields=cve', 'fields'],
  // The filters are parsed as by /v3/index/target-intel.
  ['fields=port&port=0', 'port'],
  ['fields=port&cidr=10.0.0.0/33', 'cidr'],
  ['fields=port&cve=foo', 'cve'],
  ['fields=port&contains_cve=yes', 'contains_cve'],
  ['fields=port&date=2025-02-30', 'date'],
  ['fields=port&classifications=bogus', 'classifications'],
  ['fields=port&protocol=tcp&transport=udp', 'transport'],
  // Paging and display parameters belong to the record listing, not here.
  ['fields=port&page=2', 'page'],
  ['fields=port&limit=10', 'limit'],
  ['fields=port&sort=ip', 'sort'],
  ['fields=port&start_cursor=true', 'start_cursor'],
  ['fields=port&foo=bar', 'foo'],
];

const GOOD_REQUESTS = [
  'fields=port',
  'fields=port:1',
  'fields=port:1000',
  `fields=${FIELDS.slice(0, 10).join(',')}`,
  `fields=${FIELDS.slice(4).join(',')}`,
  'fields=%20port%20,%20cve:3',
  'fields=PORT',
  'fields=port&token=abc',
  'fields=cve&contains_cve=true&country_code=us',
];

/** Valid filter values (those the plain endpoint's property test uses). */
const FILTERS: Array<[string, string[]]> = [
  ['cidr', ['192.0.2.0/24', '10.0.0.0/8', '2001:db8::/32']],
  ['hostname', ['example', 'www']],
  ['domain', ['example.com']],
  ['cve', ['CVE-2021-41773', 'CVE-2023-38408']],
  ['asn', ['AS64500', 'AS64502']],
  ['country', ['Germany', 'united states']],
  ['country_code', ['NL', 'us']],
  ['protocol', ['tcp', 'udp']],
  ['port', ['443', '22', '8080']],
  ['contains_cve', ['true', 'false']],
  ['classifications', ['c2', 'honeypot:cowrie']],
  ['pubStartDate', ['2025-06-03']],
  ['updatedAtEndDate', ['2025-06-08']],
  ['vendor', ['apache', 'openbsd']],
  ['product', ['http_server']],
  ['version', ['2.4.49']],
];

const filterSet = fc.uniqueArray(
  fc
    .integer({ min: 0, max: FILTERS.length - 1 })
    .chain((i) => fc.constantFrom(...FILTERS[i]![1]).map((v) => [FILTERS[i]![0], v] as const)),
  { minLength: 0, maxLength: 3, selector: ([name]) => name },
);
const fieldSet = fc.uniqueArray(
  fc.tuple(fc.constantFrom(...FIELDS), fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined })),
  { minLength: 1, maxLength: 10, selector: ([field]) => field },
);

describe.each(engineCases())('target-intel facets on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadDataset(t);
  });
  afterAll(async () => t?.close());

  it.each(BAD_REQUESTS)('?%s → 400 naming %s', async (query, parameter) => {
    const response = await t.get(`${FACETS}?${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(response.body).sort()).toEqual(['error', 'errors']);
    expect(response.body.error).toBe(true);
    expect(response.body.errors.join(' ')).toMatch(new RegExp(`(^|[^A-Za-z_])${parameter}([^A-Za-z_]|$)`));
  });

  it.each(GOOD_REQUESTS)('?%s → 200', async (query) => {
    const response = await t.get(`${FACETS}?${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it('needs a token, as the record listing does', async () => {
    expect((await t.get(`${FACETS}?fields=port`, null)).status).toBe(401);
  });

  it('serves the documented shape', async () => {
    const response = await t.get(`${FACETS}?fields=country_code,port:2,date_added:1&contains_cve=true`);
    expect(response.status).toBe(200);
    const body = response.body;
    expect(Object.keys(body)).toEqual(['_benchmark', '_meta', 'data']);
    expect(typeof body._benchmark).toBe('number');
    expect(body._meta).toMatchObject({
      index: 'target-intel',
      matches: [{ field: 'contains_cve', value: 'true' }],
      fields: [
        { field: 'country_code', top: 10 },
        { field: 'port', top: 2 },
        { field: 'date_added', top: 1 },
      ],
    });
    expect(Object.keys(body.data)).toEqual(['country_code', 'port', 'date_added']);
    const total = body._meta.total_documents;
    expect(total).toBe((await t.get(`${TI}?contains_cve=true`)).body._meta.total_documents);
    for (const counts of Object.values<any>(body.data)) {
      expect(Object.keys(counts)).toEqual(['values', 'missing', 'other']);
      const shown = counts.values.reduce((sum: number, v: { count: number }) => sum + v.count, 0);
      // Single-valued fields: every record is shown, missing, or other.
      expect(shown + counts.missing + counts.other).toBe(total);
    }
    expect(body.data.port.values[0]).toEqual({ value: 443, count: expect.any(Number) });
    expect(body.data.date_added.values[0].value).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('counts equal counts over the records the plain endpoint serves, for random filters', async () => {
    await fc.assert(
      fc.asyncProperty(filterSet, fieldSet, async (filters, fields) => {
        const filterQuery = filters.map(([name, v]) => `${name}=${encodeURIComponent(v)}`).join('&');
        const pages = await walk(t, `start_cursor=true&limit=7${filterQuery ? `&${filterQuery}` : ''}`);
        const records = pages.flatMap((body) => body.data);
        expect(new Set(servedLabels(pages)).size).toBe(records.length);
        const fieldsParam = fields.map(([field, top]) => (top === undefined ? field : `${field}:${top}`)).join(',');
        const response = await t.get(`${FACETS}?fields=${fieldsParam}${filterQuery ? `&${filterQuery}` : ''}`);
        const context = `${fieldsParam} ${filterQuery}`;
        expect(response.status, context).toBe(200);
        expect(response.body._meta.total_documents, context).toBe(records.length);
        for (const [field, top] of fields) {
          expect(response.body.data[field], `${field} of ${context}`).toEqual(naiveFacet(records, field, top ?? 10));
        }
      }),
      { numRuns: 60, seed: 20260611, endOnFailure: true },
    );
  });

  it('answers while changes are applied, and counts them once applied', async () => {
    const fields = 'fields=port:1000,cve:1000,country_code,date_added';
    const during = await Promise.all([
      t.get(`${FACETS}?${fields}`),
      t.ingest([
        { ip: '198.18.0.1', port: 8888, cves: ['CVE-2024-3094'], countryCode: 'FR', timestamp: Date.now() },
        { ip: '198.18.0.2', port: 8888, timestamp: Date.now() },
      ]),
      t.get(`${FACETS}?${fields}`),
    ]);
    for (const response of [during[0], during[2]]) expect((response as { status: number }).status).toBe(200);
    const records = (await walk(t, 'start_cursor=true&limit=9')).flatMap((body) => body.data);
    const after = await t.get(`${FACETS}?${fields}`);
    expect(after.body._meta.total_documents).toBe(records.length);
    for (const [field, top] of [
      ['port', 1000],
      ['cve', 1000],
      ['country_code', 10],
      ['date_added', 10],
    ] as const) {
      expect(after.body.data[field]).toEqual(naiveFacet(records, field, top));
    }
    expect(after.body.data.port.values).toContainEqual({ value: 8888, count: 2 });
  });

  it('counts a record once per distinct value, however many fingerprints carry it', async () => {
    const response = await t.get(`${FACETS}?fields=cpe:1000,vendor,cve&cidr=192.0.2.10/32&port=443`);
    expect(response.body._meta.total_documents).toBe(1);
    for (const counts of Object.values<any>(response.body.data)) {
      for (const value of counts.values) expect(value.count).toBe(1);
    }
  });
});
