import { hostname } from 'node:os';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { cpeCveIndexOf } from '../services/matching/name-cves.js';
import { CpeNameIndex } from '../search/cpe-names/index.js';
import { AdvisoryIndex } from '../search/advisories/advisory-index.js';
import { IndexSync } from '../search/index-sync.js';
import { createStorage, type Storage } from '../storage/index.js';
import { buildApp, type AppOptions } from './app.js';
import type { AppContext } from './context.js';
import { JobLeadership } from './job-leadership.js';
import { Lifecycle } from './lifecycle.js';
import { expirySweepJob, remapJob } from './periodic-jobs.js';
import { TokenAuthenticator } from './token-auth.js';

/** A context whose indexes are built: ready to serve (tests, tools). */
export async function createContext(config: Config, storage?: Storage): Promise<AppContext> {
  const context = await openContext(config, storage);
  try {
    await buildIndexes(context);
  } catch (error) {
    if (!storage) await context.storage.close().catch(() => {});
    throw error;
  }
  context.lifecycle.markReady();
  return context;
}

/** Storage, tokens and the (empty) indexes: what the app needs to answer while its indexes load. */
async function openContext(config: Config, storage?: Storage): Promise<AppContext> {
  const store = storage ?? (await createStorage(config.database));
  try {
    return {
      config,
      storage: store,
      hostIndex: new IndexSync(store.hosts),
      advisoryIndex: new AdvisoryIndex(store.advisories),
      cpeNames: new CpeNameIndex(store.knowledge),
      tokens: new TokenAuthenticator(store.tokens, config.tokenIdleDays),
      secret: config.secret ?? (await store.secret()),
      startedAt: Date.now(),
      lifecycle: new Lifecycle(),
    };
  } catch (error) {
    // Storage opened here is closed here; a caller's storage stays the caller's.
    if (!storage) await store.close().catch(() => {});
    throw error;
  }
}

async function buildIndexes(context: AppContext): Promise<void> {
  await context.hostIndex.build();
  await context.cpeNames?.build();
  await context.advisoryIndex?.build();
}

export interface RunningServer {
  app: FastifyInstance;
  context: AppContext;
  url: string;
  close(): Promise<void>;
}

/** Builds the context and app, listens, and runs the background work (index tailing, expiry, token last-use). */
export interface ServerOptions extends Omit<AppOptions, 'jobs'> {
  /**
   * Whether this process contends for the periodic jobs (expiry sweep, backups, re-mapping), which
   * run on one process at a time among every instance on the database; one worker of a cluster.
   */
  sweeper?: boolean;
  /**
   * Listen before the indexes are built, answering 503 "starting" meanwhile (default true). A
   * cluster's workers listen only when ready: the primary hands connections to every listening
   * worker, so one still loading would refuse its share.
   */
  listenEarly?: boolean;
}

/**
 * Listens at once (answering 503 "starting" until the indexes are built, so a probe can tell a
 * loading process from a dead one), then builds the indexes and starts the background work.
 */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const context = await openContext(config);
  let app: FastifyInstance | undefined;
  let jobs: JobLeadership | undefined;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    context.lifecycle.markDraining();
    // The jobs stop (and the lock is released) while requests drain.
    const jobsStopped = jobs?.stop();
    if (app) await drain(app, config.drainTimeoutMs);
    await jobsStopped;
    await context.hostIndex.stop();
    await context.advisoryIndex?.stop();
    await context.cpeNames?.stop();
    await cpeCveIndexOf(context.storage).stop();
    await context.tokens.stop().catch(() => {});
    await context.storage.close();
  };
  try {
    let log: FastifyBaseLogger | undefined;
    if (options.sweeper !== false) {
      jobs = new JobLeadership(await context.storage.openJobLock(`${hostname()}:${process.pid}`), {
        changed: (leading) =>
          log?.info(
            leading
              ? 'this instance holds the job lock: it runs the periodic jobs (expiry, backups, re-mapping)'
              : 'this instance lost the job lock: another runs the periodic jobs',
          ),
        error: (error, what) => log?.warn({ err: error }, `${what} failed`),
      });
    }
    const built = await buildApp(context, { ...options, ...(jobs ? { jobs } : {}) });
    app = built;
    log = built.log;
    const logError = (what: string) => (error: unknown) => built.log.error({ err: error }, what);
    context.storage.db.onBreakerChange?.((status) =>
      status.state === 'open'
        ? built.log.error({ reason: status.reason }, 'database stopped answering: requests get 503 until it does')
        : built.log.info('database answers again'),
    );
    const listen = () => built.listen({ host: config.host, port: config.port });
    const early = options.listenEarly !== false ? await listen() : undefined;
    await buildIndexes(context);
    const address = early ?? (await listen());
    context.hostIndex.start(config.indexPollMs, logError('index refresh failed'));
    context.cpeNames?.start(config.indexPollMs, logError('CPE name index refresh failed'));
    await context.hostIndex.listen(logError('listening for change-log commits failed'));
    await context.advisoryIndex?.listen(logError('listening for advisory feed switches failed'));
    await context.cpeNames?.listen(logError('listening for CPE name changes failed'));
    await cpeCveIndexOf(context.storage).listen(logError('listening for knowledge changes failed'));
    context.tokens.start(60_000, logError('token last-use flush failed'));
    jobs?.add(expirySweepJob(context, built.log));
    jobs?.add(remapJob(context, built.log));
    await jobs?.start();
    context.lifecycle.markReady();
    return { app: built, context, url: address, close };
  } catch (error) {
    // A failed start (a port in use, most often) must leave nothing running: no index polling,
    // no token flush, no open database, so the process can report it and exit at once.
    await close().catch(() => {});
    throw error;
  }
}

/**
 * Stops taking connections and lets in-flight requests finish for at most `timeoutMs`; then the
 * remaining connections are cut, so a stuck request never keeps a stopping process alive.
 */
async function drain(app: FastifyInstance, timeoutMs: number): Promise<void> {
  const closing = app.close();
  // A keep-alive connection whose request finished during the drain is closed too.
  const idleSweep = setInterval(() => app.server.closeIdleConnections(), 100);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const outcome = await Promise.race([closing.then(() => 'closed' as const), timedOut]);
  clearTimeout(timer);
  clearInterval(idleSweep);
  if (outcome === 'timeout') {
    app.log.warn({ drain_timeout_ms: timeoutMs }, 'requests still running at the drain deadline: connections cut');
    app.server.closeAllConnections();
    await closing;
  }
}
