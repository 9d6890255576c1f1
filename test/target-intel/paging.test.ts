import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { labelsInOrder, loadDataset, TI } from './dataset.js';
import { ASC_GROUPS, expectGroupedOrder, offsetLabels, RFC3339_UTC } from './helpers.js';

const SORTS = ['timestamp', 'date_added', 'ip', 'port'] as const;

describe.each(engineCases())('target-intel offset paging and sorting on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadDataset(t);
  });
  afterAll(async () => t?.close());

  it('defaults: page 1, limit 100, sort timestamp, order desc, exact meta', async () => {
    const response = await t.get(TI);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const { _benchmark, _meta, data } = response.body;
    expect(typeof _benchmark).toBe('number');
    expect(_benchmark).toBeGreaterThanOrEqual(0);
    expect(_meta).toMatchObject({
      index: 'target-intel',
      limit: 100,
      total_documents: 20,
      sort: 'timestamp',
      order: 'desc',
      page: 1,
      total_pages: 1,
      max_pages: 1,
      first_item: 1,
      last_item: 20,
      matches: [],
    });
    expect(_meta.timestamp).toMatch(RFC3339_UTC);
    expect(_meta).not.toHaveProperty('next_cursor');
    expect(_meta).not.toHaveProperty('cursor');
    expect(data).toHaveLength(20);
    expectGroupedOrder(labelsInOrder(response.body), [...ASC_GROUPS.timestamp].reverse());
  });

  it('splits the result into pages with exact meta arithmetic', async () => {
    const all = await offsetLabels(t, '');
    const served: string[] = [];
    for (const [page, size] of [
      [1, 7],
      [2, 7],
      [3, 6],
    ] as const) {
      const response = await t.get(`${TI}?limit=7&page=${page}`);
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(size);
      const first = (page - 1) * 7 + 1;
      expect(response.body._meta).toMatchObject({
        limit: 7,
        page,
        total_documents: 20,
        total_pages: 3,
        max_pages: 3,
        first_item: first,
        last_item: first + size - 1,
      });
      served.push(...labelsInOrder(response.body));
    }
    expect(served).toEqual(all);
    expect(new Set(served).size).toBe(20);
  });

  it.each([
    [1, 20, 20],
    [3, 7, 7],
    [7, 3, 3],
    [19, 2, 2],
    [20, 1, 1],
    [33, 1, 1],
    [100, 1, 1],
  ])('limit=%i: total_pages %i, max_pages %i', async (limit, totalPages, maxPages) => {
    const response = await t.get(`${TI}?limit=${limit}`);
    expect(response.status).toBe(200);
    expect(response.body._meta.total_pages).toBe(totalPages);
    expect(response.body._meta.max_pages).toBe(Math.min(totalPages, Math.floor(10000 / limit)));
    expect(response.body._meta.max_pages).toBe(maxPages);
    expect(response.body.data).toHaveLength(Math.min(limit, 20));
  });

  it.each([
    ['page=4&limit=7', 4, 7],
    ['page=2', 2, 100],
    ['page=100&limit=100', 100, 100],
    ['page=10000&limit=1', 10000, 1],
    ['page=5000&limit=2', 5000, 2],
  ])('a page past the end (%s) returns data: []', async (query, page, limit) => {
    const response = await t.get(`${TI}?${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toEqual([]);
    const first = (page - 1) * limit + 1;
    expect(response.body._meta).toMatchObject({
      page,
      limit,
      total_documents: 20,
      first_item: first,
      last_item: first - 1,
    });
  });

  it.each(['page=101&limit=100', 'page=101', 'page=10001&limit=1', 'page=5001&limit=2', 'page=1000&limit=11'])(
    'page × limit beyond 10000 (%s) is a 400',
    async (query) => {
      const response = await t.get(`${TI}?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe(true);
      expect(response.body.errors.join(' ')).toMatch(/\bpage\b/);
    },
  );

  describe.each(SORTS)('sort=%s', (sort) => {
    it('asc follows the expected order; desc is exactly its reverse', async () => {
      const asc = await offsetLabels(t, `sort=${sort}&order=asc`);
      const desc = await offsetLabels(t, `sort=${sort}&order=desc`);
      expectGroupedOrder(asc, ASC_GROUPS[sort]);
      expect(desc).toEqual([...asc].reverse());
      const meta = (await t.get(`${TI}?sort=${sort}&order=asc&limit=1`)).body._meta;
      expect(meta).toMatchObject({ sort, order: 'asc' });
    });

    it.each(['asc', 'desc'])('order=%s: pages of one record give the same total, stable order', async (order) => {
      const whole = await offsetLabels(t, `sort=${sort}&order=${order}`);
      const oneByOne: string[] = [];
      for (let page = 1; page <= 20; page++) {
        const response = await t.get(`${TI}?sort=${sort}&order=${order}&limit=1&page=${page}`);
        expect(response.body._meta.total_documents).toBe(20);
        oneByOne.push(...labelsInOrder(response.body));
      }
      expect(oneByOne).toEqual(whole);
      // The same request twice gives the same order.
      expect(await offsetLabels(t, `sort=${sort}&order=${order}`)).toEqual(whole);
    });
  });

  it('default order is desc for every sort field', async () => {
    for (const sort of SORTS) {
      const implicit = await offsetLabels(t, `sort=${sort}`);
      expect(implicit).toEqual(await offsetLabels(t, `sort=${sort}&order=desc`));
    }
  });

  it('sorts a filtered result by ip exactly', async () => {
    expect(await offsetLabels(t, 'cidr=192.0.2.0/24&sort=ip&order=asc')).toEqual([
      'R21',
      'R12',
      'R1',
      'R2',
      'R3',
      'R18',
      'R19',
    ]);
    expect(await offsetLabels(t, 'vendor=apache&sort=ip&order=desc')).toEqual(['R9', 'R4', 'R1', 'R16', 'R15']);
    expect(await offsetLabels(t, 'contains_cve=true&sort=date_added&order=asc')).toEqual([
      'R1',
      'R3',
      'R7',
      'R8',
      'R9',
      'R12',
      'R15',
    ]);
  });

  it('total_documents stays exact whatever the page', async () => {
    for (const [query, total] of [
      ['port=443&limit=2&page=3', 7],
      ['port=443&limit=2&page=4', 7],
      ['port=443&limit=2&page=5', 7],
      ['contains_cve=false&limit=5&page=3', 13],
    ] as const) {
      const response = await t.get(`${TI}?${query}`);
      expect(response.body._meta.total_documents, query).toBe(total);
    }
    const last = await t.get(`${TI}?port=443&limit=2&page=4`);
    expect(last.body.data).toHaveLength(1);
    expect(last.body._meta).toMatchObject({ first_item: 7, last_item: 7, total_pages: 4 });
  });

  it('show_pages=true adds page links as strings; show_query=true adds the query', async () => {
    const three = await t.get(`${TI}?limit=7&show_pages=true`);
    expect(three.body._meta.pages).toEqual(['1', '2', '3']);
    expect(three.body._meta.show_pages).toBe(true);
    const many = await t.get(`${TI}?limit=1&show_pages=true`);
    expect(many.body._meta.pages.every((p: unknown) => typeof p === 'string')).toBe(true);
    expect(many.body._meta.pages[0]).toBe('1');
    expect(many.body._meta.pages.at(-1)).toBe('20');
    const plain = await t.get(`${TI}?limit=7`);
    expect(plain.body._meta).not.toHaveProperty('pages');
    expect(plain.body._meta).not.toHaveProperty('opensearch_query');
    const query = await t.get(`${TI}?limit=7&show_query=true&cve=CVE-2021-41773`);
    expect(query.status).toBe(200);
    expect(typeof query.body._meta.opensearch_query).toBe('object');
    expect(query.body._meta.show_query).toBe(true);
  });
});
