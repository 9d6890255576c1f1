import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeErrors, schemaNames, validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';
import { loadDataset, TI } from './dataset.js';
import { schemaErrors, TARGET_INTEL_SCHEMA } from './helpers.js';

describe('the contract validator', () => {
  it('knows the target-intel and error schemas', () => {
    expect(schemaNames()).toEqual(
      expect.arrayContaining([TARGET_INTEL_SCHEMA, 'paginate.Pagination', 'api.TargetIntel', 'search.ErrorResponse']),
    );
    expect(() => validateAgainst('no.such.Schema', {})).toThrow(/no\.such\.Schema/);
  });

  it('accepts a minimal valid body and rejects wrong types deep inside it', () => {
    expect(
      validateAgainst(TARGET_INTEL_SCHEMA, {
        _benchmark: 0.1,
        _meta: { page: 1, pages: ['1'] },
        data: [{ port: 443, cve: [] }],
      }),
    ).toEqual([]);
    const paths = validateAgainst(TARGET_INTEL_SCHEMA, {
      _benchmark: '0.1',
      _meta: { page: '1', pages: [1], matches: [{ field: 1 }], show_pages: 'true' },
      data: [{ port: '443', cve: null, contains_cve: 1, fingerprints: [{ cpe: ['x'] }], metadata: { a: 1 } }],
    }).map((e) => e.instancePath);
    expect(paths.sort()).toEqual(
      [
        '/_benchmark',
        '/_meta/page',
        '/_meta/pages/0',
        '/_meta/matches/0/field',
        '/_meta/show_pages',
        '/data/0/port',
        '/data/0/cve',
        '/data/0/contains_cve',
        '/data/0/fingerprints/0/cpe',
        '/data/0/metadata',
      ].sort(),
    );
  });
});

describe.each(engineCases())('target-intel responses against the contract schema on $name', (engine) => {
  let t: TestApp;
  let cursor: string;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadDataset(t);
    cursor = (await t.get(`${TI}?start_cursor=true&limit=7`)).body._meta.next_cursor;
  });
  afterAll(async () => t?.close());

  it.each([
    '',
    'limit=1',
    'limit=7&page=3',
    'limit=7&page=9',
    'sort=ip&order=asc',
    'sort=port',
    'sort=date_added&order=asc',
    'cve=CVE-2021-41773',
    'cve=CVE-1999-0001',
    'classifications=c2,cdn',
    'vendor=apache&version=2.4.49',
    'cidr=2001:db8::/32',
    'contains_cve=false',
    'show_pages=true&limit=1',
    'show_pages=true&show_query=true&limit=7',
    'start_cursor=true&limit=7',
    'start_cursor=true&limit=2000',
    'start_cursor=true&cve=CVE-1999-0001',
    'token=TOKEN&hostname=example',
  ])('200 for "%s" validates', async (query) => {
    const response = await t.get(`${TI}?${query.replace('TOKEN', encodeURIComponent(t.token))}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(schemaErrors(response.body)).toEqual([]);
  });

  it('cursor continuation pages validate, with and without next_cursor', async () => {
    let next: string | undefined = cursor;
    let pages = 0;
    while (next) {
      const response = await t.get(`${TI}?cursor=${encodeURIComponent(next)}`);
      expect(response.status).toBe(200);
      expect(schemaErrors(response.body)).toEqual([]);
      expect(typeof response.body._meta.cursor).toBe('string');
      next = response.body._meta.next_cursor;
      pages++;
    }
    expect(pages).toBe(2);
  });

  it('the only deviation is cve: null, exactly on the records without a CVE', async () => {
    const body = (await t.get(TI)).body;
    const nullCve = validateAgainst(TARGET_INTEL_SCHEMA, body).map((e) => `${e.instancePath} ${e.keyword}`);
    const expected = body.data
      .map((r: any, i: number) => (r.contains_cve ? undefined : `/data/${i}/cve type`))
      .filter(Boolean);
    expect(nullCve.sort()).toEqual(expected.sort());
    expect(expected).toHaveLength(13);
    // Without those records the body validates as is.
    const withCves = (await t.get(`${TI}?contains_cve=true`)).body;
    expect(describeErrors(validateAgainst(TARGET_INTEL_SCHEMA, withCves))).toEqual([]);
  });

  it('the pieces validate on their own: paginate.Pagination, api.TargetIntel, api.Fingerprint', async () => {
    const body = (await t.get(`${TI}?contains_cve=true&show_pages=true`)).body;
    expect(describeErrors(validateAgainst('paginate.Pagination', body._meta))).toEqual([]);
    for (const record of body.data) {
      expect(describeErrors(validateAgainst('api.TargetIntel', record))).toEqual([]);
      for (const fp of record.fingerprints) expect(describeErrors(validateAgainst('api.Fingerprint', fp))).toEqual([]);
    }
  });

  it.each([
    ['port=0', 400, undefined],
    ['foo=1', 400, undefined],
    [`cursor=forged.sig`, 400, undefined],
    ['', 401, null],
    ['', 401, 'vs_not-a-token'],
  ] as const)('error body for "%s" (%i) validates against search.ErrorResponse', async (query, status, token) => {
    const response = await t.get(`${TI}?${query}`, token);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(describeErrors(validateAgainst('search.ErrorResponse', response.body))).toEqual([]);
    expect(response.body.error).toBe(true);
  });

  it('an unknown path is a JSON 404 error body', async () => {
    const response = await t.get('/v3/index/target-intel-nope');
    expect(response.status).toBe(404);
    expect(describeErrors(validateAgainst('search.ErrorResponse', response.body))).toEqual([]);
  });
});
