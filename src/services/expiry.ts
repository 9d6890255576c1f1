import type { Storage } from '../storage/index.js';

const DAY_MS = 86_400_000;
/** Change-log entries older than this are pruned; an index further behind rebuilds itself. */
const CHANGE_LOG_KEEP_MS = DAY_MS;

export interface ExpirySummary {
  expired: number;
  prunedChanges: number;
  durationMs: number;
}

/**
 * Where the expired records are found: a server's in-memory index knows them from its time
 * buckets; without one, a pass over the table does.
 */
export type ExpiredIdFinder = (before: number) => Promise<number[]> | number[];

/** How far an expiry is: records examined of those found older than the window, and removed. */
export type ExpiryProgress = (progress: { examined: number; total: number; expired: number }) => void;

/** The rolling window: removes records observed before now − retention. 0 days disables it. */
export async function expireObservations(
  storage: Storage,
  retentionDays: number,
  now = Date.now(),
  findExpired: ExpiredIdFinder = (before) => storage.hosts.idsObservedBefore(before),
  onProgress?: ExpiryProgress,
): Promise<ExpirySummary> {
  const started = performance.now();
  let expired = 0;
  if (retentionDays > 0) {
    const before = now - retentionDays * DAY_MS;
    // An index a moment behind the database may miss a record written meanwhile: the next sweep takes it.
    const ids = await findExpired(before);
    onProgress?.({ examined: 0, total: ids.length, expired: 0 });
    expired = await storage.hosts.expire(ids, before, undefined, (batch) =>
      onProgress?.({ ...batch, total: ids.length }),
    );
  }
  const prunedChanges = await storage.hosts.pruneChanges(now - CHANGE_LOG_KEEP_MS);
  return { expired, prunedChanges, durationMs: performance.now() - started };
}
