/**
 * A background archive write in a worker thread, so the serving event loop never runs the
 * database reads and JSON encoding of a whole feed. Started by the scheduler with
 * `{ config, kind, name, description }`; opens its own storage connection; answers `{ meta }`, `{ skipped }` or
 * `{ error }`; an `abort` message abandons the write (nothing is published).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';
import { createStorage } from '../storage/index.js';
import { writeBackup } from './service.js';
import { feedSource, targetIntelSource } from './sources.js';
import { BackupStore, type BackupKind } from './store.js';

interface Job {
  config: Config;
  kind: BackupKind;
  name: string;
  description: string;
}

const job = workerData as Job;
const abort = new AbortController();
parentPort!.on('message', (message: { type?: string }) => {
  if (message?.type === 'abort') abort.abort();
});

const storage = await createStorage(job.config.database, { migrate: false });
try {
  const source = job.kind === 'v3' ? targetIntelSource(storage) : feedSource(storage, job.name, job.description);
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
