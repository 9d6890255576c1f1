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

/** The rolling window: removes records observed before now − retention. 0 days disables it. */
export async function expireObservations(
  storage: Storage,
  retentionDays: number,
  now = Date.now(),
  findExpired: ExpiredIdFinder = (before) => storage.hosts.idsObservedBefore(before),
): Promise<ExpirySummary> {
  const started = performance.now();
  let expired = 0;
  if (retentionDays > 0) {
    const before = now - retentionDays * DAY_MS;
    // An index a moment behind the database may miss a record written meanwhile: the next sweep takes it.
    expired = await storage.hosts.expire(await findExpired(before), before);
  }
  const prunedChanges = await storage.hosts.pruneChanges(now - CHANGE_LOG_KEEP_MS);
  return { expired, prunedChanges, durationMs: performance.now() - started };
}
