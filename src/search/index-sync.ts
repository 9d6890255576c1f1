import type { HostRepository } from '../storage/index.js';
import { Announcements } from './announcements.js';
import { HostIndex } from './host-index.js';
import {
  readHostIndexSnapshot,
  writeHostIndexSnapshot,
  type SnapshotIdentity,
  type SnapshotWritten,
} from './snapshot/host-index-file.js';

export interface IndexStatus {
  records: number;
  appliedSeq: number;
  lastRefreshAt?: number;
  memoryBytes: number;
  buildMs?: number;
  /** Whether commits are announced to this index (PostgreSQL), so queries read the log only after one. */
  listening: boolean;
  snapshot?: SnapshotStatus;
}

export interface SnapshotStatus {
  /** How the index started: read from the snapshot, or built from the database and why. */
  start?: { loaded: true; seq: number; ms: number } | { loaded: false; reason: string };
  lastWritten?: SnapshotWritten & { at: number };
}

/** Where the index is persisted, and what a snapshot must match to be used. */
export interface SnapshotSettings {
  file: string;
  identity(): Promise<SnapshotIdentity>;
}

const SCAN_BATCH = 5000;
/** How old the reported memory figure may get before it is measured again, in the background. */
const MEMORY_MAX_AGE_MS = 60_000;
const CHANGE_BATCH = 5000;
const noop = () => {};
/** How long stop() waits for a refresh in progress before it gives up the last snapshot. */
const STOP_WAIT_MS = 500;

/** Whether `promise` settles within `ms`. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  return Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/**
 * Keeps a HostIndex equal to the database: built by scanning the records at start, then kept
 * current by applying the change log (`host_changes`) past the last sequence number applied.
 * Several servers on one database each tail the same log.
 */
export class IndexSync {
  index = new HostIndex();
  private appliedSeq = 0;
  private lastRefreshAt: number | undefined;
  private buildMs: number | undefined;
  private refreshing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Commits of the change log, as storage announces them (PostgreSQL). */
  private readonly announcements: Announcements;
  /** The index's memory as last measured: a full pass over the bitmaps is too slow for every /healthz. */
  private memory = { bytes: 0, at: 0 };
  private measuringMemory = false;

  /** While a snapshot is written: the index holds still, changes wait, queries read it as it is. */
  private writing: Promise<SnapshotWritten> | undefined;
  private snapshotTimer: NodeJS.Timeout | undefined;
  /** The change-log position of the newest snapshot on disk (read or written by this process). */
  private savedSeq: number | undefined;
  private writesSnapshots = false;
  private onSnapshotError: (error: unknown) => void = () => {};
  private readonly snapshotStatus: SnapshotStatus = {};
  /** Reads in progress that need the index to hold still (a refresh waits for them). */
  private readonly reads = new Set<Promise<unknown>>();

  constructor(
    private readonly hosts: HostRepository,
    private readonly snapshot?: SnapshotSettings,
  ) {
    this.announcements = new Announcements((handlers) => hosts.watchChanges(handlers));
  }

  /**
   * Makes the index: read from the snapshot when there is a usable one, else built from the
   * records (the change log position is read first so nothing is missed); then the log is applied.
   */
  async build(): Promise<void> {
    const started = performance.now();
    if (!(await this.loadSnapshot())) await this.loadAll();
    this.buildMs = performance.now() - started;
    await this.refresh();
  }

  /** Reads the snapshot if it is usable; records how the index started either way. */
  private async loadSnapshot(): Promise<boolean> {
    if (!this.snapshot) return false;
    const started = performance.now();
    const read = await readHostIndexSnapshot(this.snapshot.file, await this.snapshot.identity(), (header) =>
      this.logGapAfter(header.seq),
    );
    if ('rejected' in read) {
      this.snapshotStatus.start = { loaded: false, reason: read.rejected };
      return false;
    }
    this.index = read.index;
    this.appliedSeq = read.header.seq;
    this.savedSeq = read.header.seq;
    this.memory = { bytes: this.index.memoryBytes(), at: Date.now() };
    this.snapshotStatus.start = { loaded: true, seq: read.header.seq, ms: performance.now() - started };
    return true;
  }

