/**
 * A background archive write in a worker thread, so the serving event loop never runs the
 * database reads and JSON encoding of a whole feed. Started by the scheduler with
 * `{ config, kind, name, description, indexModule? }`; opens its own storage connection; answers `{ meta }`,
 * `{ skipped }` or `{ error }`; an `abort` message abandons the write (nothing is published). A v3
 * index other than target-intel comes from `indexModule` (a module URL exporting
 * `indexSource(storage, name)`), so sources built on the search layer run here too.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';
import { createStorage, type Storage } from '../storage/index.js';
import { writeBackup } from './service.js';
import { feedSource, targetIntelSource, type BackupSource } from './sources.js';
import { BackupStore, type BackupKind } from './store.js';

interface Job {
  config: Config;
  kind: BackupKind;
  name: string;
  description: string;
  indexModule?: string;
}

type IndexModule = { indexSource(storage: Storage, name: string): BackupSource | undefined };

async function sourceOf(storage: Storage): Promise<BackupSource> {
  if (job.kind === 'v4') return feedSource(storage, job.name, job.description);
  if (job.name === 'target-intel') return targetIntelSource(storage);
  if (job.indexModule === undefined) throw new Error(`no source module for index "${job.name}"`);
  const module = (await import(job.indexModule)) as IndexModule;
  const source = module.indexSource(storage, job.name);
  if (!source) throw new Error(`no source for index "${job.name}"`);
  return source;
}

const job = workerData as Job;
const abort = new AbortController();
parentPort!.on('message', (message: { type?: string }) => {
  if (message?.type === 'abort') abort.abort();
});

const storage = await createStorage(job.config.database, { migrate: false });
try {
  const source = await sourceOf(storage);
  const written = await writeBackup(
    new BackupStore(job.config.backupDir),
    source,
    job.config.backupKeep,
    undefined,
    abort.signal,
  );
  parentPort!.postMessage(
    written.meta ? { meta: written.meta, ms: written.ms } : { skipped: written.skipped, ms: written.ms },
  );
} catch (error) {
  parentPort!.postMessage({ error: (error as Error).message, aborted: abort.signal.aborted });
} finally {
  await storage.close();
  parentPort!.close();
}
