import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdvisoryItem } from '../../src/ingest/advisories/types.js';
import { LoadRefused } from '../../src/core/load-guard.js';
import { loadFeedItems, loadFeedSources, recordsAsItems, type FeedLoadOptions } from '../../src/ingest/feeds/load.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { createStorage } from '../../src/storage/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { ADVISORY, advisory, cveIds, loadRecords } from './support.js';

/** Loading feeds: idempotent, incremental, failure-safe, one load at a time, atomic replacement. */

const records = (prefix: string, count: number, marker: string, start = 0) =>
  Array.from({ length: count }, (_, i) =>
    advisory(`CVE-${prefix}-${String(10000 + start + i)}`, { title: marker }, { dateUpdated: '2024-01-01T00:00:00Z' }),
  );

describe.each(engineCases())('advisory feed loads ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('loading the same content again changes nothing; changed, new and missing records are counted', async () => {
    const first = await loadRecords(t.storage, 'incremental', records('2020', 40, 'v1'));
    expect(first).toMatchObject({ added: 40, updated: 0, unchanged: 0, removed: 0, records: 40 });
    const again = await loadRecords(t.storage, 'incremental', records('2020', 40, 'v1'));
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 40, removed: 0, records: 40 });
    const next = [
      ...records('2020', 5, 'v2'), // 0..4 changed
      ...records('2020', 30, 'v1', 5), // 5..34 unchanged; 35..39 gone
      ...records('2020', 3, 'v1', 40), // 40..42 new
    ];
    const changed = await loadRecords(t.storage, 'incremental', next);
    expect(changed).toMatchObject({ added: 3, updated: 5, unchanged: 30, removed: 5, records: 38 });
    const merged = await loadRecords(t.storage, 'incremental', records('2020', 2, 'v3', 100), 'merge');
    expect(merged).toMatchObject({ added: 2, removed: 0, records: 40 });
    const response = await t.get(`${ADVISORY}?name=incremental&limit=100`);
    expect(response.body._meta.total).toBe(40);
    expect(response.body.data.filter((r: any) => r.containers.cna.title === 'v2')).toHaveLength(5);
    // No row of an earlier generation is left behind.
    const rows = await t.storage.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM advisories WHERE feed = ?`, [
      'incremental',
    ]);
    expect(Number(rows!.n)).toBe(40);
  });

  it('a record repeated within one load counts once, the last one wins', async () => {
    const summary = await loadRecords(t.storage, 'repeats', [
      ...records('2021', 3, 'first'),
      ...records('2021', 1, 'second'),
    ]);
    expect(summary).toMatchObject({ added: 3, records: 3 });
    const response = await t.get(`${ADVISORY}?name=repeats&cve_id=CVE-2021-10000`);
    expect(response.body.data[0].containers.cna.title).toBe('second');
  });

  it('reports a record that fails to convert with its id and reason, and loads the rest', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-rejects-'));
    const file = path.join(dir, 'records.ndjson');
    const good = advisory('CVE-2022-0001');
    fs.writeFileSync(
      file,
      [
        JSON.stringify(good),
        '{"dataType": "CVE_RECORD", "cveMetadata": {"cveId": "CVE-2022-0002"}, "containers": {}}',
        '{not json',
        JSON.stringify(advisory('CVE-2022-0003')),
      ].join('\n'),
    );
    const rejections: Array<{ sourceId: string; at: string; reason: string }> = [];
    const summary = await loadFeedSources(t.storage, new FeedRegistry().get('mitre-cvelist-v5')!, [file], {
      onRejected: (r) => rejections.push(r),
      guard: { maxRejected: 0.5 }, // half the input rejected: more than the default guard lets through
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(summary).toMatchObject({ read: 4, rejected: 2, records: 2 });
    expect(rejections).toEqual([
      { sourceId: 'CVE-2022-0002', at: expect.stringContaining('records.ndjson'), reason: expect.any(String) },
      { sourceId: '', at: expect.stringContaining('records.ndjson'), reason: expect.any(String) },
    ]);
    const response = await t.get(`${ADVISORY}?name=mitre-cvelist-v5`);
    expect(cveIds(response.body)).toEqual(['CVE-2022-0001', 'CVE-2022-0003']);
  });

  describe('the load guard: a load that would lose a feed changes nothing', () => {
    const feedRow = async (name: string) =>
      t.storage.db.get<{ generation: number; record_count: number; source: string | null }>(
        `SELECT generation, record_count, source FROM advisory_feeds WHERE name = ?`,
        [name],
      );
    const items = (good: number, bad: number, start = 0): AdvisoryItem[] => [
      ...records('2016', good, 'new', start).map(
        (record): AdvisoryItem => ({ kind: 'record', record, sourceId: record.cveMetadata.cveId }),
      ),
      ...Array.from(
        { length: bad },
        (_, i): AdvisoryItem => ({ kind: 'rejected', sourceId: '', at: `bad.json:${i + 1}`, reason: 'not a record' }),
      ),
    ];
    const load = (name: string, input: AdvisoryItem[], options: FeedLoadOptions = {}) =>
      loadFeedItems(t.storage, { name, description: 'x', adapter: 'osv' }, input, { source: 'bad.json', ...options });

    it('a replacing load with no valid record is refused; the feed keeps its generation, records and source', async () => {
      await load('guarded', items(20, 0), { source: 'good.json' });
      const before = await feedRow('guarded');
      for (const input of [items(0, 0), items(0, 3)]) {
        const refused = await load('guarded', input).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(LoadRefused);
        expect((refused as LoadRefused).message).toMatch(
          /^feed guarded not replaced: (nothing was read|all 3 records read) from bad\.json.*; it keeps its 20 records$/,
        );
        expect(await feedRow('guarded')).toEqual(before);
      }
      expect(before).toMatchObject({ record_count: 20, source: 'good.json' });
      const response = await t.get(`${ADVISORY}?name=guarded&limit=100`);
      expect(response.body._meta.total).toBe(20);
      // The lock is released: the next load goes through.
      expect(await load('guarded', items(5, 0), { source: 'next.json' })).toMatchObject({ removed: 15, records: 5 });
    });

    it('more than 1 % rejected is refused, up to 1 % loads; --max-rejected and --allow-empty override', async () => {
      await load('shares', items(200, 0), { source: 'good.json' });
      const refused = await load('shares', items(198, 3)).catch((error: unknown) => error);
      expect(refused).toMatchObject({
        status: 422,
        code: 'load_refused',
        overrides: { maxRejectedPercent: 2 },
        message: expect.stringMatching(
          /3 of 201 records read from bad\.json were rejected \(1\.5%, more than the 1% allowed\)/,
        ),
      });
      expect(await feedRow('shares')).toMatchObject({ record_count: 200, source: 'good.json' });
      expect(await load('shares', items(198, 2))).toMatchObject({ rejected: 2, records: 198 });
      expect(await load('shares', items(190, 10), { guard: { maxRejected: 0.05 } })).toMatchObject({ records: 190 });
      const emptied = await load('shares', items(0, 0), { guard: { allowEmpty: true } });
      expect(emptied).toMatchObject({ removed: 190, records: 0 });
      expect(await feedRow('shares')).toMatchObject({ record_count: 0, source: 'bad.json' });
    });

    it('a merging load has the same guard: nothing is added or updated', async () => {
      await load('merged', items(10, 0), { source: 'good.json' });
      await expect(load('merged', items(5, 5, 100), { mode: 'merge' })).rejects.toThrow(
        /^feed merged not merged: 5 of 10 records .* were rejected .*; nothing was added or updated$/,
      );
      await expect(load('merged', items(0, 0), { mode: 'merge' })).rejects.toBeInstanceOf(LoadRefused);
      expect(await feedRow('merged')).toMatchObject({ record_count: 10, source: 'good.json' });
    });

    it('a refused first load of a feed leaves no feed behind', async () => {
      await expect(load('never-loaded', items(0, 4))).rejects.toThrow(
        /^feed never-loaded not loaded: all 4 records read from bad\.json were rejected$/,
      );
      expect(await feedRow('never-loaded')).toBeUndefined();
    });
  });

  it('a load that fails leaves the feed as it was, and the next load succeeds', async () => {
    await loadRecords(t.storage, 'failing', records('2019', 10, 'old'));
    async function* breaksHalfway(): AsyncIterable<AdvisoryItem> {
      yield* recordsAsItems(records('2019', 6, 'new', 20));
      throw new Error('source broke');
    }
    await expect(
      loadFeedItems(t.storage, { name: 'failing', description: 'x', adapter: 'mitre-cvelist-v5' }, breaksHalfway(), {
        batchSize: 2,
      }),
    ).rejects.toThrow('source broke');
    const after = await t.get(`${ADVISORY}?name=failing&limit=100`);
    expect(after.body._meta.total).toBe(10);
    expect(after.body.data.every((r: any) => r.containers.cna.title === 'old')).toBe(true);
    const retry = await loadRecords(t.storage, 'failing', records('2019', 4, 'new', 20));
    expect(retry).toMatchObject({ added: 4, removed: 10, records: 4 });
  });

  it('one load per feed at a time: a second one is refused, a dead one (no heartbeat) is taken over', async () => {
    const load = await t.storage.advisories.startLoad({
      feed: 'locked',
      description: 'x',
      adapter: 'osv',
      mode: 'replace',
    });
    await load.put(records('2018', 3, 'a').map((record) => ({ recordId: record.cveMetadata.cveId, record })));
    await expect(
      t.storage.advisories.startLoad({ feed: 'locked', description: 'x', adapter: 'osv', mode: 'replace' }),
    ).rejects.toMatchObject({
      status: 409,
    });
    await t.storage.db.run(`UPDATE advisory_feeds SET loading_heartbeat = ? WHERE name = ?`, [
      Date.now() - 3_600_000,
      'locked',
    ]);
    const takeover = await t.storage.advisories.startLoad({
      feed: 'locked',
      description: 'x',
      adapter: 'osv',
      mode: 'replace',
    });
    await takeover.put(records('2018', 2, 'b', 50).map((record) => ({ recordId: record.cveMetadata.cveId, record })));
    await expect(
      load.put(records('2018', 1, 'a', 9).map((record) => ({ recordId: record.cveMetadata.cveId, record }))),
    ).rejects.toMatchObject({
      status: 409,
    });
    expect(await takeover.finish()).toMatchObject({ added: 2, records: 2 });
    const response = await t.get(`${ADVISORY}?name=locked`);
    expect(cveIds(response.body)).toEqual(['CVE-2018-10050', 'CVE-2018-10051']);
  });

  it('replacing a feed is atomic: every query during the reload sees the old or the new feed, never a mix', async () => {
    await loadRecords(t.storage, 'atomic', records('2017', 300, 'old'));
    const observed: string[] = [];
    let loading = true;
    const reader = (async () => {
      while (loading) {
        const response = await t.get(`${ADVISORY}?name=atomic&limit=100&page=2`);
        expect(response.status).toBe(200);
        const markers = new Set(response.body.data.map((r: any) => r.containers.cna.title));
        const { total, filtered } = response.body._meta;
        observed.push(`${total}/${filtered}/${[...markers].join('+')}/${response.body.data.length}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    // New content: 250 records, 150 of them new ids, all with a new marker; written in small batches
    // by another connection (as `vulnscope ingest` or `sync` would, beside a running server).
    const loader = await createStorage(t.config.database);
    async function* slowly(): AsyncIterable<AdvisoryItem> {
      for await (const item of recordsAsItems(records('2017', 250, 'new', 150))) {
        yield item;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    try {
      await loadFeedItems(loader, { name: 'atomic', description: 'x', adapter: 'mitre-cvelist-v5' }, slowly(), {
        batchSize: 10,
      });
    } finally {
      loading = false;
      await reader;
      await loader.close();
    }
    expect(observed.filter((o) => o.startsWith('300/')).length, 'queries ran during the load').toBeGreaterThan(3);
    const final = await t.get(`${ADVISORY}?name=atomic&limit=100&page=2`);
    observed.push(
      `${final.body._meta.total}/${final.body._meta.filtered}/${final.body.data[0].containers.cna.title}/${final.body.data.length}`,
    );
    expect(observed.length).toBeGreaterThan(1);
    expect(new Set(observed.map((o) => (o === '300/300/old/100' || o === '250/250/new/100' ? 'ok' : o)))).toEqual(
      new Set(['ok']),
    );
    expect(observed[observed.length - 1]).toBe('250/250/new/100');
  });
});