  /** Why the change log cannot bring an index at `seq` up to date, if it cannot. */
  private async logGapAfter(seq: number): Promise<string | undefined> {
    const latest = await this.hosts.latestChangeSeq();
    if (latest < seq) return `snapshot at change ${seq} is ahead of the change log (at ${latest})`;
    if (latest === seq) return undefined;
    const oldest = await this.hosts.oldestChangeSeq();
    if (oldest !== undefined && oldest > seq + 1) {
      return `the change log was trimmed past the snapshot (snapshot at ${seq}, log from ${oldest})`;
    }
    return undefined;
  }

  /**
   * Writes the index to the snapshot file (at most one write at a time; the index waits for a
   * refresh in progress, and changes wait for the write). Undefined without a snapshot file.
   */
  async saveSnapshot(): Promise<SnapshotWritten | undefined> {
    const snapshot = this.snapshot;
    if (!snapshot) return undefined;
    for (;;) {
      if (this.writing !== undefined) return this.writing;
      if (!this.refreshing) break;
      await this.refreshing.catch(() => {});
    }
    const index = this.index;
    const seq = this.appliedSeq;
    this.writing = snapshot
      .identity()
      .then((identity) => writeHostIndexSnapshot(snapshot.file, index, identity, seq))
      .then((written) => {
        this.savedSeq = written.seq;
        this.snapshotStatus.lastWritten = { ...written, at: Date.now() };
        return written;
      })
      .finally(() => {
        this.writing = undefined;
      });
    return this.writing;
  }

  /**
   * Writes a snapshot every `intervalMs` (0: never) when the index moved since the last one, and
   * one more at stop(). One process per database should (the others only read it at start).
   */
  startSnapshots(intervalMs: number, onError: (error: unknown) => void): void {
    if (!this.snapshot) return;
    this.writesSnapshots = true;
    this.onSnapshotError = onError;
    clearTimeout(this.snapshotTimer);
    if (intervalMs === 0) return;
    const tick = () => {
      const due = this.appliedSeq !== this.savedSeq ? this.saveSnapshot() : Promise.resolve(undefined);
      due.catch(onError).finally(() => {
        if (this.snapshotTimer) this.snapshotTimer = setTimeout(tick, intervalMs).unref();
      });
    };
    this.snapshotTimer = setTimeout(tick, intervalMs).unref();
  }

  /** Applies every change committed since the last refresh. Concurrent callers share one run. */
  refresh(): Promise<void> {
    if (!this.refreshing) {
      this.announcements.readStarted();
      const holding = [...this.reads, ...(this.writing !== undefined ? [this.writing] : [])];
      this.refreshing = Promise.allSettled(holding)
        .then(() => this.applyChanges())
        .catch((error: unknown) => {
          this.announcements.markPending();
          throw error;
        })
        .finally(() => {
          this.refreshing = undefined;
        });
    }
    return this.refreshing;
  }

  /**
   * Runs a read that yields between slices over an index that holds still meanwhile: changes wait
   * for it, and it waits for a refresh already asked for, so a stream of reads cannot starve them.
   */
  async readStill<T>(read: (index: HostIndex) => Promise<T>): Promise<T> {
    while (this.refreshing !== undefined) await this.refreshing.catch(noop);
    const reading = read(this.index);
    this.reads.add(reading);
    try {
      return await reading;
    } finally {
      this.reads.delete(reading);
    }
  }

  /**
   * Before a query: reads the log, unless storage announces commits to this index and none was
   * announced since the last read (on PostgreSQL that spares every query a round trip).
   */
  catchUp(): Promise<void> {
    // During a snapshot write queries are answered from the index as it is, rather than wait.
    return this.announcements.quiet || this.writing !== undefined ? Promise.resolve() : this.refresh();
  }

  /** Listens for announced commits, where storage announces them (PostgreSQL). */
  listen(onError: (error: unknown) => void, retryMs = 1000): Promise<void> {
    return this.announcements.listen(onError, retryMs);
  }

  /** Polls the change log every `intervalMs` until stopped. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.stopPolling();
    const tick = () => {
      this.refresh()
        .catch(onError)
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, intervalMs);
  }

  /** Stops polling and listening; a process that writes snapshots writes a last one if the index moved. */
  async stop(): Promise<void> {
    this.stopPolling();
    await this.announcements.stop();
    clearTimeout(this.snapshotTimer);
    this.snapshotTimer = undefined;
    if (!this.writesSnapshots) return;
    this.writesSnapshots = false;
    try {
      // A refresh held up by a silent database must not hold up the exit: then no last snapshot.
      const deadline = performance.now() + STOP_WAIT_MS;
      while (this.refreshing !== undefined) {
        if (!(await settlesWithin(this.refreshing, deadline - performance.now()))) {
          this.onSnapshotError(new Error('no snapshot at stop: the index was still applying changes'));
          return;
        }
      }
      if (this.appliedSeq !== this.savedSeq) await this.saveSnapshot();
      else await this.writing;
    } catch (error) {
      this.onSnapshotError(error);
    }
  }

