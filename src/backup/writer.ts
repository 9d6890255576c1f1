/**
 * Writes one archive: records streamed as NDJSON members (`<name>-000001.json`, …, each at most
 * `maxRecordsPerMember` records / about `maxBytesPerMember` bytes) plus `manifest.txt` into a zip
 * (yazl) that goes through a hashing counter into a temporary file in the archive's folder. Memory
 * stays bounded whatever the size: one member's stream buffer, with back-pressure. When complete the
 * file is fsynced and renamed into place, then its meta; until then readers see the previous archive.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { BACKUP_FORMAT_VERSION, TEMP_PREFIX, type ArchiveMeta, type BackupKind, type BackupStore } from './store.js';

export const MAX_RECORDS_PER_MEMBER = 50_000;
export const MAX_BYTES_PER_MEMBER = 64 * 1024 * 1024;
export const MANIFEST_NAME = 'manifest.txt';

export interface WriteArchiveOptions {
  store: BackupStore;
  kind: BackupKind;
  name: string;
  /** Recorded in the meta; the scheduler compares it with the source's current version. */
  sourceVersion: string;
  records: AsyncIterable<unknown>;
  maxRecordsPerMember?: number;
  maxBytesPerMember?: number;
  /** Called before the archive is published; false (or a throw) discards it (e.g. the feed changed meanwhile). */
  stillValid?: () => Promise<boolean>;
  onProgress?: (records: number) => void;
  /** Aborts the write (server shutdown); nothing is published. */
  signal?: AbortSignal;
}

export class ArchiveOutdatedError extends Error {
  constructor(name: string) {
    super(`the data of "${name}" changed while its archive was written`);
    this.name = 'ArchiveOutdatedError';
  }
}

export function memberName(name: string, index: number): string {
  return `${name}-${String(index).padStart(6, '0')}.json`;
}

export function manifestText(meta: {
  kind: BackupKind;
  name: string;
  records: number;
  writtenAt: number;
  sourceVersion: string;
  members: number;
}): string {
  return [
    `format_version: ${BACKUP_FORMAT_VERSION}`,
    `${meta.kind === 'v4' ? 'feed' : 'index'}: ${meta.name}`,
    `record_count: ${meta.records}`,
    `members: ${meta.members}`,
    `written_at: ${new Date(meta.writtenAt).toISOString()}`,
    `source_version: ${meta.sourceVersion}`,
    `record_format: NDJSON, one record per line, in members named *.json`,
    '',
  ].join('\n');
}

async function syncPath(file: string, flags = 'r'): Promise<void> {
  const handle = await fs.promises.open(file, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeFileDurably(file: string, text: string): Promise<void> {
  const handle = await fs.promises.open(file, 'wx');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Moves the finished temporary zip to `<name>-<ms>.zip`, bumping `ms` while that name is taken. */
async function publish(
  tmpZip: string,
  folder: string,
  name: string,
  writtenAt: number,
): Promise<{ file: string; writtenAt: number }> {
  for (let at = writtenAt; ; at++) {
    const file = `${name}-${at}.zip`;
    try {
      await fs.promises.link(tmpZip, path.join(folder, file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      // No hard links on this file system: a rename (which could replace a same-named archive of a concurrent writer).
      if (fs.existsSync(path.join(folder, file))) continue;
      await fs.promises.rename(tmpZip, path.join(folder, file));
      return { file, writtenAt: at };
    }
    await fs.promises.rm(tmpZip, { force: true });
    return { file, writtenAt: at };
  }
}

/** Writes and publishes one archive; returns its meta. Leaves nothing behind on failure. */
export async function writeArchive(options: WriteArchiveOptions): Promise<ArchiveMeta> {
  const { store, kind, name } = options;
  const maxRecords = options.maxRecordsPerMember ?? MAX_RECORDS_PER_MEMBER;
  const maxBytes = options.maxBytesPerMember ?? MAX_BYTES_PER_MEMBER;
  const folder = store.folder(kind, name);
  await fs.promises.mkdir(folder, { recursive: true });
  const previous = await store.latest(kind, name);
  let writtenAt = Math.max(Date.now(), (previous?.writtenAt ?? 0) + 1);
  while (fs.existsSync(path.join(folder, `${name}-${writtenAt}.zip`))) writtenAt++;
  const file = `${name}-${writtenAt}.zip`;
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmpZip = path.join(folder, `${TEMP_PREFIX}${file}.${tag}`);
  const tmpMeta = path.join(folder, `${TEMP_PREFIX}${file}.meta.${tag}`);

  const zip = new yazl.ZipFile();
  const hash = createHash('sha256');
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const out = fs.createWriteStream(tmpZip, { flags: 'wx' });
  const done = pipeline(zip.outputStream, counter, out);
  let failure: unknown;
  done.catch((error: unknown) => {
    failure = error;
  });
  const mtime = new Date(writtenAt);
  let member: PassThrough | undefined;
  let members = 0;
  let memberRecords = 0;
  let memberBytes = 0;
  let records = 0;
  try {
    for await (const record of options.records) {
      if (failure) throw failure;
      options.signal?.throwIfAborted();
      if (!member || memberRecords >= maxRecords || memberBytes >= maxBytes) {
        member?.end();
        member = new PassThrough({ highWaterMark: 1 << 20 });
        members++;
        memberRecords = 0;
        memberBytes = 0;
        zip.addReadStream(member, memberName(name, members), { mtime, compress: true });
      }
      const line = Buffer.from(`${JSON.stringify(record)}\n`);
      memberRecords++;
      memberBytes += line.length;
      records++;
      if (!member.write(line)) {
        await Promise.race([
          once(member, 'drain'),
          done.then(() => {
            throw new Error('archive stream ended early');
          }),
        ]);
      }
      options.onProgress?.(records);
    }
    member?.end();
    zip.addBuffer(
      Buffer.from(manifestText({ kind, name, records, writtenAt, sourceVersion: options.sourceVersion, members })),
      MANIFEST_NAME,
      {
        mtime,
      },
    );
    zip.end();
    await done;
    await syncPath(tmpZip);
    options.signal?.throwIfAborted();
    if (options.stillValid && !(await options.stillValid())) throw new ArchiveOutdatedError(name);
    // Publish under a name no other writer (another process) took: link() never replaces.
    const published = await publish(tmpZip, folder, name, writtenAt);
    const meta: ArchiveMeta = {
      kind,
      name,
      file: published.file,
      sha256: hash.digest('hex'),
      size,
      records,
      writtenAt: published.writtenAt,
      sourceVersion: options.sourceVersion,
      formatVersion: BACKUP_FORMAT_VERSION,
    };
    // The zip first, then its meta: the archive appears to readers with the meta's rename.
    await writeFileDurably(tmpMeta, `${JSON.stringify(meta)}\n`);
    await fs.promises.rename(tmpMeta, path.join(folder, `${meta.file}.meta`));
    await syncPath(folder).catch(() => {});
    return meta;
  } catch (error) {
    member?.destroy();
    (zip.outputStream as unknown as { destroy?: () => void }).destroy?.();
    await done.catch(() => {});
    // A stream destroyed before its file was opened still opens (creates) it: remove the file only once it is closed.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    await fs.promises.rm(tmpZip, { force: true });
    await fs.promises.rm(tmpMeta, { force: true });
    throw error;
  }
}
