/**
 * The backup directory: `<dir>/<kind>/<name>/<name>-<ms>.zip`, each with a sidecar
 * `<name>-<ms>.zip.meta` (JSON: sha256, size, records, written_at, source version). `kind` is
 * `v4` (advisory feeds) or `v3` (indexes). An archive exists for readers only once both its zip and
 * its meta are in place under their final names; writers use `.tmp-*` names in the same directory
 * and rename (atomic on one file system), so no reader ever sees a partial archive.
 */
import fs from 'node:fs';
import path from 'node:path';
import { unavailable } from '../core/errors.js';

export type BackupKind = 'v4' | 'v3';

/** The archive format version (manifest `format_version`). */
export const BACKUP_FORMAT_VERSION = 1;

export interface ArchiveMeta {
  kind: BackupKind;
  name: string;
  /** File name of the zip (`<name>-<ms>.zip`). */
  file: string;
  sha256: string;
  size: number;
  records: number;
  /** Milliseconds since the epoch. */
  writtenAt: number;
  /** What the archive was written from (feed generation, change-log sequence); decides whether it is stale. */
  sourceVersion: string;
  formatVersion: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const isSafeName = (name: string) => NAME.test(name) && !name.includes('..');
export const TEMP_PREFIX = '.tmp-';

export class BackupStore {
  constructor(readonly dir: string) {}

  folder(kind: BackupKind, name: string): string {
    if (!isSafeName(name)) throw new Error(`unsafe backup name "${name}"`);
    return path.join(this.dir, kind, name);
  }

  /** Creates the backup directory when missing (the server does at start). */
  async ensure(): Promise<void> {
    await fs.promises.mkdir(this.dir, { recursive: true });
  }

  /** 503 when the backup directory is missing or unreadable. */
  async checkAvailable(): Promise<void> {
    try {
      const stat = await fs.promises.stat(this.dir);
      if (!stat.isDirectory()) throw new Error(`${this.dir} is not a directory`);
      await fs.promises.access(this.dir, fs.constants.R_OK | fs.constants.X_OK);
    } catch (error) {
      throw unavailable(`backup storage unavailable: ${(error as Error).message}`, 'backup_storage_unavailable');
    }
  }

  /** Complete archives of one feed or index, newest first. */
  async list(kind: BackupKind, name: string): Promise<ArchiveMeta[]> {
    const folder = this.folder(kind, name);
    let entries: string[];
    try {
      entries = await fs.promises.readdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        await this.checkAvailable();
        return [];
      }
      throw unavailable(`backup storage unavailable: ${(error as Error).message}`, 'backup_storage_unavailable');
    }
    const present = new Set(entries);
    const archives: ArchiveMeta[] = [];
    for (const entry of entries) {
      if (entry.startsWith(TEMP_PREFIX) || !entry.endsWith('.zip.meta')) continue;
      const zip = entry.slice(0, -'.meta'.length);
      if (!present.has(zip)) continue;
      try {
        const meta = JSON.parse(await fs.promises.readFile(path.join(folder, entry), 'utf8')) as ArchiveMeta;
        if (meta.file === zip) archives.push(meta);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          throw unavailable(`backup storage unavailable: ${(error as Error).message}`, 'backup_storage_unavailable');
      }
    }
    return archives.sort((a, b) => b.writtenAt - a.writtenAt || (a.file < b.file ? 1 : -1));
  }

  async latest(kind: BackupKind, name: string): Promise<ArchiveMeta | undefined> {
    return (await this.list(kind, name))[0];
  }

  /** The archive named `file`, when it is still kept. */
  async find(kind: BackupKind, name: string, file: string): Promise<ArchiveMeta | undefined> {
    return (await this.list(kind, name)).find((meta) => meta.file === file);
  }

  pathOf(meta: Pick<ArchiveMeta, 'kind' | 'name' | 'file'>): string {
    return path.join(this.folder(meta.kind, meta.name), meta.file);
  }

  /**
   * Keeps the newest `keep` archives (meta removed before zip, so an archive disappears for readers
   * first); removes temporary files and half-renamed leftovers (a zip without meta or the reverse)
   * older than `staleTempMs` — a killed writer leaves those, a running one is younger.
   */
  async prune(
    kind: BackupKind,
    name: string,
    keep: number,
    staleTempMs = 3_600_000,
    now = Date.now(),
  ): Promise<string[]> {
    const folder = this.folder(kind, name);
    const removed: string[] = [];
    const archives = await this.list(kind, name);
    for (const meta of archives.slice(Math.max(keep, 1))) {
      await fs.promises.rm(path.join(folder, `${meta.file}.meta`), { force: true });
      await fs.promises.rm(path.join(folder, meta.file), { force: true });
      removed.push(meta.file);
    }
    const listed = new Set(archives.map((meta) => meta.file));
    const entries = await fs.promises.readdir(folder).catch(() => [] as string[]);
    const present = new Set(entries);
    for (const entry of entries) {
      const zip = entry.endsWith('.zip.meta') ? entry.slice(0, -5) : entry;
      const leftover =
        entry.startsWith(TEMP_PREFIX) ||
        (entry.endsWith('.zip') && !present.has(`${entry}.meta`)) ||
        (entry.endsWith('.zip.meta') && !present.has(zip));
      if (!leftover || listed.has(zip)) continue;
      const full = path.join(folder, entry);
      const stat = await fs.promises.stat(full).catch(() => undefined);
      if (stat && now - stat.mtimeMs > staleTempMs) {
        await fs.promises.rm(full, { force: true });
        removed.push(entry);
      }
    }
    return removed;
  }
}
