import { registerCpeSearch } from './routes/cpe-search/route.js';
import { registerCpeLookup } from './routes/cpe-lookup/route.js';
import { registerEntitlements } from './routes/entitlements.js';
import { registerOpenApiLookup } from './routes/openapi-lookup.js';
import { CpeNameIndex } from '../search/cpe-names/index.js';
import { takeTurn } from '../search/loop-turns.js';
import { FeedRegistry } from '../services/feed-registry.js';
import { INDEX_SOURCE_MODULE, indexSources } from '../services/index-backups.js';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { unavailable } from '../core/errors.js';
import type { Lifecycle } from './lifecycle.js';
import { registerDeadline } from './plugins/deadline.js';
import type { AppContext } from './context.js';
import type { JobLeadership } from './job-leadership.js';
import { guardStateChanging, redactCredentials, requireToken } from './plugins/auth.js';
import { answerClientError, frameworkErrorHandler, registerErrorHandling } from './plugins/errors.js';
import { enforceRateLimit } from './plugins/rate-limit.js';
import { registerRequestTextChecks } from './plugins/request-text.js';
import { registerQueryNormaliser } from './plugins/query-normaliser.js';
import { registerResponseHeaders } from './plugins/response-headers.js';
import { registerTiming } from './plugins/timing.js';
import { createRateLimiter } from './rate-limit/limiter.js';
import { registerAdvisory } from './routes/advisory/route.js';
import { registerAdvisoryExport } from './routes/advisory/export.js';
import { ExportGate } from './export/export-gate.js';
import { AdvisoryIndex } from '../search/advisories/advisory-index.js';
import { registerBackup } from './routes/backup/route.js';
import { BackupScheduler } from '../backup/service.js';
import { BackupStore } from '../backup/store.js';
import { DOWNLOAD_PREFIX } from '../backup/urls.js';
import { registerHealth } from './routes/health.js';
import { PROCESS_STATUS_PREFIX, registerProcessStatus } from './routes/process-status.js';
import { collectRoutes, registerOpenApi } from './routes/openapi.js';
import { registerTargetIntel } from './routes/target-intel/route.js';
import { registerTargetIntelExport } from './routes/target-intel/export.js';
import { registerTargetIntelFacets } from './routes/target-intel/facets-route.js';
import { registerWhoami } from './routes/whoami.js';
import { registerTokens } from './routes/tokens.js';
import { registerSearchCve } from './routes/search-cve/route.js';
import { registerPurl } from './routes/purl/route.js';
import { registerC2Lists } from './routes/c2-lists/route.js';
import { VERSION } from '../version.js';
import { isPortalPage } from '../core/portal/pages.js';
import { isPortalPath, registerPortal } from './portal/routes.js';

const PUBLIC_PATHS = new Set(['/healthz', '/healthz/live', '/openapi.json']);

export interface AppOptions {
  /** Where log lines go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /**
   * Whether this process runs the cluster's background jobs; false in all but one worker. The
   * backup job starts when the server listens (never under `inject`) unless this is false.
   */
  sweeper?: boolean;
  /** When given, the backup job runs only while this process holds the job lock (see main.ts). */
  jobs?: JobLeadership;
}

/** While starting or draining, everything but the public paths is a 503 saying which. */
function refuseUnlessReady(lifecycle: Lifecycle, reply: FastifyReply): void {
  if (lifecycle.ready) return;
  if (lifecycle.state === 'draining') {
    reply.header('Connection', 'close');
    throw unavailable('the server is draining', 'draining');
  }
  throw unavailable('the indexes are loading', 'starting');
}

