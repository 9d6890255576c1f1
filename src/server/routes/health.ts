import type { FastifyInstance } from 'fastify';
import { Health, Liveness, NoQuery } from '../../core/api/index.js';
import type { AppContext } from '../context.js';
import type { RateLimiter } from '../rate-limit/limiter.js';

/**
 * Probes for load balancers and orchestrators, without a token, saying only whether this process
 * is live and ready: `/healthz` is 200 when it serves the API (indexes loaded, not draining,
 * storage answering) and 503 otherwise; `/healthz/live` is 200 while the process runs at all.
 * Process figures (pid, memory, change-log position, where the database is) are behind the
 * operator token at `/process/status`.
 */
export function registerHealth(app: FastifyInstance, context: AppContext, rateLimiter: RateLimiter): void {
  app.get(
    '/healthz/live',
    {
      schema: {
        summary: 'Liveness: 200 while the process runs',
        tags: ['service'],
        querystring: NoQuery,
        body200: Liveness,
      },
    },
    async () => ({ live: true }),
  );
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Readiness: 200 when this process serves the API, else 503',
        tags: ['service'],
        querystring: NoQuery,
        body200: Health,
        body503: Health,
      },
    },
    async (request, reply) => {
      let status: string = context.lifecycle.state;
      if (context.lifecycle.ready) {
        try {
          await context.storage.db.ping();
          status = 'ok';
        } catch (error) {
          // The driver's message may name a file, a host or SQL: the log gets it, the body never does.
          request.log.warn({ err: error }, 'health check: storage unreachable');
          status = 'unavailable';
        }
      }
      const ready = status === 'ok';
      reply.status(ready ? 200 : 503);
      if (!ready) reply.header('Retry-After', '5');
      // How request budgets are counted: `shared` (Redis), `per-instance` (Redis away) or `memory` (no Redis configured).
      return { status, live: true, ready, rate_limit: rateLimiter.mode() };
    },
  );
}
