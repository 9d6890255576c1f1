/**
 * `vulnscope backup write` (against the database: writes archives now) and `backup list` (the
 * local backup directory; a server's list, `backup url` and `backup download` are in
 * backup-client.ts).
 */
import { FeedRegistry } from '../../services/feed-registry.js';
import { cpeCveSource, indexSources } from '../../services/index-backups.js';
import fs from 'node:fs';
import type { Config } from '../../config.js';
import { writeBackup } from '../../backup/service.js';
import { allSources, targetIntelSource, V3_INDEXES, type BackupSource } from '../../backup/sources.js';
import { BackupStore } from '../../backup/store.js';
import { invalidInput } from '../../core/errors.js';
import { createStorage, type Storage } from '../../storage/index.js';
import { printSummary, printTable } from '../output.js';
import type { ConnectOptions } from '../client/connect.js';
import { Progress } from '../progress.js';

export interface BackupWriteOptions {
  feed?: string;
  index?: string;
}

export async function backupWrite(config: Config, options: BackupWriteOptions): Promise<number> {
  if (options.feed && options.index) throw invalidInput('give --feed or --index, not both');
  const storage = await createStorage(config.database);
  const store = new BackupStore(config.backupDir);
  try {
    const all = await allSources(storage, new FeedRegistry(config.feeds).list(), indexSources(storage));
    let sources = all;
    if (options.feed) {
      const found = all.find((source) => source.kind === 'v4' && source.name === options.feed);
      if (!found) throw invalidInput(`unknown feed "${options.feed}" (see "vulnscope feeds")`);
      sources = [found];
    } else if (options.index) {
      if (!V3_INDEXES.some((index) => index.name === options.index)) {
        throw invalidInput(
          `unknown index "${options.index}" (indexes with backups: ${V3_INDEXES.map((i) => i.name).join(', ')})`,
        );
      }
      if (options.index === 'cpecve') {
        const source = cpeCveSource(storage);
        if ((await source.version()) === undefined)
          throw invalidInput(
            'index "cpecve" has no backup yet: there are no CPE names or CVE knowledge to archive (load the CPE dictionary or the NVD / CVE 5 feeds first)',
          );
        sources = [source];
      } else sources = [targetIntelSource(storage)];
    }
    let failed = 0;
    for (const source of sources) {
      const progress = new Progress(`backup ${source.name}`, { unit: 'records' });
      if (progress.enabled) progress.setTotal(await recordTotal(storage, source));
      try {
        const written = await writeBackup(store, source, config.backupKeep, (n) => progress.update(n));
        progress.finish();
        if (!written.meta) {
          process.stderr.write(
            `${source.kind === 'v4' ? 'feed' : 'index'} ${source.name}: skipped (${written.skipped})\n`,
          );
          continue;
        }
        const seconds = written.ms / 1000;
        printSummary(`${source.kind === 'v4' ? 'feed' : 'index'} ${source.name}: ${store.pathOf(written.meta)}`, {
          records: written.meta.records,
          bytes: written.meta.size,
          sha256: written.meta.sha256,
          seconds: seconds.toFixed(2),
          'records/s': Math.round(written.meta.records / Math.max(seconds, 0.001)),
        });
      } catch (error) {
        progress.finish();
        failed++;
        process.stderr.write(`error: backup of ${source.name} failed: ${(error as Error).message}\n`);
      }
    }
    return failed > 0 ? 1 : 0;
  } finally {
    await storage.close();
  }
}

/** How many records an archive of `source` will hold (about: records may change meanwhile). */
export async function recordTotal(storage: Storage, source: BackupSource): Promise<number | undefined> {
  if (source.kind === 'v3' && source.name === 'cpecve') return (await storage.knowledge.counts()).names;
  if (source.kind === 'v3') return storage.hosts.count();
  return (await storage.advisories.feed(source.name))?.recordCount;
}

/**
 * `vulnscope backup list`: with a server (VULNSCOPE_URL or --url), the backups it offers (see
 * backup-client.ts); without one, the archives in the local backup directory for the feeds and
 * indexes of the local database, with their metadata.
 */
export async function backupList(config: Config, json: boolean, options: ConnectOptions = {}): Promise<void> {
  if (!config.serverUrl && !options.url) return localBackupList(config, json);
  return (await import('./backup-client.js')).serverBackupList(config, json, options);
}

interface BackupListItem {
  name: string;
  kind: 'feed' | 'index';
  available: boolean;
  backup_written_at?: string;
}

interface LocalArchive {
  file: string;
  path: string;
  sha256: string;
  size: number;
  records: number;
  written_at: string;
  /** Written from the feed generation / change-log position the database is at now. */
  current: boolean;
}

async function localBackupList(config: Config, json: boolean): Promise<void> {
  const storage = await createStorage(config.database);
  const store = new BackupStore(config.backupDir);
  const present = fs.existsSync(config.backupDir);
  const listed: Array<BackupListItem & { archives: LocalArchive[] }> = [];
  try {
    for (const source of await allSources(storage, new FeedRegistry(config.feeds).list(), indexSources(storage))) {
      const version = await source.version();
      const archives = present ? await store.list(source.kind, source.name) : [];
      listed.push({
        name: source.name,
        kind: source.kind === 'v4' ? 'feed' : 'index',
        available: archives.length > 0,
        ...(archives[0] ? { backup_written_at: new Date(archives[0].writtenAt).toISOString() } : {}),
        archives: archives.map((meta) => ({
          file: meta.file,
          path: store.pathOf(meta),
          sha256: meta.sha256,
          size: meta.size,
          records: meta.records,
          written_at: new Date(meta.writtenAt).toISOString(),
          current: version !== undefined && meta.sourceVersion === version,
        })),
      });
    }
  } finally {
    await storage.close();
  }
  process.stderr.write(
    present
      ? `archives in ${config.backupDir} for ${storage.db.description} (set VULNSCOPE_URL to ask a server)\n`
      : `no backup directory ${config.backupDir} yet ("vulnscope backup write" creates it; set VULNSCOPE_URL to ask a server)\n`,
  );
  if (json) {
    process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
    return;
  }
  const none = { file: '-', written: '', records: '', bytes: '', current: '' };
  const rows = listed.flatMap((item) =>
    item.archives.length === 0
      ? [{ name: item.name, kind: item.kind, ...none }]
      : item.archives.map((archive) => ({
          name: item.name,
          kind: item.kind,
          file: archive.file,
          written: archive.written_at,
          records: archive.records.toLocaleString('en-US'),
          bytes: archive.size.toLocaleString('en-US'),
          current: archive.current ? 'yes' : 'no',
        })),
  );
  printTable(rows, {
    name: 'NAME',
    kind: 'KIND',
    file: 'FILE',
    written: 'WRITTEN',
    records: 'RECORDS',
    bytes: 'BYTES',
    current: 'CURRENT',
  });
}
