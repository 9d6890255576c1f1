import type { Storage } from '../storage/index.js';

const DAY_MS = 86_400_000;
/** Change-log entries older than this are pruned; an index further behind rebuilds itself. */
const CHANGE_LOG_KEEP_MS = DAY_MS;

export interface ExpirySummary {
  expired: number;
  prunedChanges: number;
  durationMs: number;
}

/** The rolling window: removes records observed before now − retention. 0 days disables it. */
export async function expireObservations(storage: Storage, retentionDays: number, now = Date.now()): Promise<ExpirySummary> {
  const started = performance.now();
  const expired = retentionDays > 0 ? await storage.hosts.expire(now - retentionDays * DAY_MS) : 0;
  const prunedChanges = await storage.hosts.pruneChanges(now - CHANGE_LOG_KEEP_MS);
  return { expired, prunedChanges, durationMs: performance.now() - started };
}
