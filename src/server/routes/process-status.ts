import { timingSafeEqual } from 'node:crypto';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from '../../core/errors.js';
import type { AppContext } from '../context.js';

/** Where the operator routes live; the API-token check leaves them to their own token. */
export const PROCESS_STATUS_PREFIX = '/process/';
/** Fine enough that a 50 ms stall shows as one (Node's default is 10 ms). */
const RESOLUTION_MS = 5;

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak_callbacks',
};

const round = (value: number) => Math.round(value * 100) / 100;
const ms = (nanoseconds: number) => Math.round((nanoseconds / 1e6) * 100) / 100;

/**
 * `GET /process/status` and `POST /process/status/reset`: this process's state, storage, index
 * position, worst event-loop delay since the last reset, and its memory, for operators and the
 * benchmarks. They answer only the
 * operator token (VULNSCOPE_STATUS_TOKEN), never an API token, and exist only when it is set. In a
 * cluster each worker answers for itself (`pid` says which); a reset returns the figures it cleared.
 */
export function registerProcessStatus(app: FastifyInstance, context: AppContext, statusToken: string): void {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let since = Date.now();
  // Garbage-collection pauses also stall the loop: counted apart so a stall can be told from a slow request.
  const gc = { count: 0, totalMs: 0, maxMs: 0, maxByKind: {} as Record<string, number> };
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count++;
      gc.totalMs += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
      const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      gc.maxByKind[kind] = Math.max(gc.maxByKind[kind] ?? 0, round(entry.duration));
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  app.addHook('onClose', async () => {
    delay.disable();
    gcObserver.disconnect();
  });
  const expected = Buffer.from(statusToken);
  const authorise = async (request: FastifyRequest) => {
    const given = Buffer.from(request.headers.authorization?.replace(/^Bearer\s+/i, '').trim() ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw unauthorized('unauthorized: the operator status token is required');
  };
  const status = () => {
    const memory = process.memoryUsage();
    const index = context.hostIndex.status();
    const breaker = context.storage.db.breakerStatus?.();
    return {
      pid: process.pid,
      state: context.lifecycle.state,
      uptime_seconds: Math.round((Date.now() - context.startedAt) / 1000),
      storage: {
        engine: context.storage.db.engine,
        location: context.storage.db.description,
        ...(breaker
          ? {
              breaker: {
                state: breaker.state,
                since: new Date(breaker.since).toISOString(),
                ...(breaker.reason ? { reason: breaker.reason } : {}),
              },
            }
          : {}),
      },
      index: {
        records: index.records,
        change_seq: index.appliedSeq,
        memory_bytes: index.memoryBytes,
        ...(index.buildMs !== undefined ? { build_ms: Math.round(index.buildMs) } : {}),
        ...(index.lastRefreshAt ? { refreshed_at: new Date(index.lastRefreshAt).toISOString() } : {}),
        // PostgreSQL: commits are announced to this process, so queries read the change log only after one.
        listening: index.listening,
      },
      since: new Date(since).toISOString(),
      event_loop_delay: {
        resolution_ms: RESOLUTION_MS,
        // The histogram counts the sampling interval in every sample: a stall is max − resolution.
        max_ms: ms(delay.max),
        p99_ms: ms(delay.percentile(99)),
        p50_ms: ms(delay.percentile(50)),
        samples: delay.count,
      },
      gc: {
        pauses: gc.count,
        total_ms: round(gc.totalMs),
        max_ms: round(gc.maxMs),
        max_ms_by_kind: { ...gc.maxByKind },
      },
      memory: {
        rss_bytes: memory.rss,
        heap_total_bytes: memory.heapTotal,
        heap_used_bytes: memory.heapUsed,
        external_bytes: memory.external,
      },
    };
  };
  app.get(`${PROCESS_STATUS_PREFIX}status`, { preHandler: authorise }, async () => status());
  app.post(`${PROCESS_STATUS_PREFIX}status/reset`, { preHandler: authorise }, async () => {
    const before = status();
    delay.reset();
    Object.assign(gc, { count: 0, totalMs: 0, maxMs: 0, maxByKind: {} });
    since = Date.now();
    return before;
  });
}
