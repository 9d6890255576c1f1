import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/** Liveness and storage status; no token needed, so load balancers can probe it. */
export function registerHealth(app: FastifyInstance, context: AppContext): void {
  app.get(
    '/healthz',
    { schema: { summary: 'Process and storage status', tags: ['service'] } },
    async (request, reply) => {
      let storageOk = true;
      try {
        await context.storage.db.ping();
      } catch (error) {
        storageOk = false;
        // The driver's message may name a file, a host or SQL: the log gets it, the body never does.
        request.log.warn({ err: error }, 'health check: storage unreachable');
      }
      const index = context.hostIndex.status();
      const memory = process.memoryUsage();
      reply.status(storageOk ? 200 : 503);
      if (!storageOk) reply.header('Retry-After', '5');
      return {
        status: storageOk ? 'ok' : 'unavailable',
        uptime_seconds: Math.round((Date.now() - context.startedAt) / 1000),
        storage: {
          engine: context.storage.db.engine,
          // Where the database is (a file path, a host) only while it answers: a 503 body names none.
          ...(storageOk ? { location: context.storage.db.description } : {}),
          reachable: storageOk,
        },
        // Which process answered (one of a cluster's workers) and where its memory is.
        process: {
          pid: process.pid,
          rss_bytes: memory.rss,
          heap_total_bytes: memory.heapTotal,
          heap_used_bytes: memory.heapUsed,
          external_bytes: memory.external,
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
      };
    },
  );
}
