import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { loadDataset, TI } from './dataset.js';

/** Query string → the parameter the 400 message must name. `CURSOR` is replaced by a valid cursor. */
const BAD_REQUESTS: Array<[string, string]> = [
  // cidr
  ['cidr=10.0.0.0/33', 'cidr'],
  ['cidr=2001:db8::/129', 'cidr'],
  ['cidr=nonsense', 'cidr'],
  ['cidr=300.1.1.1', 'cidr'],
  ['cidr=10.0.0/8', 'cidr'],
  ['cidr=10.0.0.0/-1', 'cidr'],
  ['cidr=10.0.0.0/8/8', 'cidr'],
  ['cidr=2001:db8:::1', 'cidr'],
  // port
  ['port=0', 'port'],
  ['port=65536', 'port'],
  ['port=99999999999999999999999', 'port'],
  ['port=-1', 'port'],
  ['port=abc', 'port'],
  ['port=80.5', 'port'],
  ['port=80,443', 'port'],
  ['port=1e3', 'port'],
  // page / limit
  ['page=0', 'page'],
  ['page=-1', 'page'],
  ['page=1.5', 'page'],
  ['page=abc', 'page'],
  ['page=99999999999999999999', 'page'],
  ['limit=0', 'limit'],
  ['limit=101', 'limit'],
  ['limit=-5', 'limit'],
  ['limit=ten', 'limit'],
  ['limit=10.0', 'limit'],
  ['page=101&limit=100', 'page'],
  ['page=2&limit=5001', 'limit'],
  ['start_cursor=true&limit=2001', 'limit'],
  ['start_cursor=true&limit=0', 'limit'],
  // booleans
  ['contains_cve=yes', 'contains_cve'],
  ['contains_cve=1', 'contains_cve'],
  ['confirmed=0', 'confirmed'],
  ['confirmed=truthy', 'confirmed'],
  ['show_pages=maybe', 'show_pages'],
  ['show_query=2', 'show_query'],
  ['start_cursor=false', 'start_cursor'],
  ['start_cursor=nope', 'start_cursor'],
  // dates
  ['date=2025-13-01', 'date'],
  ['date=2025-02-30', 'date'],
  ['date=yesterday', 'date'],
  ['date=2025-6-1', 'date'],
  ['date=2025-06-01T00:00:00Z', 'date'],
  ['pubStartDate=garbage', 'pubStartDate'],
  ['pubEndDate=2025-06-31', 'pubEndDate'],
  ['updatedAtStartDate=2025-06-01T25:00:00Z', 'updatedAtStartDate'],
  ['updatedAtEndDate=06/01/2025', 'updatedAtEndDate'],
  ['lastModStartDate=x', 'lastModStartDate'],
  ['lastModEndDate=2025-00-10', 'lastModEndDate'],
  // paging modes
  ['start_cursor=true&page=1', 'page'],
  ['start_cursor=true&page=2', 'page'],
  ['cursor=CURSOR&page=2', 'page'],
  // cursors
  ['cursor=garbage', 'cursor'],
  ['cursor=abc.def', 'cursor'],
  ['cursor=TAMPERED', 'cursor'],
  // sort / order / enums
  ['sort=name', 'sort'],
  ['sort=timestamp;drop', 'sort'],
  ['order=up', 'order'],
  ['protocol=icmp', 'protocol'],
  ['transport=sctp', 'transport'],
  ['protocol=tcp&transport=udp', 'transport'],
  ['classifications=bogus', 'classifications'],
  ['classifications=c2,evil', 'classifications'],
  ['classifications=c3:sliver', 'classifications'],
  // other filter formats
  ['asn=ABC', 'asn'],
  ['asn=AS', 'asn'],
  ['country_code=USA', 'country_code'],
  ['cve=foo', 'cve'],
  ['cve=CVE-21-1', 'cve'],
  ['cpe=notacpe', 'cpe'],
  ['cpe=cpe:2.3:x:apache:http_server', 'cpe'],
  ['cpe=cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*:extra', 'cpe'],
  ['id=abc', 'id'],
  ['id=0', 'id'],
  ['id=-3', 'id'],
  // unknown and repeated parameters
  ['foo=bar', 'foo'],
  ['Limit=5', 'Limit'],
  ['cve=CVE-2021-41773&pages=2', 'pages'],
  ['port=80&port=443', 'port'],
  ['cve=CVE-2021-41773&cve=CVE-2021-42013', 'cve'],
];

describe.each(engineCases())('target-intel 400s on $name', (engine) => {
  let t: TestApp;
  let cursor: string;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadDataset(t);
    cursor = (await t.get(`${TI}?start_cursor=true&limit=2`)).body._meta.next_cursor;
  });
  afterAll(async () => t?.close());

  const tampered = () => {
    const dot = cursor.lastIndexOf('.');
    return `${cursor.slice(0, 5)}${cursor[5] === 'x' ? 'y' : 'x'}${cursor.slice(6, dot)}${cursor.slice(dot)}`;
  };

  it.each(BAD_REQUESTS)('%s → 400 naming %s', async (query, parameter) => {
    const url = `${TI}?${query
      .replace('TAMPERED', encodeURIComponent(tampered()))
      .replace('CURSOR', encodeURIComponent(cursor))}`;
    const response = await t.get(url);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(response.body).sort()).toEqual(['error', 'errors']);
    expect(response.body.error).toBe(true);
    expect(response.body.errors.length).toBeGreaterThanOrEqual(1);
    for (const message of response.body.errors) expect(typeof message).toBe('string');
    const escaped = parameter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(response.body.errors.join(' ')).toMatch(new RegExp(`(^|[^A-Za-z_])${escaped}([^A-Za-z_]|$)`));
  });

  it.each([
    'token=abc',
    'show_pages=true',
    'show_pages=false',
    'show_query=true',
    'show_query=false',
    'transport=tcp',
    'domain=example.com',
    'confirmed=true',
    'classifications=c2',
    'id=1',
    'date=2025-06-01',
    'pubStartDate=2025-06-01',
    'pubEndDate=2025-06-01',
    'updatedAtStartDate=2025-06-01',
    'updatedAtEndDate=2025-06-01',
    'lastModStartDate=2025-06-01',
    'lastModEndDate=2025-06-01',
    'start_cursor=true',
    'sort=port&order=asc',
  ])('%s is a known parameter (200)', async (query) => {
    const response = await t.get(`${TI}?${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it('an impossible calendar date as a date-only value is a 400', async () => {
    expect((await t.get(`${TI}?pubStartDate=2025-02-30`)).status).toBe(400);
    expect((await t.get(`${TI}?updatedAtEndDate=2025-04-31`)).status).toBe(400);
  });

  // BUG (src/server/params.ts parseDateBound, DATE_TIME branch): the date-time form is checked by
  // regex and Date.parse only, and V8's Date.parse rolls 2025-02-30T00:00:00Z over to 2025-03-02,
  // so an impossible date is accepted (200, filtering from March 2nd) instead of a 400.
  it.each([
    'pubStartDate=2025-02-30T00:00:00Z',
    'updatedAtEndDate=2025-04-31T12:00:00Z',
    'lastModStartDate=2025-02-29T00:00:00Z',
  ])('an impossible calendar date as a date-time (%s) is a 400', async (query) => {
    const response = await t.get(`${TI}?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.errors.join(' ')).toContain(query.split('=')[0]);
  });
});
