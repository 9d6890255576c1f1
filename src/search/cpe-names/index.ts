import type { CpeNameSearch, KnowledgeRepository } from '../../storage/index.js';
import { NameDelta } from './delta.js';
import { allNames, type CpeNameMatch, type CpeNamePage, searchNames } from './evaluate.js';
import { Announcements } from '../announcements.js';
import { Slicer } from '../slices.js';
import { type NameSnapshot, NameSnapshotBuilder } from './snapshot.js';

export type { CpeNameMatch, CpeNamePage } from './evaluate.js';

export interface CpeNameIndexOptions {
  /** Changes held beside the snapshot before it is rebuilt in the background. */
  rebuildAt?: number;
  /** A log this far behind is not replayed: the snapshot is rebuilt (a dictionary load). */
  replayAtMost?: number;
  /** Longest stretch of building between two yields to the event loop, in ms. */
  sliceMs?: number;
}

/** Rows per statement: better-sqlite3 is synchronous, so each statement holds the event loop. */
const READ_BATCH = 2000;

interface State {
  snapshot: NameSnapshot;
  delta: NameDelta;
}

/**
 * Every CPE name in memory, for CPE search: totals and pages without scanning matches (see
 * docs/knowledge.md). Built from `cpe_names` in slices, then kept current from the name change
 * log: `catchUp()` (run before every search) applies the entries past the last one applied, so a
 * search sees every write committed before it began. One per server process.
 */
