import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DatabaseConfig } from '../config.js';
import type { HostRepository, UpsertCounts } from './hosts.js';
import type { HostWrite } from '../core/host-record.js';

/** Applies ingest batches in the order given; a batch may be handed over before the previous one committed. */
export interface HostBatchWriter {
  write(writes: HostWrite[]): Promise<UpsertCounts>;
  close(): Promise<void>;
  /** Batches handed to a worker thread so far (0 when everything was written in process). */
  readonly batchesInThread: number;
}

const THREAD = fileURLToPath(new URL('./host-writer-thread.js', import.meta.url));

/**
 * SQLite writes are synchronous: on the ingest's own thread they stop the parsing and matching of
 * the next batch. A file database is therefore written from a worker thread with its own
 * connection, so the two overlap on two cores. The thread starts with the second batch (an ingest
 * of one batch gains nothing from it) and only from the built code, where its module exists.
 * PostgreSQL writes are already asynchronous and stay on the calling thread.
 */
export function openHostWriter(config: DatabaseConfig, hosts: HostRepository): HostBatchWriter {
  // Batches may be handed over before the previous one committed: they are chained, so that on
  // PostgreSQL (a pool of connections) they still commit one after the other, in order.
  let tail: Promise<unknown> = Promise.resolve();
  const inProcess: HostBatchWriter = {
    write(writes) {
      const written = tail.then(() => hosts.upsertBatch(writes));
      tail = written.catch(() => {});
      return written;
    },
    close: async () => {},
    batchesInThread: 0,
  };
  if (config.engine !== 'sqlite' || config.file === ':memory:' || !fs.existsSync(THREAD)) return inProcess;
  let thread: ThreadWriter | undefined;
  let batches = 0;
  return {
    write(writes) {
      batches++;
      if (batches === 1) return inProcess.write(writes);
      thread ??= new ThreadWriter(config.file);
      return thread.write(writes);
    },
    close: async () => thread?.close(),
    get batchesInThread() {
      return Math.max(0, batches - 1);
    },
  };
}

interface Pending {
  resolve(counts: UpsertCounts): void;
  reject(error: Error): void;
}

type Reply = { id: number; counts: UpsertCounts } | { id: number; error: string };

class ThreadWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | undefined;
  private readonly exited: Promise<void>;

  constructor(file: string) {
    this.worker = new Worker(THREAD, { workerData: { file } });
    this.worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ('error' in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve(reply.counts);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) => {
      this.worker.on('exit', (code) => {
        this.fail(new Error(`the host writer thread exited (code ${code})`));
        resolve();
      });
    });
  }

  write(writes: HostWrite[]): Promise<UpsertCounts> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // As one JSON string: the structured clone of 2,000 records costs about twice as much to
      // send and to receive as JSON.stringify and JSON.parse (HostWrite is plain JSON data).
      this.worker.postMessage({ id, writes: JSON.stringify(writes), now: Date.now() });
    });
  }

  async close(): Promise<void> {
    this.worker.postMessage({ close: true });
    await this.exited;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
