import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, type AdvisoryPosition, type Storage } from '../../src/storage/index.js';
import { engineCases } from '../support/engines.js';
import { advisory, loadRecords } from './support.js';

/** Reading a feed generation whole, page by page, in the served order (what a backup archives). */

describe.each(engineCases())('advisory generation pages ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  async function readAll(feed: string, generation: number, limit: number) {
    const pages: string[][] = [];
    let after: AdvisoryPosition | undefined;
    for (;;) {
      const page = await storage.advisories.generationPage(feed, generation, after, limit);
      pages.push(page.map((hit) => `${hit.cveId}/${(hit.record as { containers: any }).containers.cna.title}`));
      if (page.length < limit) return pages;
      after = page[page.length - 1];
    }
  }

  it('pages the records a generation serves in (cve_id, record_id) order, each once', async () => {
    const ids = ['CVE-2024-0005', 'CVE-2023-0001', 'CVE-2024-0001', 'CVE-2023-0100', 'CVE-2024-0003'];
    await loadRecords(storage, 'paged', [...ids.map((id) => advisory(id, { title: 'v1' })), advisory('CVE-2022-0009')]);
    // The next generation changes one record, drops one and adds one.
    const next = [
      ...ids.map((id) => advisory(id, { title: id === 'CVE-2024-0001' ? 'v2' : 'v1' })),
      advisory('CVE-2025-0001', { title: 'new' }),
    ];
    const summary = await loadRecords(storage, 'paged', next);
    const generation = (await storage.advisories.feed('paged'))!.generation;
    expect(summary.records).toBe(6);

    const expected = [
      'CVE-2023-0001/v1',
      'CVE-2023-0100/v1',
      'CVE-2024-0001/v2',
      'CVE-2024-0003/v1',
      'CVE-2024-0005/v1',
      'CVE-2025-0001/new',
    ];
    expect(await readAll('paged', generation, 4)).toEqual([expected.slice(0, 4), expected.slice(4)]);
    expect(await readAll('paged', generation, 3)).toEqual([expected.slice(0, 3), expected.slice(3), []]);
    expect((await readAll('paged', generation, 100)).flat()).toEqual(expected);
    expect(await readAll('other', generation, 10)).toEqual([[]]);
  });
});
