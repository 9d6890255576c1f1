/**
 * The resumable schedule of an NVD API sync, shared by the CVE and CPE syncs:
 *
 * - **First sync** (no sync point): the whole collection by plain paging, no date filter (what
 *   NVD recommends for an initial load). The run's start time becomes the sync point.
 * - **Later syncs**: last-modified windows of at most 120 days from the previous sync point
 *   (less an overlap, for NVD's late publication of changes and clock differences) to now.
 * - **Resume**: after each stored page the position (window, startIndex) is saved; a sync that
 *   finds an unfinished run continues it at the saved page, then brings the data up to now.
 * - A window whose `totalResults` drops while it is read (records modified meanwhile left it, so
 *   positions shifted and a record may have been skipped) is read again from its start, once.
 */
import { nvdPages, type NvdApiClient, type NvdPage } from './nvd-api.js';
import { dateWindows, lastModifiedParams, type DateWindow } from './nvd-windows.js';
import type { ApiSyncRun, ApiSyncState, SyncStateStore } from './sync-state.js';

/** How far before the previous sync point an incremental sync starts. */
export const DEFAULT_OVERLAP_MS = 60 * 60_000;

export interface NvdCollection {
  path: string;
  listKey: string;
  resultsPerPage: number;
}

export interface PageContext {
  kind: ApiSyncRun['kind'];
  /** The last-modified window of an incremental run. */
  window?: DateWindow;
}

export interface NvdSyncOptions {
  client: NvdApiClient;
  state: SyncStateStore;
  collection: NvdCollection;
  /** Stores one page; the position after it is saved once this resolves. */
  onPage: (page: NvdPage, context: PageContext) => Promise<void>;
  /** Forget the sync point and any unfinished run: load everything again. */
  full?: boolean;
  now?: () => number;
  overlapMs?: number;
}

export interface NvdSyncOutcome {
  /** The runs done: an unfinished one resumed first, when there was one. */
  runs: Array<{ kind: ApiSyncRun['kind']; resumed: boolean; from?: number; until: number }>;
  windows: number;
  pages: number;
  items: number;
  /** The new sync point (epoch ms). */
  syncedUntil: number;
}

/** What a caller reports of an API sync. */
export interface NvdApiSyncSummary extends Omit<NvdSyncOutcome, 'items'> {
  /** HTTP requests sent, retries included. */
  requests: number;
}

export async function runNvdSync(options: NvdSyncOptions): Promise<NvdSyncOutcome> {
  const { client, collection } = options;
  const now = options.now ?? Date.now;
  const overlap = options.overlapMs ?? DEFAULT_OVERLAP_MS;
  const base = client.baseUrl;
  let state: ApiSyncState = { base };
  if (!options.full) {
    const stored = await options.state.read();
    if (stored?.base === base) state = stored;
  }
  const outcome: NvdSyncOutcome = { runs: [], windows: 0, pages: 0, items: 0, syncedUntil: 0 };
  const save = (run: ApiSyncRun | undefined) => {
    state = {
      base,
      ...(state.syncedUntil !== undefined ? { syncedUntil: state.syncedUntil } : {}),
      ...(run ? { run } : {}),
    };
    return options.state.write(state);
  };

  /** Pages through one query from the run's position, saving the position after each page. */
  async function readAll(
    run: ApiSyncRun,
    params: Record<string, string> | undefined,
    window: DateWindow | undefined,
  ): Promise<ApiSyncRun> {
    let reread = false;
    for (;;) {
      let shrunk = false;
      let known = run.totalResults;
      const pages = nvdPages(client, { ...collection, ...(params ? { params } : {}), startIndex: run.startIndex });
      for await (const page of pages) {
        if (known !== undefined && page.totalResults < known) shrunk = true;
        known = page.totalResults;
        await options.onPage(page, { kind: run.kind, ...(window ? { window } : {}) });
        outcome.pages++;
        outcome.items += page.items.length;
        run = { ...run, startIndex: page.next, totalResults: page.totalResults };
        await save(run);
      }
      if (!shrunk || reread) return run;
      reread = true;
      const { totalResults: _stale, ...rest } = run;
      run = { ...rest, startIndex: 0 };
      await save(run);
    }
  }

  let run = state.run;
  const resumed = run !== undefined;
  for (;;) {
    if (!run) {
      const until = now();
      if (state.syncedUntil === undefined) run = { kind: 'full', until, startIndex: 0 };
      else {
        const from = Math.max(0, Math.min(state.syncedUntil, until) - overlap);
        run = { kind: 'incremental', until, from, windowStart: from, startIndex: 0 };
      }
      await save(run);
    }
    outcome.runs.push({
      kind: run.kind,
      resumed: resumed && outcome.runs.length === 0,
      ...(run.from !== undefined ? { from: run.from } : {}),
      until: run.until,
    });
    if (run.kind === 'full') {
      outcome.windows++;
      run = await readAll(run, undefined, undefined);
    } else {
      for (const window of dateWindows(run.windowStart ?? run.from ?? run.until, run.until)) {
        outcome.windows++;
        const { totalResults: _done, ...rest } = await readAll(run, lastModifiedParams(window), window);
        run = { ...rest, windowStart: window.end, startIndex: 0 };
        await save(run);
      }
    }
    state = { base, syncedUntil: run.until };
    await options.state.write(state);
    outcome.syncedUntil = run.until;
    // A resumed run may be old: continue with the changes since it began.
    if (!resumed || outcome.runs.length > 1) return outcome;
    run = undefined;
  }
}
