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
import { expirySweepJob, remapJob } from './periodic-jobs.js';
import { TokenAuthenticator } from './token-auth.js';

export async function createContext(config: Config, storage?: Storage): Promise<AppContext> {
  const store = storage ?? (await createStorage(config.database));
  try {
    const hostIndex = new IndexSync(store.hosts);
    await hostIndex.build();
    const cpeNames = new CpeNameIndex(store.knowledge);
    await cpeNames.build();
    const advisoryIndex = new AdvisoryIndex(store.advisories);
    await advisoryIndex.build();
    return {
      config,
      storage: store,
      hostIndex,
      advisoryIndex,
      tokens: new TokenAuthenticator(store.tokens, config.tokenIdleDays),
      secret: config.secret ?? (await store.secret()),
      startedAt: Date.now(),
      cpeNames,
    };
  } catch (error) {
    // Storage opened here is closed here; a caller's storage stays the caller's.
    if (!storage) await store.close().catch(() => {});
    throw error;
  }
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
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const context = await createContext(config);
  let app: FastifyInstance | undefined;
  let jobs: JobLeadership | undefined;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await jobs?.stop();
    await context.hostIndex.stop();
    await context.advisoryIndex?.stop();
    await context.cpeNames?.stop();
    await cpeCveIndexOf(context.storage).stop();
    await app?.close();
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
    context.hostIndex.start(config.indexPollMs, logError('index refresh failed'));
    context.cpeNames?.start(config.indexPollMs, logError('CPE name index refresh failed'));
    await context.hostIndex.listen(logError('listening for change-log commits failed'));
    await context.advisoryIndex?.listen(logError('listening for advisory feed switches failed'));
    await context.cpeNames?.listen(logError('listening for CPE name changes failed'));
    await cpeCveIndexOf(context.storage).listen(logError('listening for knowledge changes failed'));
    context.tokens.start(60_000, logError('token last-use flush failed'));
    jobs?.add(expirySweepJob(context, built.log));
    jobs?.add(remapJob(context, built.log));
    const address = await built.listen({ host: config.host, port: config.port });
    await jobs?.start();
    return { app: built, context, url: address, close };
  } catch (error) {
    // A failed start (a port in use, most often) must leave nothing running: no index polling,
    // no token flush, no open database, so the process can report it and exit at once.
    await close().catch(() => {});
    throw error;
  }
}
