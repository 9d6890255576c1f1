/**
 * Writing archives for sources (with retries when a feed changes mid-write, then pruning to the
 * last `keep`), and the server's background job: every check it rewrites the archives whose source
 * changed since they were written, at most once per interval per source.
 */
import type { Config } from '../config.js';
import type { Storage } from '../storage/index.js';
import { allSources, type BackupSource } from './sources.js';
import { BackupStore, type ArchiveMeta } from './store.js';
import { ArchiveOutdatedError, writeArchive } from './writer.js';

export interface WrittenArchive {
  source: BackupSource;
  meta?: ArchiveMeta;
  /** Why nothing was written (no data yet). */
  skipped?: string;
  ms: number;
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

/** Whether `source` needs a new archive now: it has data and changed since the last archive, which is at least `intervalMs` old. */
export async function isDue(store: BackupStore, source: BackupSource, intervalMs: number, now = Date.now()): Promise<boolean> {
  const version = await source.version();
  if (version === undefined) return false;
  const latest = await store.latest(source.kind, source.name);
  if (!latest) return true;
  return latest.sourceVersion !== version && now - latest.writtenAt >= intervalMs;
}

export interface BackupSchedulerOptions {
  store: BackupStore;
  storage: Storage;
  config: Config;
  /** How often to look for changes (ms); default min(interval, 60 s). */
  checkMs?: number;
  onWritten?: (written: WrittenArchive) => void;
  onError?: (error: unknown) => void;
}

/** The background job of the server. */
export class BackupScheduler {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly options: BackupSchedulerOptions) {}

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
    const { store, storage, config } = this.options;
    try {
      for (const source of await allSources(storage, config)) {
        try {
          if (this.abort.signal.aborted) return;
          if (await isDue(store, source, config.backupIntervalMs)) {
            this.options.onWritten?.(await writeBackup(store, source, config.backupKeep, undefined, this.abort.signal));
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
