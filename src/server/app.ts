import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AppContext } from './context.js';
import { redactToken, requireToken } from './plugins/auth.js';
import { registerErrorHandling } from './plugins/errors.js';
import { enforceRateLimit } from './plugins/rate-limit.js';
import { registerTiming } from './plugins/timing.js';
import { createRateLimiter } from './rate-limit/limiter.js';
import { registerAdvisory } from './routes/advisory/route.js';
import { registerHealth } from './routes/health.js';
import { collectRoutes, registerOpenApi } from './routes/openapi.js';
import { registerTargetIntel } from './routes/target-intel/route.js';
import { registerWhoami } from './routes/whoami.js';
import { VERSION } from '../version.js';

const PUBLIC_PATHS = new Set(['/healthz', '/openapi.json']);

export interface AppOptions {
  /** Where log lines go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
}

/** The HTTP application, without listening: tests drive it with `inject`, `main` listens. */
export async function buildApp(context: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const logger: FastifyServerOptions['logger'] = {
    level: context.config.logLevel,
    ...(options.logStream ? { stream: options.logStream } : {}),
    serializers: {
      req: (request: { method: string; url: string; ip?: string }) => ({
        method: request.method,
        url: redactToken(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
  const app = Fastify({
    logger,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
  });
  const routes = collectRoutes(app, (url) => !PUBLIC_PATHS.has(url));
  registerTiming(app);
  registerErrorHandling(app);
  const authenticate = requireToken(context.tokens);
  const rateLimiter =
    context.rateLimiter ??
    (await createRateLimiter(context.config, context.secret, (error) => app.log.warn({ err: error }, 'rate-limit store unreachable; counting per instance')));
  if (!context.rateLimiter) app.addHook('onClose', () => rateLimiter.close());
  const limitRate = enforceRateLimit(rateLimiter);
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (PUBLIC_PATHS.has(path)) return;
    await authenticate(request, reply);
    await limitRate(request, reply);
  });
  registerHealth(app, context);
  registerTargetIntel(app, context);
  registerAdvisory(app, context);
  registerWhoami(app);
  registerOpenApi(app, routes, VERSION);
  return app;
}