export class CpeNameIndex {
  private state: State | undefined;
  /** Counts every change of `state`: what was read under one value stays exact while it holds. */
  private stateChanges = 0;
  private appliedSeq = 0;
  /** Commits that changed names, as storage announces them (PostgreSQL). */
  private readonly announcements: Announcements;
  /** The latest catch-up, which a query waits for when nothing was announced since it began. */
  private latest: Promise<void> = Promise.resolve();
  /** State changes run one after another. */
  private tail: Promise<unknown> = Promise.resolve();
  private pendingCatchUp: Promise<void> | undefined;
  private rebuilding = false;
  private readonly rebuildAt: number;
  private readonly replayAtMost: number;
  private readonly sliceMs: number;
  private buildMs: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly knowledge: KnowledgeRepository,
    options: CpeNameIndexOptions = {},
  ) {
    this.rebuildAt = options.rebuildAt ?? 20_000;
    this.replayAtMost = options.replayAtMost ?? 50_000;
    this.sliceMs = options.sliceMs ?? 15;
    this.announcements = new Announcements((handlers) => knowledge.watchChanges(handlers));
  }

  /** Builds from the table (the first catch-up builds too; this is for a server's start). */
  build(): Promise<void> {
    return this.catchUp();
  }

  /**
   * Applies every log entry committed before this call. Callers arriving while a catch-up waits to
   * start share it; one arriving after it started gets the next.
   */
  catchUp(): Promise<void> {
    if (this.state && this.announcements.quiet) return this.latest;
    if (!this.pendingCatchUp) {
      const run = this.exclusive(async () => {
        this.pendingCatchUp = undefined;
        this.announcements.readStarted();
        try {
          await this.applyLog();
        } catch (error) {
          this.announcements.markPending();
          throw error;
        }
      });
      this.pendingCatchUp = run;
      this.latest = run;
    }
    return this.pendingCatchUp;
  }

  /** Listens for announced name changes, where storage announces them (PostgreSQL): quiet queries read nothing. */
  listen(onError: (error: unknown) => void, retryMs = 1000): Promise<void> {
    return this.announcements.listen(onError, retryMs);
  }

  /** Catches up every `intervalMs` until stopped, so a large change is rebuilt before a search waits for it. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    clearTimeout(this.timer);
    const tick = () => {
      this.catchUp()
        .catch(onError)
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, intervalMs).unref();
        });
    };
    this.timer = setTimeout(tick, intervalMs).unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.announcements.stop();
  }

  /** The exact total and one page of the names matching `search`, as of now. */
  async search(search: CpeNameSearch): Promise<CpeNamePage> {
    await this.catchUp();
    const { snapshot, delta } = this.state!;
    return searchNames(snapshot, delta, search);
  }

  /** Names held (as of the last catch-up). */
  get size(): number {
    if (!this.state) return 0;
    const { snapshot, delta } = this.state;
    return snapshot.size - delta.removed.size + delta.added.length;
  }

  /** Every name in id order, as of the last catch-up (call `catchUp()` first); later changes are not seen. */
  names(): Iterable<CpeNameMatch> {
    if (!this.state) return [];
    const { snapshot, delta } = this.state;
    return allNames(snapshot, delta);
  }

  /**
   * A number that changes whenever the names held do (as of the last catch-up): an answer derived
   * from searches stays exact while it holds the value read before them.
   */
  get generation(): number {
    return this.stateChanges;
  }

  memoryBytes(): number {
    return this.state ? this.state.snapshot.byteLength + this.state.delta.byteLength : 0;
  }

  status(): { names: number; appliedSeq: number; memoryBytes: number; buildMs?: number; pending: number } {
    return {
      names: this.size,
      appliedSeq: this.appliedSeq,
      memoryBytes: this.memoryBytes(),
      pending: this.state?.delta.size ?? 0,
      ...(this.buildMs !== undefined ? { buildMs: this.buildMs } : {}),
    };
  }

  private setState(state: State): void {
    this.state = state;
    this.stateChanges++;
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => {});
    return run;
  }

  private async applyLog(): Promise<void> {
    if (!this.state) await this.rebuild();
    // Statements resolve without returning to the event loop (SQLite): a long catch-up yields itself.
    const slicer = new Slicer(this.sliceMs);
    for (;;) {
      await slicer.yieldIfDue();
      const latest = await this.knowledge.latestCpeNameChange();
      if (latest === this.appliedSeq) break;
      if (latest < this.appliedSeq || latest - this.appliedSeq > this.replayAtMost) {
        await this.rebuild();
        continue;
      }
      const changes = await this.knowledge.cpeNameChangesSince(this.appliedSeq, READ_BATCH);
      if (changes.length === 0) break;
      // The log was pruned past this position: only a rebuild is exact.
      if (changes[0]!.seq > this.appliedSeq + 1) {
        const oldest = await this.knowledge.oldestCpeNameChange();
        if (oldest !== undefined && oldest > this.appliedSeq + 1) {
          await this.rebuild();
          continue;
        }
      }
      const ids = new Set(changes.map((change) => change.nameId));
      const rows = await this.knowledge.cpeNamesByIds([...ids]);
      await slicer.yieldIfDue();
      const { snapshot, delta } = this.state!;
      this.setState({ snapshot, delta: delta.apply(snapshot, ids, new Map(rows.map((row) => [row.id, row]))) });
      this.appliedSeq = changes[changes.length - 1]!.seq;
      if (changes.length < READ_BATCH) break;
    }
    if (this.state!.delta.size > this.rebuildAt && !this.rebuilding) this.rebuildInBackground();
  }

  /** Reads the whole table into a new snapshot (the log position first, so nothing is missed). */
  private async readSnapshot(): Promise<{ snapshot: NameSnapshot; seq: number }> {
    const started = performance.now();
    const slicer = new Slicer(this.sliceMs);
    const seq = await this.knowledge.latestCpeNameChange();
    const builder = new NameSnapshotBuilder();
    let after: string | undefined;
    for (;;) {
      const rows = await this.knowledge.cpeNamePage(after, READ_BATCH);
      for (const row of rows) builder.add(row);
      if (rows.length < READ_BATCH) break;
      after = rows[rows.length - 1]!.id;
      await slicer.yieldIfDue();
    }
    const snapshot = await builder.finish(slicer);
    this.buildMs = performance.now() - started;
    return { snapshot, seq };
  }

  private async rebuild(): Promise<void> {
    const { snapshot, seq } = await this.readSnapshot();
    this.setState({ snapshot, delta: NameDelta.empty() });
    this.appliedSeq = seq;
  }

  /** Builds a new snapshot while searches go on over the current one, then switches and catches up. */
  private rebuildInBackground(): void {
    this.rebuilding = true;
    this.readSnapshot()
      .then(({ snapshot, seq }) =>
        this.exclusive(async () => {
          this.setState({ snapshot, delta: NameDelta.empty() });
          this.appliedSeq = seq;
          await this.applyLog();
        }),
      )
      // A failed background build leaves the current state, which stays exact: the next catch-up retries.
      .catch(() => {})
      .finally(() => {
        this.rebuilding = false;
      });
  }
}