/** The HTTP application, without listening: tests drive it with `inject`, `main` listens. */
export async function buildApp(context: AppContext, options: AppOptions = {}): Promise<FastifyInstance> {
  const logger: FastifyServerOptions['logger'] = {
    level: context.config.logLevel,
    ...(options.logStream ? { stream: options.logStream } : {}),
    serializers: {
      req: (request: { method: string; url: string; ip?: string }) => ({
        method: request.method,
        // Tokens, and the signatures of backup URLs (credentials while they last), are redacted.
        url: redactCredentials(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
  const app: FastifyInstance = Fastify({
    logger,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, useDefaults: false } },
    // Errors raised before routing, and requests Node's parser refuses, in the documented shape.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: (error, socket) => answerClientError(error, socket, app.log),
    // A response stream whose client stops reading is cut after this long without progress.
    connectionTimeout: context.config.streamIdleTimeoutMs,
    // Requests arriving while the server drains get the documented 503 from the hook below.
    return503OnClosing: false,
  });
  const routes = collectRoutes(app, (url) => !PUBLIC_PATHS.has(url) && !url.startsWith(DOWNLOAD_PREFIX));
  registerDeadline(app, context.config.requestTimeoutMs);
  registerTiming(app);
  registerErrorHandling(app);
  registerRequestTextChecks(app);
  registerQueryNormaliser(app);
  registerResponseHeaders(app);
  app.addHook('onSend', async (_request, reply, payload) => {
    // A draining server lets every connection end with its current response.
    if (context.lifecycle.state === 'draining') reply.header('Connection', 'close');
    return payload;
  });
  const authenticate = requireToken(context.tokens);
  const rateLimiter =
    context.rateLimiter ??
    (await createRateLimiter(context.config, context.secret, (mode, cause) =>
      mode === 'shared'
        ? app.log.info('rate-limit store (Redis) reachable again; counting shared')
        : app.log.warn({ err: cause }, 'rate-limit store (Redis) unreachable; counting per instance'),
    ));
  if (!context.rateLimiter) app.addHook('onClose', () => rateLimiter.close());
  const limitRate = enforceRateLimit(rateLimiter);
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    // The operator routes answer only the operator token, and also while starting or draining.
    if (PUBLIC_PATHS.has(path) || path.startsWith(PROCESS_STATUS_PREFIX)) return;
    // The portal's pages check the sign-in cookie themselves (a page without one leads to sign-in).
    if (isPortalPage(path) || isPortalPath(path)) return;
    refuseUnlessReady(context.lifecycle, reply);
    // Signed backup downloads carry their own authorisation and are fetched without a token.
    if (path.startsWith(DOWNLOAD_PREFIX)) return;
    guardStateChanging(request, context.config.publicOrigin);
    await authenticate(request, reply);
    await limitRate(request, reply);
    await takeTurn();
  });
  registerHealth(app, context, rateLimiter);
  registerPortal(app, context);
  if (context.config.statusToken) registerProcessStatus(app, context, context.config.statusToken);
  registerTargetIntel(app, context);
  registerTargetIntelFacets(app, context);
  const advisoryIndex = context.advisoryIndex ?? new AdvisoryIndex(context.storage.advisories);
  registerAdvisory(app, context, advisoryIndex);
  registerSearchCve(app, context, advisoryIndex);
  const exports = new ExportGate(context.storage.exportLeases, context.config.exportsPerProcess, (error) =>
    app.log.warn({ err: error }, 'export lease could not be renewed or released'),
  );
  registerTargetIntelExport(app, context, exports);
  registerAdvisoryExport(app, context, advisoryIndex, exports);
  registerPurl(app, context, advisoryIndex);
  const cpeNames = context.cpeNames ?? new CpeNameIndex(context.storage.knowledge);
  registerCpeSearch(app, context, cpeNames);
  registerCpeLookup(app, context, cpeNames);
  registerEntitlements(app, context);
  const backups = new BackupStore(context.config.backupDir);
  await backups.ensure().catch((error: unknown) => app.log.warn({ err: error }, 'backup directory cannot be created'));
  registerBackup(app, context, backups);
  if (options.sweeper !== false && context.config.backupIntervalMs > 0) {
    const newScheduler = () =>
      new BackupScheduler({
        store: backups,
        storage: context.storage,
        config: context.config,
        feeds: new FeedRegistry(context.config.feeds).list(),
        indexes: { sources: indexSources, module: INDEX_SOURCE_MODULE },
        onWritten: (written) =>
          written.meta &&
          app.log.info(
            {
              backup: written.meta.file,
              records: written.meta.records,
              bytes: written.meta.size,
              ms: Math.round(written.ms),
              in_worker: Boolean(written.inWorker),
            },
            'backup written',
          ),
        onError: (error) => app.log.error({ err: error }, 'backup failed'),
      });
    if (options.jobs) {
      // A stopped scheduler stays stopped: each turn holding the lock gets a new one.
      let scheduler: BackupScheduler | undefined;
      options.jobs.add({
        name: 'backup archiving',
        start: () => {
          scheduler = newScheduler();
          scheduler.start();
        },
        stop: async () => {
          await scheduler?.stop();
          scheduler = undefined;
        },
      });
    } else {
      const scheduler = newScheduler();
      app.addHook('onListen', async () => scheduler.start());
      app.addHook('onClose', () => scheduler.stop());
    }
  }
  registerC2Lists(app, context);
  registerWhoami(app);
  registerTokens(app, context);
  registerOpenApi(app, routes, VERSION, context.config.publicUrl);
  registerOpenApiLookup(app, routes, VERSION, context.config.publicUrl);
  return app;
}
