/**
 * `vulnscope backup write` (against the database: writes archives now), `backup list` (the local
 * backup directory, or a server with VULNSCOPE_URL) and `backup download NAME` (a feed's or an
 * index's latest backup from a server: VULNSCOPE_URL, VULNSCOPE_TOKEN; verified against the
 * advertised sha256 before it is renamed into place).
 */
import { FeedRegistry } from '../../services/feed-registry.js';
import { cpeCveSource, indexSources } from '../../services/index-backups.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../config.js';
import { writeBackup } from '../../backup/service.js';
import { allSources, targetIntelSource, V3_INDEXES, type BackupSource } from '../../backup/sources.js';
import { BackupStore } from '../../backup/store.js';
import { invalidInput, VulnscopeError } from '../../core/errors.js';
import { createStorage, type Storage } from '../../storage/index.js';
import { printSummary, printTable } from '../output.js';
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

function server(config: Config): { base: string; headers: Record<string, string> } {
  if (!config.serverUrl) throw invalidInput('VULNSCOPE_URL is not set (the server to ask, e.g. http://127.0.0.1:8080)');
  if (!config.apiToken) throw invalidInput('VULNSCOPE_TOKEN is not set (create one with "vulnscope token create")');
  return {
    base: config.serverUrl,
    headers: { authorization: `Bearer ${config.apiToken}`, accept: 'application/json' },
  };
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** GET a JSON object from the server; an error status or a body that is not an object throws. */
async function getJson(config: Config, urlPath: string): Promise<JsonObject> {
  const { base, headers } = server(config);
  const response = await fetch(`${base}${urlPath}`, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const errors = isObject(body) ? body.errors : undefined;
    const message = Array.isArray(errors) ? errors.join('; ') : text.slice(0, 200);
    throw new VulnscopeError(response.status, 'http', `GET ${urlPath}: ${response.status} ${message}`);
  }
  if (!isObject(body)) {
    throw new VulnscopeError(502, 'http', `GET ${urlPath}: the server did not answer with a JSON object`);
  }
  return body;
}

interface BackupListItem {
  name: string;
  kind: 'feed' | 'index';
  available: boolean;
  backup_written_at?: string;
}

/**
 * `vulnscope backup list`: with VULNSCOPE_URL, the backups that server offers (feeds the token may
 * read, and the v3 indexes); without it, the archives in the local backup directory for the
 * feeds and indexes of the local database, with their metadata.
 */
export async function backupList(config: Config, json: boolean): Promise<void> {
  if (!config.serverUrl) return localBackupList(config, json);
  const body = await getJson(config, '/v4/backup');
  if (!Array.isArray(body.data)) throw new VulnscopeError(502, 'http', 'GET /v4/backup: the answer has no data list');
  const data: BackupListItem[] = (body.data as Array<Omit<BackupListItem, 'kind'>>).map((item) => ({
    ...item,
    kind: 'feed',
  }));
  for (const index of V3_INDEXES) data.push(await serverIndexBackup(config, index.name));
  const rows = data.map((item) => ({
    name: item.name,
    available: item.available ? 'yes' : 'no',
    written: item.backup_written_at ?? '',
    kind: item.kind,
  }));
  if (json) process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  else printTable(rows, { name: 'NAME', available: 'AVAILABLE', written: 'WRITTEN', kind: 'KIND' });
}

/** An index's latest backup on the server (`GET /v3/backup/{index}` answers 404 before the first). */
async function serverIndexBackup(config: Config, name: string): Promise<BackupListItem> {
  try {
    const body = await getJson(config, `/v3/backup/${encodeURIComponent(name)}`);
    const latest = Array.isArray(body.data) ? (body.data[0] as { date_added?: string } | undefined) : undefined;
    return {
      name,
      kind: 'index',
      available: latest !== undefined,
      ...(latest?.date_added ? { backup_written_at: latest.date_added } : {}),
    };
  } catch (error) {
    if (error instanceof VulnscopeError && error.status === 404) return { name, kind: 'index', available: false };
    throw error;
  }
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

/** What a download needs: where, and the sha256 the server advertised. */
interface BackupLink {
  url: string;
  sha256: string;
}

/** A feed's latest backup (`GET /v4/backup/{feed}`). */
async function feedBackupLink(config: Config, feed: string): Promise<BackupLink> {
  const info = await getJson(config, `/v4/backup/${encodeURIComponent(feed)}`);
  if (!info.available || typeof info.url_mrap !== 'string') {
    throw new VulnscopeError(404, 'not_found', `feed "${feed}" has no backup yet`);
  }
  if (typeof info.sha256 !== 'string') {
    throw new VulnscopeError(502, 'http', `feed "${feed}": the server advertised no sha256 for the backup`);
  }
  return { url: info.url_mrap, sha256: info.sha256 };
}

/** An index's newest backup (`GET /v3/backup/{index}`, newest first). */
async function indexBackupLink(config: Config, index: string): Promise<BackupLink> {
  let body: JsonObject;
  try {
    body = await getJson(config, `/v3/backup/${encodeURIComponent(index)}`);
  } catch (error) {
    // The server answers 404 until the first archive of a known index is written.
    if (error instanceof VulnscopeError && error.status === 404)
      throw invalidInput(`index "${index}" has no backup yet on the server (${error.message})`);
    throw error;
  }
  const latest = Array.isArray(body.data) ? (body.data[0] as Partial<BackupLink> | undefined) : undefined;
  if (!latest || typeof latest.url !== 'string') {
    throw new VulnscopeError(404, 'not_found', `index "${index}" has no backup yet`);
  }
  if (typeof latest.sha256 !== 'string') {
    throw new VulnscopeError(502, 'http', `index "${index}": the server advertised no sha256 for the backup`);
  }
  return { url: latest.url, sha256: latest.sha256 };
}

/**
 * `vulnscope backup download NAME`: the latest backup of a feed (v4) or of an index
 * (`target-intel`, v3), verified against the sha256 the server advertised before it is renamed
 * into place.
 */
export async function backupDownload(config: Config, name: string, options: { out?: string }): Promise<number> {
  const index = V3_INDEXES.some((candidate) => candidate.name === name);
  const link = index ? await indexBackupLink(config, name) : await feedBackupLink(config, name);
  const expected = link.sha256;
  const url = new URL(link.url);
  const out = path.resolve(options.out ?? path.basename(url.pathname));
  const response = await fetch(url);
  if (response.status !== 200 || !response.body) {
    throw new VulnscopeError(
      response.status,
      'http',
      `download failed: ${response.status} ${(await response.text()).slice(0, 200)}`,
    );
  }
  const total = Number(response.headers.get('content-length') ?? 0);
  const hash = createHash('sha256');
  let received = 0;
  const progress = new Progress(`download ${name}`, { unit: 'bytes', ...(total > 0 ? { total } : {}) });
  const tmp = path.join(path.dirname(out), `.${path.basename(out)}.part-${process.pid}`);
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      received += chunk.length;
      progress.update(received);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body as never), counter, fs.createWriteStream(tmp));
    progress.finish();
    const digest = hash.digest('hex');
    if (total > 0 && received !== total)
      throw new VulnscopeError(502, 'download', `download incomplete: ${received} of ${total} bytes`);
    if (digest !== expected)
      throw new VulnscopeError(502, 'download', `sha256 mismatch: got ${digest}, the server advertised ${expected}`);
    fs.renameSync(tmp, out);
  } catch (error) {
    progress.finish();
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  printSummary(`downloaded ${index ? 'index' : 'feed'} ${name}: ${out}`, {
    bytes: received,
    sha256: expected,
    verified: 'yes',
  });
  process.stdout.write(`${out}\n`);
  return 0;
}
