/**
 * The server side of `vulnscope backup`, through the SDK (VULNSCOPE_URL, VULNSCOPE_TOKEN):
 * `backup list` (what a server offers), `backup url NAME` (a signed download URL, as the official
 * CLI's `backup url`) and `backup download NAME` (verified against the advertised sha256 before
 * it is renamed into place).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { V3_INDEXES } from '../../backup/sources.js';
import { type Vulnscope, VulnscopeApiError } from '../../client/index.js';
import type { Config } from '../../config.js';
import { invalidInput, VulnscopeError } from '../../core/errors.js';
import { type ConnectOptions, connect } from '../client/connect.js';
import { json, TableWriter } from '../client/emit.js';
import { printSummary } from '../output.js';
import { Progress } from '../progress.js';

interface BackupListItem {
  name: string;
  kind: 'feed' | 'index';
  available: boolean;
  backup_written_at?: string;
}

const notFound = (error: unknown) => error instanceof VulnscopeApiError && error.status === 404;

/** `backup list` against a server: the feeds the token may read, then the indexes. */
export async function serverBackupList(config: Config, json_: boolean, options: ConnectOptions = {}): Promise<void> {
  const client = connect(config, options);
  const data: BackupListItem[] = (await client.backups()).data.map((item) => ({
    name: item.name,
    kind: 'feed',
    available: item.available,
    ...(item.backup_written_at ? { backup_written_at: item.backup_written_at } : {}),
  }));
  for (const index of (await client.indexBackups()).data) data.push(await indexItem(client, index.name));
  if (json_) return json(data);
  await new TableWriter({ name: 'NAME', available: 'AVAILABLE', written: 'WRITTEN', kind: 'KIND' }).write(
    data.map((item) => ({
      name: item.name,
      available: item.available ? 'yes' : 'no',
      written: item.backup_written_at ?? '',
      kind: item.kind,
    })),
  );
}

/** An index's latest backup (`GET /v3/backup/{index}` answers 404 before the first). */
async function indexItem(client: Vulnscope, name: string): Promise<BackupListItem> {
  try {
    const latest = (await client.indexBackup(name)).data[0];
    return {
      name,
      kind: 'index',
      available: latest !== undefined,
      ...(latest?.date_added ? { backup_written_at: latest.date_added } : {}),
    };
  } catch (error) {
    if (notFound(error)) return { name, kind: 'index', available: false };
    throw error;
  }
}

/** What a download needs: where, the sha256 the server advertised, and until when the URL holds. */
interface BackupLink {
  kind: 'feed' | 'index';
  url: string;
  sha256: string;
  expires?: string;
}

const isIndex = (name: string) => V3_INDEXES.some((index) => index.name === name);

/** The latest backup of a feed (`GET /v4/backup/{feed}`) or an index (`GET /v3/backup/{index}`). */
async function linkOf(client: Vulnscope, name: string): Promise<BackupLink> {
  if (!isIndex(name)) {
    const info = await client.backup(name);
    if (!info.available || typeof info.url_mrap !== 'string') {
      throw new VulnscopeError(404, 'not_found', `feed "${name}" has no backup yet`);
    }
    if (typeof info.sha256 !== 'string') {
      throw new VulnscopeError(502, 'http', `feed "${name}": the server advertised no sha256 for the backup`);
    }
    return {
      kind: 'feed',
      url: info.url_mrap,
      sha256: info.sha256,
      ...(info.url_expires ? { expires: info.url_expires } : {}),
    };
  }
  let latest: Awaited<ReturnType<Vulnscope['indexBackup']>>['data'][number] | undefined;
  try {
    latest = (await client.indexBackup(name)).data[0];
  } catch (error) {
    // The server answers 404 until the first archive of a known index is written.
    if (notFound(error))
      throw invalidInput(`index "${name}" has no backup yet on the server (${(error as Error).message})`);
    throw error;
  }
  if (!latest || typeof latest.url !== 'string') {
    throw new VulnscopeError(404, 'not_found', `index "${name}" has no backup yet`);
  }
  if (typeof latest.sha256 !== 'string') {
    throw new VulnscopeError(502, 'http', `index "${name}": the server advertised no sha256 for the backup`);
  }
  return {
    kind: 'index',
    url: latest.url,
    sha256: latest.sha256,
    ...(latest.url_expires ? { expires: latest.url_expires } : {}),
  };
}

/** `backup url NAME`: the signed download URL of the latest backup (no token needed to fetch it). */
export async function backupUrl(config: Config, name: string, options: ConnectOptions & { json?: boolean }) {
  const link = await linkOf(connect(config, options), name);
  if (options.json) return json({ name, ...link });
  process.stdout.write(`${link.url}\n`);
  process.stderr.write(`sha256 ${link.sha256}${link.expires ? `; the URL expires at ${link.expires}` : ''}\n`);
}

/**
 * `backup download NAME`: the latest backup of a feed (v4) or of an index (`target-intel`, v3),
 * verified against the sha256 the server advertised before it is renamed into place.
 */
export async function backupDownload(
  config: Config,
  name: string,
  options: ConnectOptions & { out?: string },
): Promise<number> {
  const client = connect(config, options);
  const link = await linkOf(client, name);
  const out = path.resolve(options.out ?? path.basename(new URL(link.url).pathname));
  const response = await client.download(link.url);
  if (!response.body) throw new VulnscopeError(502, 'download', 'download failed: the answer has no body');
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
    if (digest !== link.sha256)
      throw new VulnscopeError(502, 'download', `sha256 mismatch: got ${digest}, the server advertised ${link.sha256}`);
    fs.renameSync(tmp, out);
  } catch (error) {
    progress.finish();
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  printSummary(`downloaded ${link.kind} ${name}: ${out}`, { bytes: received, sha256: link.sha256, verified: 'yes' });
  process.stdout.write(`${out}\n`);
  return 0;
}
