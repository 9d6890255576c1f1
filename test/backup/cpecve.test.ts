/**
 * The `cpecve` index backup: written from the CPE names and the per-product CVE structures, listed
 * by /v3/backup and /v3/index once written, downloadable through its signed URL, laid out as the
 * official CLI's offline import reads it (top-level `cpecve-*.json` NDJSON members, flat columns),
 * and holding exactly what /v3/search/cpe answers for every name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBackup } from '../../src/backup/service.js';
import { BackupStore } from '../../src/backup/store.js';
import { loadFeedSources } from '../../src/ingest/feeds/load.js';
import { ingestCpeDictionary, readCpeDictionarySources } from '../../src/ingest/knowledge/dictionary.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { cpeCveSource } from '../../src/services/index-backups.js';
import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';
import { download, recordsOf, sha256, startBackupApp, unzip, type BackupTestApp } from './support.js';

const DICTIONARY = fixture('cpe/nvd_cpe_dictionary_api2_samples.jsonl');
const MATCHES = fixture('cpe/nvd_cpematch_api2_samples.jsonl');

type Item = { cpe: string; cpe_struct: Record<string, string>; cves: string[] };

describe.each(engineCases())('the cpecve index backup ($name)', (engine) => {
  let t: BackupTestApp;
  let store: BackupStore;

  beforeAll(async () => {
    t = await startBackupApp(engine, { VULNSCOPE_BACKUP_INTERVAL: '0' });
    store = new BackupStore(t.backupDir);
  });
  afterAll(async () => t?.close());

  /** Every name through /v3/search/cpe, page by page (the samples stay inside the window). */
  async function searchedItems(): Promise<Item[]> {
    const items: Item[] = [];
    for (let page = 1; ; page++) {
      const { status, body } = await t.get(`/v3/search/cpe?limit=100&page=${page}`);
      expect(status).toBe(200);
      items.push(...(body.data as Item[]));
      if (page >= body._meta.total_pages) return items;
    }
  }

  it('is not offered before knowledge exists, then is written, listed and downloadable', async () => {
    const empty = cpeCveSource(t.storage);
    expect(await empty.version()).toBeUndefined();
    expect((await t.get('/v3/backup')).body.data.map((entry: { name: string }) => entry.name)).toEqual([
      'target-intel',
    ]);
    expect((await t.get('/v3/backup/cpecve')).status).toBe(404);

    await ingestCpeDictionary(t.storage, readCpeDictionarySources([DICTIONARY, MATCHES]));
    await loadFeedSources(t.storage, new FeedRegistry().get('nist-nvd2')!, [fixture('nvd')]);
    const written = await writeBackup(store, cpeCveSource(t.storage), 3);
    expect(written.meta?.records).toBeGreaterThan(0);

    for (const list of ['/v3/backup', '/v3/index']) {
      const { body } = await t.get(list);
      expect(body.data.map((entry: { name: string }) => entry.name)).toEqual(['target-intel', 'cpecve']);
    }
    const one = await t.get('/v3/backup/cpecve');
    expect(one.status).toBe(200);
    const first = one.body.data[0];
    expect(first.filename).toMatch(/^cpecve-\d+\.zip$/);
    const file = await download(t, first.url);
    expect(file.status).toBe(200);
    expect(sha256(file.body)).toBe(first.sha256);

    const members = await unzip(file.body);
    // The CLI globs `*.json` at the top of the extracted folder and imports each as NDJSON.
    expect(members.filter((m) => m.name.endsWith('.json')).every((m) => /^cpecve-\d{6}\.json$/.test(m.name))).toBe(
      true,
    );
    const records = recordsOf(members) as Array<Item & Record<string, unknown>>;
    expect(records).toHaveLength(written.meta!.records);

    const searched = await searchedItems();
    expect(records.map(({ cpe, cpe_struct, cves }) => ({ cpe, cpe_struct, cves }))).toEqual(searched);
    expect(searched.some((item) => item.cves.length > 0)).toBe(true);
    for (const record of records) {
      expect(record.cpe23Uri).toBe(record.cpe);
      for (const column of ['vendor', 'product', 'version', 'update', 'target_sw', 'other'])
        expect(record[column]).toBe(record.cpe_struct[column]);
    }
  });

  it('follows knowledge changes in the next archive', async () => {
    const before = (await store.latest('v3', 'cpecve'))!;
    const some = (
      recordsOf(await unzip((await download(t, (await t.get('/v3/backup/cpecve')).body.data[0].url)).body)) as Item[]
    ).flatMap((item) => item.cves);
    const removed = [...new Set(some)].sort()[0]!;
    await t.storage.knowledge.remove([removed]);
    const written = await writeBackup(store, cpeCveSource(t.storage), 3);
    expect(written.meta!.sourceVersion).not.toBe(before.sourceVersion);
    const members = await unzip((await download(t, (await t.get('/v3/backup/cpecve')).body.data[0].url)).body);
    const records = recordsOf(members) as Item[];
    expect(records.flatMap((item) => item.cves)).not.toContain(removed);
    expect(records.map(({ cpe, cpe_struct, cves }) => ({ cpe, cpe_struct, cves }))).toEqual(await searchedItems());
  });

  it('is written by the background worker thread from the built code (the module it loads builds the source)', async () => {
    // dist/ is what `vulnscope serve` runs; the end-to-end tests build it first.
    const dist = (file: string) => new URL(`../../dist/${file}`, import.meta.url).href;
    const service = (await import(dist('backup/service.js'))) as typeof import('../../src/backup/service.js');
    const indexes = (await import(
      dist('services/index-backups.js')
    )) as typeof import('../../src/services/index-backups.js');
    const before = (await store.latest('v3', 'cpecve'))!;
    const written = await service.writeBackupInWorker(
      t.config,
      cpeCveSource(t.storage),
      undefined,
      indexes.INDEX_SOURCE_MODULE,
    );
    expect(written.inWorker).toBe(true);
    expect(written.meta!.file).not.toBe(before.file);
    const members = await unzip((await download(t, (await t.get('/v3/backup/cpecve')).body.data[0].url)).body);
    const records = recordsOf(members) as Item[];
    expect(records.map(({ cpe, cpe_struct, cves }) => ({ cpe, cpe_struct, cves }))).toEqual(await searchedItems());
  });
});
