import { spawn } from 'node:child_process';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, parseInterval } from '../../src/config.js';
import { BackupScheduler, isDue, writeBackup } from '../../src/backup/service.js';
import { feedSource, type BackupSource } from '../../src/backup/sources.js';
import { BackupStore, TEMP_PREFIX } from '../../src/backup/store.js';
import { ArchiveOutdatedError, MANIFEST_NAME, writeArchive } from '../../src/backup/writer.js';
import { engineCases } from '../support/engines.js';
import { ROOT } from '../support/cli.js';
import { FEED, loadFeed, recordsOf, sha256, startBackupApp, unzip, type BackupTestApp } from './support.js';

let dir: string;
let store: BackupStore;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-backup-writer-'));
  store = new BackupStore(dir);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function* generate(count: number, failAt?: number) {
  for (let i = 0; i < count; i++) {
    if (i === failAt) throw new Error('injected failure');
    yield { id: i, text: `record ${i}` };
  }
}

const folderEntries = (name: string) => fs.readdirSync(path.join(dir, 'v4', name)).sort();

describe('writeArchive', () => {
  it.each([
    [10, 3, 4],
    [9, 3, 3],
    [1, 50_000, 1],
    [0, 10, 0],
  ])('%i records, ≤%i per member → %i .json members plus the manifest', async (count, perMember, members) => {
    const meta = await writeArchive({
      store,
      kind: 'v4',
      name: 'f',
      sourceVersion: '1',
      records: generate(count),
      maxRecordsPerMember: perMember,
    });
    const data = fs.readFileSync(store.pathOf(meta));
    expect(meta.size).toBe(data.length);
    expect(meta.sha256).toBe(sha256(data));
    const entries = await unzip(data);
    expect(entries.filter((entry) => entry.name.endsWith('.json'))).toHaveLength(members);
    expect(entries.map((entry) => entry.name)).toContain(MANIFEST_NAME);
    expect(recordsOf(entries)).toEqual(Array.from({ length: count }, (_, i) => ({ id: i, text: `record ${i}` })));
  });

  it('splits members by size as well', async () => {
    async function* big() {
      for (let i = 0; i < 20; i++) yield { i, pad: 'x'.repeat(1000) };
    }
    const meta = await writeArchive({
      store,
      kind: 'v4',
      name: 'f',
      sourceVersion: '1',
      records: big(),
      maxBytesPerMember: 5000,
    });
    const entries = await unzip(fs.readFileSync(store.pathOf(meta)));
    expect(entries.filter((entry) => entry.name.endsWith('.json'))).toHaveLength(4);
  });

  it('concurrent writers of one archive (e.g. the server and the CLI) each publish a distinct, consistent archive', async () => {
    const metas = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        writeArchive({ store, kind: 'v4', name: 'f', sourceVersion: String(i), records: generate(50 + i) }),
      ),
    );
    expect(new Set(metas.map((meta) => meta.file)).size).toBe(6);
    const listed = await store.list('v4', 'f');
    expect(listed).toHaveLength(6);
    for (const meta of listed) {
      const data = fs.readFileSync(store.pathOf(meta));
      expect(sha256(data)).toBe(meta.sha256);
      expect(recordsOf(await unzip(data))).toHaveLength(meta.records);
    }
    expect(folderEntries('f').some((entry) => entry.startsWith(TEMP_PREFIX))).toBe(false);
  });

  it('an injected failure midway leaves the previous archive served and no file behind', async () => {
    const first = await writeArchive({ store, kind: 'v4', name: 'f', sourceVersion: '1', records: generate(100) });
    const before = folderEntries('f');
    await expect(
      writeArchive({ store, kind: 'v4', name: 'f', sourceVersion: '2', records: generate(100_000, 60_000) }),
    ).rejects.toThrow('injected failure');
    expect(folderEntries('f')).toEqual(before);
    expect(await store.list('v4', 'f')).toEqual([first]);
  });

  it('an aborted write (server shutdown) publishes nothing and leaves no file', async () => {
    const first = await writeArchive({ store, kind: 'v4', name: 'f', sourceVersion: '1', records: generate(10) });
    const controller = new AbortController();
    await expect(
      writeArchive({
        store,
        kind: 'v4',
        name: 'f',
        sourceVersion: '2',
        records: generate(10_000),
        signal: controller.signal,
        onProgress: (n) => n === 5000 && controller.abort(),
      }),
    ).rejects.toThrow(/abort/i);
    expect(await store.list('v4', 'f')).toEqual([first]);
    expect(folderEntries('f')).toEqual([first.file, `${first.file}.meta`].sort());
  });

  it('an archive whose source changed while it was written is discarded', async () => {
    const first = await writeArchive({ store, kind: 'v4', name: 'f', sourceVersion: '1', records: generate(10) });
    await expect(
      writeArchive({
        store,
        kind: 'v4',
        name: 'f',
        sourceVersion: '2',
        records: generate(10),
        stillValid: async () => false,
      }),
    ).rejects.toBeInstanceOf(ArchiveOutdatedError);
    expect(await store.list('v4', 'f')).toEqual([first]);
    expect(folderEntries('f').some((entry) => entry.startsWith(TEMP_PREFIX))).toBe(false);
  });

  it('a writer process killed midway leaves the previous archive served; its temporary file is invisible and pruned later', async () => {
    const first = await writeArchive({ store, kind: 'v4', name: 'f', sourceVersion: '1', records: generate(100) });
    const writer = path.join(ROOT, 'dist/backup/writer.js');
    const storeJs = path.join(ROOT, 'dist/backup/store.js');
    const script = `
      import { randomBytes } from 'node:crypto';
      import { writeArchive } from ${JSON.stringify(writer)};
      import { BackupStore } from ${JSON.stringify(storeJs)};
      async function* forever() { for (let i = 0; ; i++) { if (i % 100 === 0) await new Promise((r) => setTimeout(r, 1)); yield { i, pad: randomBytes(512).toString('hex') }; } }
      await writeArchive({ store: new BackupStore(${JSON.stringify(dir)}), kind: 'v4', name: 'f', sourceVersion: '2', records: forever() });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    const folder = path.join(dir, 'v4', 'f');
    const deadline = Date.now() + 20_000;
    let temp: string | undefined;
    while (Date.now() < deadline) {
      temp = fs.readdirSync(folder).find((entry) => entry.startsWith(TEMP_PREFIX));
      if (temp && fs.statSync(path.join(folder, temp)).size > 1_000_000) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(temp, stderr).toBeDefined();
    // Readers see only the complete archive while the writer runs…
    expect(await store.list('v4', 'f')).toEqual([first]);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // …and after it died midway.
    expect(await store.list('v4', 'f')).toEqual([first]);
    expect(sha256(fs.readFileSync(store.pathOf(first)))).toBe(first.sha256);
    expect(fs.existsSync(path.join(folder, temp!))).toBe(true);
    // A young temporary file may belong to a running writer: kept; a stale one is removed.
    await store.prune('v4', 'f', 3);
    expect(fs.existsSync(path.join(folder, temp!))).toBe(true);
    await store.prune('v4', 'f', 3, 0, Date.now() + 1000);
    expect(folderEntries('f')).toEqual([first.file, `${first.file}.meta`].sort());
  });
});

describe('configuration', () => {
  it.each([
    ['24h', 86_400_000],
    ['30m', 1_800_000],
    ['90s', 90_000],
    ['90', 90_000],
    ['500ms', 500],
    ['1d', 86_400_000],
    ['0', 0],
  ])('VULNSCOPE_BACKUP_INTERVAL=%s → %i ms', (text, ms) => {
    expect(parseInterval(text)).toBe(ms);
  });
  it.each(['', 'soon', '-1h', '1w', '400d'])('rejects VULNSCOPE_BACKUP_INTERVAL=%j', (text) => {
    expect(() => loadConfig({ VULNSCOPE_BACKUP_INTERVAL: text === '' ? 'x' : text })).toThrow(
      /VULNSCOPE_BACKUP_INTERVAL/,
    );
  });
  it('defaults: ./data/backups, 24h, keep 3, 15 minute URLs', () => {
    const config = loadConfig({});
    expect(config.backupDir).toBe(path.resolve('./data/backups'));
    expect(config.backupIntervalMs).toBe(86_400_000);
    expect(config.backupKeep).toBe(3);
    expect(config.backupUrlTtlMinutes).toBe(15);
  });
});

describe.each(engineCases())('re-archiving on change ($name)', (engine) => {
  let t: BackupTestApp;
  beforeEach(async () => {
    t = await startBackupApp(engine);
  });
  afterEach(async () => t?.close());

  it('a feed is due when it has data and changed since its archive, at most once per interval', async () => {
    const backups = new BackupStore(t.backupDir);
    const source: BackupSource = feedSource(t.storage, FEED, 'test');
    expect(await isDue(backups, source, 0)).toBe(false); // never loaded
    expect((await writeBackup(backups, source, 3)).skipped).toBe('no data yet');
    await loadFeed(t, 20);
    expect(await isDue(backups, source, 3_600_000)).toBe(true); // no archive yet
    await writeBackup(backups, source, 3);
    expect(await isDue(backups, source, 0)).toBe(false); // unchanged
    await loadFeed(t, 21, 'b');
    expect(await isDue(backups, source, 3_600_000)).toBe(false); // changed, but archived less than an interval ago
    expect(await isDue(backups, source, 0)).toBe(true);
    expect(await isDue(backups, source, 3_600_000, Date.now() + 3_600_000)).toBe(true);
  });

  it('the background job writes archives of changed sources and none of unchanged ones', async () => {
    await loadFeed(t, 30);
    await t.ingest([{ ip: '10.0.0.1', port: 22 }]);
    const backups = new BackupStore(t.backupDir);
    const written: string[] = [];
    const scheduler = new BackupScheduler({
      store: backups,
      storage: t.storage,
      config: { ...t.config, backupIntervalMs: 1 },
      feeds: new FeedRegistry(t.config.feeds).list(),
      checkMs: 3_600_000,
      onWritten: (w) => written.push(w.source.name),
      onError: (error) => {
        throw error;
      },
    });
    await scheduler.check();
    expect(written.sort()).toEqual([FEED, 'target-intel']);
    await scheduler.check();
    expect(written).toHaveLength(2);
    await loadFeed(t, 31, 'b');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await scheduler.check();
    expect(written.slice(2)).toEqual([FEED]);
    const latest = (await backups.latest('v4', FEED))!;
    expect(latest.records).toBe(31);
    await scheduler.stop();
  });
});
