import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import type { Observation } from '../../src/core/observation.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { ALL_LABELS, at, DATASET, labelOf, loadDataset, TI, type Label } from './dataset.js';
import { ASC_GROUPS, expectGroupedOrder, offsetLabels, servedLabels, walk } from './helpers.js';

type Obs = Partial<Observation> & { ip: string; port: number };

/** The dataset's observation of a label (the latest one). */
const obsOf = (label: Label): Obs => DATASET.filter(([l]) => l === label).at(-1)![1];

/** Identity of a served record: its key as far as the API shows it (ip, port, protocol, CPEs, fingerprints). */
const identity = (r: any) =>
  `${r.ip} ${r.port}/${r.protocol} ${JSON.stringify(r.fingerprints.map((f: any) => [f.cpe, f.vendor, f.product, f.version]))}`;

function tamper(cursor: string, where: 'payload' | 'signature'): string {
  const dot = cursor.lastIndexOf('.');
  const index = where === 'payload' ? Math.floor(dot / 2) : dot + 1 + Math.floor((cursor.length - dot - 1) / 2);
  const char = cursor[index] === 'A' ? 'B' : 'A';
  return cursor.slice(0, index) + char + cursor.slice(index + 1);
}

describe.each(engineCases())('target-intel cursor paging on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadDataset(t);
  });
  afterAll(async () => t?.close());

  it('start_cursor=true serves page 1 with next_cursor; cursor alone walks to the end, each record once', async () => {
    const pages = await walk(t, 'start_cursor=true&limit=6');
    expect(pages.map((p) => p.data.length)).toEqual([6, 6, 6, 2]);
    pages.forEach((page, i) => {
      expect(page._meta).toMatchObject({
        index: 'target-intel',
        limit: 6,
        page: i + 1,
        total_documents: 20,
        sort: 'timestamp',
        order: 'desc',
        first_item: i * 6 + 1,
        last_item: i * 6 + page.data.length,
      });
      if (i < pages.length - 1) expect(typeof page._meta.next_cursor).toBe('string');
      if (i < pages.length - 1) expect(page._meta.next_cursor.length).toBeGreaterThan(0);
    });
    // The last page omits next_cursor (not "" and not null).
    expect(pages.at(-1)._meta).not.toHaveProperty('next_cursor');
    expect(pages[0]._meta).not.toHaveProperty('cursor');
    const served = servedLabels(pages);
    expect(served).toEqual(await offsetLabels(t, ''));
    expect([...served].sort()).toEqual([...ALL_LABELS].sort());
  });

  it('echoes the cursor used in _meta.cursor', async () => {
    const first = await t.get(`${TI}?start_cursor=true&limit=15`);
    const cursor = first.body._meta.next_cursor;
    const second = await t.get(`${TI}?cursor=${encodeURIComponent(cursor)}`);
    expect(second.status).toBe(200);
    expect(second.body._meta.cursor).toBe(cursor);
    expect(second.body.data).toHaveLength(5);
    expect(second.body._meta).not.toHaveProperty('next_cursor');
  });

  it.each([
    [5, [5, 5, 5, 5]],
    [10, [10, 10]],
    [19, [19, 1]],
    [20, [20]],
    [100, [20]],
    [150, [20]],
    [2000, [20]],
  ])('limit=%i: page sizes %j, no next_cursor after the last record', async (limit, sizes) => {
    const pages = await walk(t, `start_cursor=true&limit=${limit}`);
    expect(pages.map((p) => p.data.length)).toEqual(sizes);
    expect(pages.at(-1)._meta).not.toHaveProperty('next_cursor');
    expect(pages.every((p) => p._meta.limit === limit)).toBe(true);
    expect(new Set(servedLabels(pages)).size).toBe(20);
  });

  it('an empty result has no next_cursor', async () => {
    const response = await t.get(`${TI}?start_cursor=true&cve=CVE-1999-0001`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body._meta.total_documents).toBe(0);
    expect(response.body._meta).not.toHaveProperty('next_cursor');
  });

  it('the cursor carries filters, sort, order and limit', async () => {
    const pages = await walk(t, 'start_cursor=true&limit=2&vendor=apache&sort=ip&order=asc');
    expect(pages.map((p) => p.data.map(labelOf))).toEqual([['R15', 'R16'], ['R1', 'R4'], ['R9']]);
    for (const page of pages) {
      expect(page._meta).toMatchObject({ sort: 'ip', order: 'asc', limit: 2, total_documents: 5 });
      expect(page._meta.matches).toEqual([{ field: 'vendor', value: 'apache' }]);
    }
  });

  it.each(['timestamp', 'date_added', 'ip', 'port'] as const)(
    'sort=%s: a cursor walk (limit 3) serves the same order as offset paging, both directions',
    async (sort) => {
      for (const order of ['asc', 'desc']) {
        const pages = await walk(t, `start_cursor=true&limit=3&sort=${sort}&order=${order}`);
        const served = servedLabels(pages);
        expect(served).toEqual(await offsetLabels(t, `sort=${sort}&order=${order}`));
        expectGroupedOrder(served, order === 'asc' ? ASC_GROUPS[sort] : [...ASC_GROUPS[sort]].reverse());
      }
    },
  );

  it('a walk over a filtered set with ties on the sort key (port=443, sort=port)', async () => {
    const pages = await walk(t, 'start_cursor=true&limit=2&port=443&sort=port&order=desc');
    const served = servedLabels(pages);
    expect([...served].sort()).toEqual(['R1', 'R15', 'R19', 'R21', 'R5', 'R7', 'R9']);
    expect(served).toEqual(await offsetLabels(t, 'port=443&sort=port&order=desc'));
  });

  it("repeating the walk's own parameters beside cursor is allowed", async () => {
    const first = await t.get(`${TI}?start_cursor=true&limit=2&vendor=apache&sort=ip&order=asc`);
    const cursor = encodeURIComponent(first.body._meta.next_cursor);
    const alone = await t.get(`${TI}?cursor=${cursor}`);
    const repeated = await t.get(`${TI}?cursor=${cursor}&vendor=apache&sort=ip&order=asc&limit=2`);
    expect(repeated.status).toBe(200);
    expect(repeated.body.data).toEqual(alone.body.data);
  });

  it("changing the walk's parameters beside cursor is a 400 naming the parameter", async () => {
    const first = await t.get(`${TI}?start_cursor=true&limit=2&vendor=apache&sort=ip&order=asc`);
    const cursor = encodeURIComponent(first.body._meta.next_cursor);
    for (const [change, parameter] of [
      ['limit=3', 'limit'],
      ['vendor=nginx', 'vendor'],
      ['sort=port', 'sort'],
      ['order=desc', 'order'],
      ['cve=CVE-2021-41773', 'cve'],
    ]) {
      const response = await t.get(`${TI}?cursor=${cursor}&${change}`);
      expect(response.status, change).toBe(400);
      expect(response.body.errors.join(' '), change).toContain(parameter);
    }
  });

  it('limit may reach 2000 in cursor mode, not beyond', async () => {
    expect((await t.get(`${TI}?start_cursor=true&limit=2000`)).status).toBe(200);
    const over = await t.get(`${TI}?start_cursor=true&limit=2001`);
    expect(over.status).toBe(400);
    expect(over.body.errors.join(' ')).toContain('limit');
    // Offset mode stays at 100.
    expect((await t.get(`${TI}?limit=150`)).status).toBe(400);
  });

  it('a tampered, truncated or malformed cursor is a 400 naming cursor', async () => {
    const first = await t.get(`${TI}?start_cursor=true&limit=3&sort=ip`);
    const cursor: string = first.body._meta.next_cursor;
    const payload = cursor.slice(0, cursor.lastIndexOf('.'));
    const signature = cursor.slice(cursor.lastIndexOf('.') + 1);
    // A payload that asks for a different walk (bigger limit) keeps the old signature.
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), l: 2000 }),
    ).toString('base64url');
    const bad = [
      tamper(cursor, 'payload'),
      tamper(cursor, 'signature'),
      `${forged}.${signature}`,
      cursor.slice(0, -3),
      payload,
      `.${signature}`,
      'garbage',
      'a.b.c',
      '%00',
      '!!!!.????',
    ];
    for (const value of bad) {
      const response = await t.get(`${TI}?cursor=${encodeURIComponent(value)}`);
      expect(response.status, value).toBe(400);
      expect(response.body.error).toBe(true);
      expect(response.body.errors.join(' ')).toMatch(/\bcursor\b/);
    }
  });

  it('a cursor signed by another server (another secret) is refused', async () => {
    const other = await startTestApp(engine);
    try {
      await other.ingest(DATASET.map(([, o]) => o));
      const first = await other.get(`${TI}?start_cursor=true&limit=3`);
      const response = await t.get(`${TI}?cursor=${encodeURIComponent(first.body._meta.next_cursor)}`);
      expect(response.status).toBe(400);
      expect(response.body.errors.join(' ')).toMatch(/\bcursor\b/);
    } finally {
      await other.close();
    }
  });

  it('page together with start_cursor or cursor is a 400', async () => {
    const first = await t.get(`${TI}?start_cursor=true&limit=3`);
    for (const query of [
      'start_cursor=true&page=1',
      'start_cursor=true&page=2&limit=3',
      `cursor=${encodeURIComponent(first.body._meta.next_cursor)}&page=2`,
    ]) {
      const response = await t.get(`${TI}?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.errors.join(' ')).toMatch(/\bpage\b/);
    }
  });
});

describe.each(engineCases())('target-intel cursor walks while records change on $name', (engine) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(engine);
    await loadDataset(t);
  });
  afterEach(async () => t?.close());

  /** Runs a walk with `change(page)` between pages; checks no duplicates and every unchanged record once. */
  async function walkWhileChanging(firstQuery: string, change: (page: number) => Promise<Label[]>) {
    const changed = new Set<string>();
    const pages = await walk(t, firstQuery, async (page) => {
      for (const label of await change(page)) changed.add(label);
    });
    const records = pages.flatMap((p) => p.data);
    const identities = records.map(identity);
    expect(identities.length, `duplicates in ${identities.join(' | ')}`).toBe(new Set(identities).size);
    const keys = records.map((r) => `${r.ip} ${r.port}/${r.protocol}`);
    expect(keys.length, `a port served twice: ${keys.join(', ')}`).toBe(new Set(keys).size);
    const served = records.map(labelOf);
    for (const label of ALL_LABELS.filter((l) => !changed.has(l))) {
      expect(
        served.filter((l) => l === label),
        `${label} (unchanged) served exactly once`,
      ).toHaveLength(1);
    }
    return { pages, served, changed };
  }

  it('sort=timestamp desc: updates, inserts and supersessions between pages', async () => {
    const { served } = await walkWhileChanging('start_cursor=true&limit=4', async (page) => {
      if (page === 1) {
        await t.ingest([
          // R17 was served on page 1; R3 was not yet: both re-scanned (newer, same key).
          { ...obsOf('R17'), timestamp: at('2025-06-12T00:00:00Z') },
          { ...obsOf('R3'), timestamp: at('2025-06-12T01:00:00Z') },
          // A new record newer than everything.
          { ip: '192.0.2.200', port: 443, timestamp: at('2025-06-12T02:00:00Z') },
          // R2's port now runs another nginx: R2 is superseded (deleted), a new record inserted.
          {
            ip: '192.0.2.11',
            port: 80,
            timestamp: at('2025-06-12T03:00:00Z'),
            fingerprints: [{ cpe: 'cpe:2.3:a:f5:nginx:1.27.0:*:*:*:*:*:*:*' }],
          },
          // A late, older observation of R5: changes nothing.
          { ...obsOf('R5'), timestamp: at('2025-06-01T00:00:00Z') },
        ]);
        return ['R17', 'R3', 'R2'];
      }
      if (page === 2) {
        await t.ingest([
          // New records placed in the middle of what is still to come.
          { ip: '192.0.2.201', port: 80, timestamp: at('2025-06-05T00:00:00Z') },
          { ip: '192.0.2.202', port: 80, timestamp: at('2025-06-03T00:00:00Z') },
          { ...obsOf('R6'), timestamp: at('2025-06-12T04:00:00Z') },
        ]);
        return ['R6'];
      }
      return [];
    });
    expect(served.filter((l) => l === 'R17')).toHaveLength(1);
    expect(served.filter((l) => l === 'R2').length).toBeLessThanOrEqual(1);
  });

  it('sort=ip asc: records inserted ahead of and behind the cursor, deleted and updated', async () => {
    await walkWhileChanging('start_cursor=true&limit=3&sort=ip&order=asc', async (page) => {
      if (page === 1) {
        // Page 1 held R14, R15, R16.
        await t.ingest([
          { ip: '10.1.2.1', port: 80, timestamp: at('2025-06-10T00:00:00Z') }, // behind the cursor
          { ip: '192.0.2.200', port: 80, timestamp: at('2025-06-10T00:00:00Z') }, // ahead
          { ip: '2001:db8::1', port: 80, timestamp: at('2025-06-10T00:00:00Z') }, // ahead, IPv6
          { ...obsOf('R15'), timestamp: at('2025-06-12T00:00:00Z') }, // served, updated
          {
            ...obsOf('R4'),
            timestamp: at('2025-06-12T00:00:00Z'),
            fingerprints: [{ cpe: 'cpe:2.3:a:apache:http_server:2.4.62:*:*:*:*:*:*:*' }],
          }, // R4 superseded
        ]);
        return ['R15', 'R4'];
      }
      if (page === 3) {
        await t.ingest([{ ...obsOf('R9'), timestamp: at('2025-06-12T00:00:00Z'), hostnames: ['renamed.example.com'] }]);
        return ['R9'];
      }
      return [];
    });
  });

  it('sort=port asc, limit 2: a change between every page', async () => {
    let n = 0;
    await walkWhileChanging('start_cursor=true&limit=2&sort=port&order=asc', async () => {
      n += 1;
      await t.ingest([
        { ip: `198.51.100.${100 + n}`, port: 443, timestamp: at('2025-06-10T00:00:00Z') },
        { ip: `198.51.100.${150 + n}`, port: 22, timestamp: at('2025-06-10T00:00:00Z') },
      ]);
      return [];
    });
  });

  it('records changed after the walk started are left out of it; the next walk sees them', async () => {
    const first = await t.get(`${TI}?start_cursor=true&limit=5&sort=ip&order=asc`);
    await t.ingest([{ ip: '203.0.113.250', port: 80, timestamp: at('2025-06-10T00:00:00Z') }]);
    const pages = [first.body];
    let cursor = first.body._meta.next_cursor;
    while (cursor) {
      const response = await t.get(`${TI}?cursor=${encodeURIComponent(cursor)}`);
      pages.push(response.body);
      cursor = response.body._meta.next_cursor;
    }
    expect(servedLabels(pages)).not.toContain('203.0.113.250 80/tcp');
    expect(servedLabels(pages)).toHaveLength(20);
    const fresh = await walk(t, 'start_cursor=true&limit=5&sort=ip&order=asc');
    expect(servedLabels(fresh)).toContain('203.0.113.250 80/tcp');
    expect(servedLabels(fresh)).toHaveLength(21);
  });
});
