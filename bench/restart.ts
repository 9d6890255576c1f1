import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { snapshotDirOf, type DatabaseConfig } from '../src/config.js';
import type { IndexSync } from '../src/search/index-sync.js';
import { readHostIndexSnapshot, writeHostIndexSnapshot } from '../src/search/snapshot/host-index-file.js';
import { hostIndexSnapshot } from '../src/search/snapshot/settings.js';
import type { Storage } from '../src/storage/index.js';

/** What a restart costs, with and without the host index snapshot. */
export interface RestartFigures {
  snapshot: {
    bytes: number;
    bytesPerRecord: number;
    /** Writing it from the bench's own index, in process. */
    writeSeconds: number;
    /** The longest the event loop was held while it was written. */
    writeMaxLoopBlockMs: number;
    /** Reading it back into an index, in process. */
    readSeconds: number;
  };
  /** SIGTERM → the server process gone, its last snapshot written. */
  shutdownSeconds: number;
  /** Process start → the first target-intel answer (200), for each way to start. */
  answerSeconds: { withoutSnapshot: number; withSnapshot: number };
}

/** Where a server with the bench's settings keeps its snapshot: the default, beside the database. */
function settingsOf(database: DatabaseConfig, storage: Storage) {
  return hostIndexSnapshot(snapshotDirOf({ database })!, database, storage);
}

/** Removes the snapshot a previous run left, so the first start measures a full build. */
export function removeSnapshots(database: DatabaseConfig, storage: Storage): void {
  fs.rmSync(settingsOf(database, storage).file, { force: true });
}

/**
 * Stops `server` (which writes its snapshot as it stops), then times two fresh starts until they
 * answer a query: without the snapshot (a full build) and with it.
 */
export async function measureRestart(options: {
  database: DatabaseConfig;
  storage: Storage;
  engine: IndexSync;
  server: ChildProcess;
  start: (env: Record<string, string>) => ChildProcess;
  baseUrl: string;
  token: string;
  say: (message: string) => void;
}): Promise<RestartFigures> {
  const { database, storage, engine, say } = options;
  const settings = settingsOf(database, storage);
  const identity = await settings.identity();

  say('restart: write and read the snapshot in process');
  const file = `${settings.file}.bench`;
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const written = await writeHostIndexSnapshot(file, engine.index, identity, engine.seq);
  loop.disable();
  const readStarted = performance.now();
  const read = await readHostIndexSnapshot(file, identity);
  const readSeconds = (performance.now() - readStarted) / 1000;
  if ('rejected' in read) throw new Error(`the snapshot just written was rejected: ${read.rejected}`);
  if (read.index.size !== engine.index.size) throw new Error('the snapshot read back holds another number of records');
  fs.rmSync(file, { force: true });

  say('restart: stop the server (it writes its snapshot)');
  const stopStarted = performance.now();
  await stop(options.server);
  const shutdownSeconds = (performance.now() - stopStarted) / 1000;
  if (!fs.existsSync(settings.file)) throw new Error('the server left no snapshot at shutdown');

  say('restart: start without the snapshot');
  const withoutSnapshot = await timeToAnswer(options, { VULNSCOPE_SNAPSHOT_DIR: 'off' });
  say('restart: start from the snapshot');
  const withSnapshot = await timeToAnswer(options, {});
  return {
    snapshot: {
      bytes: written.bytes,
      bytesPerRecord: written.bytes / Math.max(1, written.records),
      writeSeconds: written.ms / 1000,
      writeMaxLoopBlockMs: loop.max / 1e6,
      readSeconds,
    },
    shutdownSeconds,
    answerSeconds: { withoutSnapshot, withSnapshot },
  };
}

async function timeToAnswer(
  options: { start: (env: Record<string, string>) => ChildProcess; baseUrl: string; token: string },
  env: Record<string, string>,
): Promise<number> {
  const started = performance.now();
  const server = options.start(env);
  try {
    for (;;) {
      if (server.exitCode !== null) throw new Error('the server exited during start');
      try {
        const response = await fetch(`${options.baseUrl}/v3/index/target-intel?limit=1`, {
          headers: { authorization: options.token },
        });
        if (response.status === 200) return (performance.now() - started) / 1000;
      } catch {
        /* not listening yet */
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await stop(server);
  }
}

function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once('close', () => resolve());
    server.kill('SIGTERM');
  });
}