  private stopPolling(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  status(): IndexStatus {
    return {
      records: this.index.size,
      appliedSeq: this.appliedSeq,
      lastRefreshAt: this.lastRefreshAt,
      memoryBytes: this.memoryBytes(),
      buildMs: this.buildMs,
      listening: this.announcements.active,
      ...(this.snapshot ? { snapshot: this.snapshotStatus } : {}),
    };
  }

  /**
   * The memory figure as last measured (at build, then at most MEMORY_MAX_AGE_MS old): load
   * balancers probe /healthz often, and a pass over a large index's bitmaps blocks a worker's
   * thread for tens of milliseconds.
   */
  private memoryBytes(): number {
    if (Date.now() - this.memory.at > MEMORY_MAX_AGE_MS && !this.measuringMemory) {
      this.measuringMemory = true;
      this.index
        .memoryBytesYielding()
        .then((bytes) => (this.memory = { bytes, at: Date.now() }))
        .catch(() => {}) // a gauge: the last figure stays
        .finally(() => (this.measuringMemory = false));
    }
    return this.memory.bytes;
  }

  get seq(): number {
    return this.appliedSeq;
  }

  private async applyChanges(): Promise<void> {
    for (;;) {
      const changes = await this.hosts.changesSince(this.appliedSeq, CHANGE_BATCH);
      if (changes.length === 0) break;
      // A gap may be a rolled-back sequence number, or the log pruned past our position;
      // only in the second case is a rebuild the one exact answer.
      if (changes[0]!.seq > this.appliedSeq + 1 && this.appliedSeq > 0) {
        const oldest = await this.hosts.oldestChangeSeq();
        if (oldest !== undefined && oldest > this.appliedSeq + 1) {
          await this.loadAll();
          return;
        }
      }
      // Per record, its last change; and whether any of its changes needs the row read back (a
      // record only observed again, with nothing else changed, is retimed from the log alone).
      const lastById = new Map<number, { seq: number; observedAt?: number; read: boolean }>();
      for (const change of changes) {
        const read = change.observedAt === undefined || lastById.get(change.hostId)?.read === true;
        lastById.set(change.hostId, { seq: change.seq, observedAt: change.observedAt, read });
      }
      const toRead: number[] = [];
      for (const [id, change] of lastById) {
        if (change.read || !this.index.retime(id, change.observedAt!, change.seq)) toRead.push(id);
      }
      const present = await this.hosts.indexEntriesByIds(toRead);
      const byId = new Map(present.map((record) => [record.id, record]));
      const removedIds: number[] = [];
      const removedSeqs: number[] = [];
      this.index.beginBatch();
      try {
        for (const id of toRead) {
          const { seq } = lastById.get(id)!;
          const record = byId.get(id);
          // The row as it is now is the truth, whatever the individual log entries said.
          if (record) this.index.upsert(record, seq);
          else {
            removedIds.push(id);
            removedSeqs.push(seq);
          }
        }
        this.index.removeMany(removedIds, removedSeqs);
      } finally {
        this.index.endBatch();
      }
      this.appliedSeq = changes[changes.length - 1]!.seq;
      if (changes.length < CHANGE_BATCH) break;
    }
    this.lastRefreshAt = Date.now();
  }

  private async loadAll(): Promise<void> {
    const index = new HostIndex();
    const seq = await this.hosts.latestChangeSeq();
    let after = 0;
    index.beginBulk();
    for (;;) {
      const records = await this.hosts.scanIndexEntries(after, SCAN_BATCH);
      for (const record of records) index.upsert(record, seq);
      if (records.length < SCAN_BATCH) break;
      after = records[records.length - 1]!.id;
    }
    await index.endBulk();
    this.memory = { bytes: index.memoryBytes(), at: Date.now() };
    this.index = index;
    this.appliedSeq = seq;
    this.lastRefreshAt = Date.now();
  }
}
