/**
 * Writing archives for sources (with retries when a feed changes mid-write, then pruning to the
 * last `keep`), and the server's background job: every check it rewrites the archives whose source
 * changed since they were written, at most once per interval per source.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { Storage } from '../storage/index.js';
import { allSources, type BackupSource, type FeedDescription } from './sources.js';
import type { BackupStore, ArchiveMeta } from './store.js';
import { ArchiveOutdatedError, writeArchive } from './writer.js';

export interface WrittenArchive {
  source: BackupSource;
  meta?: ArchiveMeta;
  /** Why nothing was written (no data yet). */
  skipped?: string;
  ms: number;
  /** Written in a worker thread. */
  inWorker?: boolean;
}

const locks = new Map<string, Promise<unknown>>();

/** Runs `fn` after any other write of the same archive in this process. */
async function serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const before = locks.get(key) ?? Promise.resolve();
  const run = before.catch(() => {}).then(fn);
  locks.set(key, run);
  try {
    return await run;
  } finally {
    if (locks.get(key) === run) locks.delete(key);
  }
}

export async function writeBackup(
  store: BackupStore,
  source: BackupSource,
  keep: number,
  onProgress?: (records: number) => void,
  signal?: AbortSignal,
): Promise<WrittenArchive> {
  return serialised(`${source.kind}/${source.name}`, async () => {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      const version = await source.version();
      if (version === undefined) return { source, skipped: 'no data yet', ms: performance.now() - started };
      try {
        const meta = await writeArchive({
          store,
          kind: source.kind,
          name: source.name,
          sourceVersion: version,
          records: source.records(version),
          stillValid: () => source.stillValid(version),
          ...(onProgress ? { onProgress } : {}),
          ...(signal ? { signal } : {}),
        });
        await store.prune(source.kind, source.name, keep);
        return { source, meta, ms: performance.now() - started };
      } catch (error) {
        if (!(error instanceof ArchiveOutdatedError) || attempt >= 3) throw error;
      }
    }
  });
}

/**
 * Whether `source` needs a new archive now: it has data and changed since the last archive, which
 * is at least `intervalMs` old; or the last archive predates an upgrade that rewrote its records.
 */
export async function isDue(
  store: BackupStore,
  source: BackupSource,
  intervalMs: number,
  now = Date.now(),
): Promise<boolean> {
  const version = await source.version();
  if (version === undefined) return false;
  const latest = await store.latest(source.kind, source.name);
  if (!latest) return true;
  const staleBefore = await source.staleBefore?.();
  if (staleBefore !== undefined && latest.writtenAt < staleBefore) return true;
  return latest.sourceVersion !== version && now - latest.writtenAt >= intervalMs;
}

const WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));

/**
 * Whether background writes can run in a worker thread: from the built code (the worker is a .js
 * file; under the TypeScript sources, e.g. tests, writes run in-process) and on a database another
 * connection can open.
 */
export function workerAvailable(config: Config): boolean {
  return fs.existsSync(WORKER) && !(config.database.engine === 'sqlite' && config.database.file === ':memory:');
}

/** Writes one archive in a worker thread (see worker.ts); rejects on failure or abort. */
export function writeBackupInWorker(
  config: Config,
  source: BackupSource,
  signal?: AbortSignal,
  indexModule?: string,
): Promise<WrittenArchive> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      workerData: {
        config,
        kind: source.kind,
        name: source.name,
        description: source.description,
        ...(indexModule !== undefined ? { indexModule } : {}),
      },
    });
    let settled = false;
    const onAbort = () => {
      worker.postMessage({ type: 'abort' });
      // A worker stuck in a long database read is stopped outright (its temporary file is pruned later).
      setTimeout(() => void worker.terminate(), 5000).unref();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    worker.on('message', (message: { meta?: ArchiveMeta; skipped?: string; error?: string; ms?: number }) => {
      if (message.error !== undefined) finish(() => reject(new Error(message.error)));
      else
        finish(() =>
          resolve({
            source,
            ms: message.ms ?? 0,
            inWorker: true,
            ...(message.meta ? { meta: message.meta } : { skipped: message.skipped ?? 'skipped' }),
          }),
        );
    });
    worker.on('error', (error) => finish(() => reject(error)));
    worker.on('exit', (code) => finish(() => reject(new Error(`backup worker exited (${code}) without a result`))));
  });
}

export interface BackupSchedulerOptions {
  store: BackupStore;
  storage: Storage;
  config: Config;
  /** The registered advisory feeds (the feed registry's list). */
  feeds: readonly FeedDescription[];
  /** How often to look for changes (ms); default min(interval, 60 s). */
  checkMs?: number;
  /** Write in a worker thread (default: when workerAvailable); the serving event loop stays free. */
  inWorker?: boolean;
  onWritten?: (written: WrittenArchive) => void;
  onError?: (error: unknown) => void;
  /**
   * The v3 indexes defined above this layer (services/index-backups.ts): their sources, and the
   * URL of the module a worker thread loads to build them (`indexSource(storage, name)`).
   */
  indexes?: { sources(storage: Storage): BackupSource[]; module: string };
}

/** The background job of the server. */
export class BackupScheduler {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  private readonly inWorker: boolean;

  constructor(private readonly options: BackupSchedulerOptions) {
    this.inWorker = options.inWorker ?? workerAvailable(options.config);
  }

  start(): void {
    const { config } = this.options;
    if (config.backupIntervalMs <= 0 || this.timer) return;
    const every = this.options.checkMs ?? Math.min(config.backupIntervalMs, 60_000);
    // The first check comes one period after the start, not at once: a short-lived server (a test,
    // a benchmark run) does not spend its first seconds archiving.
    this.timer = setInterval(() => void this.check(), every);
    this.timer.unref();
  }

  /** One pass over every source; concurrent calls share the pass. */
  check(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    const { store, storage, config, feeds } = this.options;
    try {
      const indexes = this.options.indexes;
      for (const source of await allSources(storage, feeds, indexes?.sources(storage))) {
        try {
          if (this.abort.signal.aborted) return;
          if (await isDue(store, source, config.backupIntervalMs)) {
            const written = this.inWorker
              ? await writeBackupInWorker(config, source, this.abort.signal, indexes?.module)
              : await writeBackup(store, source, config.backupKeep, undefined, this.abort.signal);
            this.options.onWritten?.(written);
          }
        } catch (error) {
          if (this.abort.signal.aborted) return;
          this.options.onError?.(error);
        }
      }
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  private readonly abort = new AbortController();

  /** Stops the job; a write in progress is abandoned (nothing published) and awaited. */
  async stop(): Promise<void> {
    this.abort.abort();
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }
}
