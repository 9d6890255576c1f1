import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFeedItems } from '../../src/ingest/feeds/load.js';
import type { AdvisoryItem } from '../../src/ingest/advisories/types.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeErrors, validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';
import { ADVISORY, ADVISORY_SCHEMA, advisory, cveIds, loadRecords } from './support.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const cve = (n: number) => `CVE-2023-${String(1000 + n)}`;

describe.each(engineCases())('/v4/advisory paging ($name)', (engine) => {
  let t: TestApp;
  /** alpha: 30 records (two sharing a CVE id under different record ids); beta: 27. */
  const expectedOrder: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(engine);
    const alpha: AdvisoryItem[] = Array.from({ length: 29 }, (_, i) => ({
      kind: 'record',
      record: advisory(cve(29 - i)),
      sourceId: cve(29 - i),
    }));
    alpha.push({ kind: 'record', record: advisory(cve(5)), sourceId: 'OSV-2023-0005' });
    await loadFeedItems(t.storage, { name: 'alpha', description: 'alpha', adapter: 'osv' }, alpha);
    await loadRecords(
      t.storage,
      'beta',
      Array.from({ length: 27 }, (_, i) => advisory(cve(i * 2))),
    );
    for (let i = 1; i <= 29; i++) {
      expectedOrder.push(`alpha/${cve(i)}`);
      if (i === 5) expectedOrder.push(`alpha/${cve(5)}`);
    }
    for (let i = 0; i < 27; i++) expectedOrder.push(`beta/${cve(i * 2)}`);
    const now = Date.now();
    await loadRecords(t.storage, 'dated', [
      advisory('CVE-2024-0001', {}, { dateUpdated: iso(now - 2 * HOUR) }),
      advisory('CVE-2024-0002', {}, { dateUpdated: iso(now - 3 * DAY) }),
      advisory('CVE-2024-0003', {}, { dateUpdated: iso(now - 10 * DAY) }),
      advisory('CVE-2024-0004', {}, { dateUpdated: iso(now - 40 * DAY) }),
      advisory('CVE-2024-0005', {}),
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });

  const labelled = (body: any, feed: string) => cveIds(body).map((id) => `${feed}/${id}`);

  it('pages with page and limit: defaults 1 and 10, pages = ceil(filtered / limit), a page past the end is empty', async () => {
    const first = await t.get(`${ADVISORY}?name=alpha`);
    expect(first.body._meta).toEqual({ total: 30, filtered: 30, page: 1, pages: 3, limit: 10 });
    expect(labelled(first.body, 'alpha')).toEqual(expectedOrder.slice(0, 10));
    const third = await t.get(`${ADVISORY}?name=alpha&page=3&limit=10`);
    expect(labelled(third.body, 'alpha')).toEqual(expectedOrder.slice(20, 30));
    const spanning = await t.get(`${ADVISORY}?name=beta&page=2&limit=25`);
    expect(labelled(spanning.body, 'beta')).toEqual(expectedOrder.slice(30 + 25, 30 + 27));
    const past = await t.get(`${ADVISORY}?name=alpha&page=9&limit=10`);
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body._meta).toEqual({ total: 30, filtered: 30, page: 9, pages: 3, limit: 10 });
    const max = await t.get(`${ADVISORY}?name=alpha&limit=100`);
    expect(max.body.data).toHaveLength(30);
    expect(describeErrors(validateAgainst(ADVISORY_SCHEMA, max.body))).toEqual([]);
  });

  it('offset pages across feeds follow the (feed, cveId) order', async () => {
    const served: string[] = [];
    for (let page = 1; page <= 6; page++) {
      // An empty value counts as absent (as the clients send unset parameters).
      const response = await t.get(`${ADVISORY}?limit=11&page=${page}&vendor=`);
      expect(response.status).toBe(200);
      served.push(...response.body.data.map((r: any) => r.cveMetadata.cveId as string));
    }
    expect(served).toEqual([
      ...expectedOrder.map((k) => k.split('/')[1]!),
      'CVE-2024-0001',
      'CVE-2024-0002',
      'CVE-2024-0003',
      'CVE-2024-0004',
      'CVE-2024-0005',
    ]);
  });

  it('a cursor walk returns every record exactly once, carrying filters and limit; the last page has no next_cursor', async () => {
    let response = await t.get(`${ADVISORY}?start_cursor=yes&limit=7`);
    const seen: string[] = [];
    const pages: number[] = [];
    let previousCursor: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(describeErrors(validateAgainst(ADVISORY_SCHEMA, response.body))).toEqual([]);
      const meta = response.body._meta;
      pages.push(meta.page);
      expect(meta.limit).toBe(7);
      expect(meta.total).toBe(62);
      expect(meta.filtered).toBe(62);
      if (previousCursor) expect(meta.cursor).toBe(previousCursor);
      else expect(meta.cursor).toBeUndefined();
      seen.push(...response.body.data.map((r: any) => r.cveMetadata.cveId as string));
      if (meta.next_cursor === undefined) break;
      expect(response.body.data).toHaveLength(7);
      previousCursor = meta.next_cursor;
      response = await t.get(`${ADVISORY}?cursor=${encodeURIComponent(meta.next_cursor)}`);
    }
    expect(pages).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(seen).toHaveLength(62);
    expect(seen.slice(0, 57)).toEqual(expectedOrder.map((k) => k.split('/')[1]));
  });

  it('a filtered walk: the cursor alone continues it, repeating the same filters is allowed', async () => {
    let response = await t.get(`${ADVISORY}?name=beta&start_cursor=true&limit=4`);
    const seen = [...cveIds(response.body)];
    let repeat = true;
    while (response.body._meta.next_cursor) {
      const cursor = encodeURIComponent(response.body._meta.next_cursor);
      response = await t.get(`${ADVISORY}?cursor=${cursor}${repeat ? '&name=beta&limit=4' : ''}`);
      expect(response.status).toBe(200);
      repeat = !repeat;
      seen.push(...cveIds(response.body));
    }
    expect(seen.map((id) => `beta/${id}`)).toEqual(expectedOrder.slice(30));
  });

  it('a walk sees each existing record once while records are added in the middle of it', async () => {
    let response = await t.get(`${ADVISORY}?name=beta&start_cursor=true&limit=5`);
    const seen = [...cveIds(response.body)];
    let added = false;
    while (response.body._meta.next_cursor) {
      if (!added) {
        // Before and after the cursor position: only the later one can still be served.
        await loadRecords(t.storage, 'beta', [advisory('CVE-2023-0999'), advisory('CVE-2023-1051')], 'merge');
        added = true;
      }
      response = await t.get(`${ADVISORY}?cursor=${encodeURIComponent(response.body._meta.next_cursor)}`);
      seen.push(...cveIds(response.body));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => id !== 'CVE-2023-1051')).toEqual(expectedOrder.slice(30).map((k) => k.split('/')[1]));
    expect(seen).toContain('CVE-2023-1051');
    await loadRecords(
      t.storage,
      'beta',
      Array.from({ length: 27 }, (_, i) => advisory(cve(i * 2))),
    );
  });

  it.each<[string, string[]]>([
    ['updatedAfter=now-12h', ['CVE-2024-0001']],
    ['updatedAfter=now-1w', ['CVE-2024-0001', 'CVE-2024-0002']],
    ['updatedAfter=now-30d', ['CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003']],
    ['updatedAfter=now-30d/d', ['CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003']],
    ['updatedBefore=now-30d', ['CVE-2024-0004']],
    ['updatedAfter=now-45d&updatedBefore=now-1w', ['CVE-2024-0003', 'CVE-2024-0004']],
    ['updatedAfter=now', []],
    [`updatedAfter=${iso(Date.now() - 3 * DAY - HOUR)}`, ['CVE-2024-0001', 'CVE-2024-0002']],
  ])('date math: %s', async (query, expected) => {
    const response = await t.get(`${ADVISORY}?name=dated&${query.replace(/\+/g, '%2B')}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(cveIds(response.body)).toEqual(expected);
  });

  it.each<[string, RegExp]>([
    ['page=2&start_cursor=true', /parameter "page" cannot be combined with "start_cursor"/],
    ['page=1&cursor=abc', /parameter "page" cannot be combined with "cursor"/],
    ['cursor=abc', /parameter "cursor" is malformed or has been tampered with/],
    ['limit=0', /parameter "limit" must be between 1 and 100/],
    ['limit=101', /parameter "limit" must be between 1 and 100/],
    ['limit=ten', /parameter "limit" must be a whole number/],
    ['page=0', /parameter "page" must be between 1/],
    ['page=-1', /parameter "page" must be a whole number/],
    ['feed=alpha', /unknown parameter "feed"/],
    ['name=alpha&name=beta', /parameter "name" must be given once/],
    ['name=nope', /parameter "name": unknown feed "nope"/],
    ['name=Not%20A%20Feed', /parameter "name": unknown feed/],
    ['cve_id=2021-44228', /parameter "cve_id" must look like CVE-YYYY-NNNN/],
    ['cve_id=CVE%202021', /parameter "cve_id" must look like CVE-YYYY-NNNN/],
    ['description_lang=english!', /parameter "description_lang" must be a value like en or en-US/],
    ['updatedAfter=yesterday', /parameter "updatedAfter": expected an RFC 3339 date-time/],
    ['updatedBefore=now-3x', /parameter "updatedBefore"/],
    ['vendor=%20', /parameter "vendor" must not be blank/],
  ])('400 for %s', async (query, message) => {
    const response = await t.get(`${ADVISORY}?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: true, errors: [expect.stringMatching(message)] });
    expect(describeErrors(validateAgainst('search.ErrorResponse', response.body))).toEqual([]);
  });

  it('rejects a tampered cursor, and one whose filters or limit are changed mid-walk', async () => {
    const first = await t.get(`${ADVISORY}?name=alpha&start_cursor=true&limit=5`);
    const cursor: string = first.body._meta.next_cursor;
    const [payload, signature] = cursor.split('.');
    const state = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    state.l = 100;
    const forged = `${Buffer.from(JSON.stringify(state)).toString('base64url')}.${signature}`;
    for (const [query, message] of [
      [`cursor=${encodeURIComponent(forged)}`, /tampered/],
      [`cursor=${encodeURIComponent(`${cursor.slice(0, -2)}xx`)}`, /tampered/],
      [`cursor=${encodeURIComponent(cursor)}&name=beta`, /parameter "name" differs from the cursor's/],
      [`cursor=${encodeURIComponent(cursor)}&limit=6`, /parameter "limit" differs from the cursor's/],
    ] as const) {
      const response = await t.get(`${ADVISORY}?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.errors[0]).toMatch(message);
    }
  });

  it('lists the feeds with absolute links built from the public URL', async () => {
    const response = await t.get('/v4/advisory/list');
    expect(response.status).toBe(200);
    expect(describeErrors(validateAgainst('search.V4ListFeedReturnValue', response.body))).toEqual([]);
    const byName = new Map(response.body.data.map((item: any) => [item.name, item]));
    for (const name of [
      'alpha',
      'beta',
      'dated',
      'mitre-cvelist-v5',
      'nist-nvd2',
      'cisa-kev',
      'go-vulndb',
      'pypa',
      'rustsec',
    ]) {
      expect(byName.get(name), name).toEqual({
        name,
        description: expect.any(String),
        href: `${t.config.publicUrl}/v4/advisory?name=${name}`,
      });
    }
    expect(response.body.data.map((item: any) => item.name)).toEqual([...byName.keys()].sort());
    expect((await t.get('/v4/advisory/list?limit=1')).status).toBe(400);
  });
});
