/**
 * The worker thread of the SQLite host writer (see host-writer.ts): applies each batch it is sent
 * with the record rules, in the order sent, on its own connection, and answers the counts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HostRepository } from './hosts.js';
import type { HostWrite } from '../core/host-record.js';
import { openSqlite } from './sqlite.js';

/** `writes`: the batch as JSON (see host-writer.ts). */
type Message = { id: number; writes: string; now: number } | { close: true };

const db = openSqlite((workerData as { file: string }).file);
const hosts = new HostRepository(db);
let queue = Promise.resolve();

parentPort!.on('message', (message: Message) => {
  queue = queue.then(async () => {
    if ('close' in message) {
      await db.close();
      parentPort!.close();
      return;
    }
    try {
      parentPort!.postMessage({
        id: message.id,
        counts: await hosts.upsertBatch(JSON.parse(message.writes) as HostWrite[], message.now),
      });
    } catch (error) {
      parentPort!.postMessage({ id: message.id, error: (error as Error).message });
    }
  });
});
