import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineCases } from '../support/engines.js';
import { FEED, loadFeed, startBackupApp, type BackupTestApp } from '../backup/support.js';

/**
 * Parameters are checked against the types, ranges, enums and patterns the endpoint table
 * (src/core/api) declares, before any route reads them: each failure is a 400 naming the parameter
 * and saying what it accepts, in the documented error shape.
 */
const REJECTED: Array<[url: string, message: RegExp]> = [
  ['/v3/index/target-intel?port=0', /^parameter "port" must be between 1 and 65535, got "0"$/],
  ['/v3/index/target-intel?port=70000', /^parameter "port" must be between 1 and 65535/],
  ['/v3/index/target-intel?port=http', /^parameter "port" must be a whole number, got "http"$/],
  ['/v3/index/target-intel?port=1.5', /^parameter "port" must be a whole number/],
  ['/v3/index/target-intel?port=1&port=2', /^parameter "port" must be given once, as a single value$/],
  ['/v3/index/target-intel?contains_cve=yes', /^parameter "contains_cve" must be true or false, got "yes"$/],
  ['/v3/index/target-intel?protocol=sctp', /^parameter "protocol" must be one of tcp, udp, got "sctp"$/],
  ['/v3/index/target-intel?sort=cve', /^parameter "sort" must be one of timestamp, date_added, ip, port/],
  ['/v3/index/target-intel?order=up', /^parameter "order" must be one of asc, desc/],
  ['/v3/index/target-intel?cve=CVE-21-1', /^parameter "cve" must be a value like CVE-2021-44228, got "CVE-21-1"$/],
  ['/v3/index/target-intel?country_code=USA', /^parameter "country_code" must be a value like US, got "USA"$/],
  ['/v3/index/target-intel?asn=ASX', /^parameter "asn" must be a value like AS13335/],
  ['/v3/index/target-intel?id=0', /^parameter "id" must be between 1 and 4294967295/],
  ['/v3/index/target-intel?date=2026-02-30', /^parameter "date" must be a value like 2026-11-01, got "2026-02-30"$/],
  ['/v3/index/target-intel?pubStartDate=yesterday', /^parameter "pubStartDate" must be a value like 2026-11-01 or /],
  ['/v3/index/target-intel?pubStartDate=2026-02-30', /^parameter "pubStartDate" is not a real date/],
  ['/v3/index/target-intel?limit=2001', /^parameter "limit" must be between 1 and 2000/],
  ['/v3/index/target-intel?limit=101', /^parameter "limit" must be between 1 and 100 with page paging/],
  ['/v3/index/target-intel?page=0', /^parameter "page" must be a whole number of at least 1/],
  ['/v3/index/target-intel?explain=maybe', /^parameter "explain" must be true or false/],
  ['/v3/index/target-intel?start_cursor=false', /^parameter "start_cursor" must be true to start a cursor walk$/],
  [`/v3/index/target-intel?vendor=${'a'.repeat(501)}`, /^parameter "vendor" must be at most 500 characters long/],
  ['/v3/index/target-intel?nonsense=1', /^unknown parameter "nonsense"$/],
  ['/v3/index/target-intel/facets', /^parameter "fields" is required$/],
  ['/v3/index/target-intel/facets?fields=port&port=x', /^parameter "port" must be a whole number/],
  ['/v3/index/target-intel/export?contains_cve=1', /^parameter "contains_cve" must be true or false/],
  ['/v3/search/cpe?part=x', /^parameter "part" must be one of a, o, h, got "x"$/],
  ['/v3/search/cpe?isVulnerable=yes', /^parameter "isVulnerable" must be true or false/],
  ['/v3/search/cpe?limit=101', /^parameter "limit" must be between 1 and 100/],
  ['/v3/search/cpe?limit=ten', /^parameter "limit" must be a whole number/],
  ['/v3/search/cpe?sort=cpe', /^parameter "sort" must be one of _id/],
  ['/v4/advisory?limit=0', /^parameter "limit" must be between 1 and 100/],
  ['/v4/advisory?page=1000001', /^parameter "page" must be between 1 and 1000000/],
  ['/v4/advisory?description_lang=e', /^parameter "description_lang" must be a value like en or en-US/],
  ['/v4/advisory/export?cve_id=' + 'C'.repeat(121), /^parameter "cve_id" must be at most 120 characters long/],
  ['/v4/advisory/list?page=1', /^unknown parameter "page"$/],
  // Too many digits to be exact: coerced, they would be rounded or Infinity and pass the range check.
  [`/v4/advisory?limit=${'9'.repeat(400)}`, /^parameter "limit" must be between 1 and 100, got "9{64}"$/],
  ['/v4/advisory?page=99999999999999999999', /^parameter "page" must be between 1 and 1000000, got "9{20}"$/],
  [`/v3/index/target-intel?limit=${'9'.repeat(309)}`, /^parameter "limit" must be between 1 and \d+, got "9{64}"$/],
  [`/v3/search/cpe?page=${'9'.repeat(30)}`, /^parameter "page" must be between 1 and 9007199254740991, got "9{30}"$/],
];

/** Values the declarations accept besides their canonical form: case-free words, empty parameters as absent. */
const ACCEPTED = [
  '/v3/index/target-intel?contains_cve=TRUE&protocol=TCP&order=ASC&sort=Port',
  '/v3/index/target-intel?port=&vendor=&cve=',
  '/v3/index/target-intel?start_cursor',
  '/v3/index/target-intel?start_cursor=&limit=5',
  '/v3/index/target-intel?asn=as13335&country_code=us&port=443',
  '/v3/index/target-intel/facets?fields=port&contains_cve=false',
  '/v3/search/cpe?isVulnerable=True&part=A&vendor=&order=DESC',
  '/v4/advisory?start_cursor&limit=5',
  '/v4/advisory?page=&limit=',
];

describe.each(engineCases().slice(0, 1))('declared parameters ($name)', (engine) => {
  let t: BackupTestApp;
  beforeAll(async () => {
    t = await startBackupApp(engine);
    await loadFeed(t, 3);
  });
  afterAll(async () => t?.close());

  it.each(REJECTED)('%s is a 400 saying what the parameter accepts', async (url, message) => {
    const response = await t.get(url);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error).toBe(true);
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0]).toMatch(message);
  });

  it.each(ACCEPTED)('%s is accepted', async (url) => {
    const response = await t.get(url);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it('a typed filter reaches the index as its type: port=443 and port=0443 are one filter', async () => {
    const a = await t.get('/v3/index/target-intel?port=443&show_query=true');
    const b = await t.get('/v3/index/target-intel?port=0443&show_query=true');
    expect(a.body._meta.opensearch_query).toEqual(b.body._meta.opensearch_query);
    expect(a.body._meta.matches).toEqual([{ field: 'port', value: '443' }]);
  });

  it('a cursor walk started with typed filters continues with them', async () => {
    const first = await t.get(`/v4/advisory?name=${FEED}&start_cursor=true&limit=1`);
    expect(first.status).toBe(200);
    const cursor = first.body._meta.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const next = await t.get(`/v4/advisory?cursor=${encodeURIComponent(cursor)}&limit=1&name=${FEED}`);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    const changed = await t.get(`/v4/advisory?cursor=${encodeURIComponent(cursor)}&limit=2`);
    expect(changed.body.errors).toEqual([`parameter "limit" differs from the cursor's; start a new walk`]);
  });
});
