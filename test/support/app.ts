import type { FastifyInstance } from 'fastify';
import { confirmingMatcher } from '../../src/services/matching/source.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Observation, ReadItem } from '../../src/core/observation.js';
import { ClassificationResolver } from '../../src/ingest/classifications/resolver.js';
import { runIngest, type IngestSummary, type PipelineOptions } from '../../src/ingest/pipeline.js';
import { buildApp } from '../../src/server/app.js';
import type { AppContext } from '../../src/server/context.js';
import { createContext } from '../../src/server/main.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import type { EngineCase } from './engines.js';

export interface TestApp {
  app: FastifyInstance;
  context: AppContext;
  storage: Storage;
  config: Config;
  token: string;
  logs: string[];
  /** Ingests observations through the real pipeline and brings the index up to date. */
  ingest(
    observations: Array<Partial<Observation> & { ip: string; port: number }>,
    options?: Partial<PipelineOptions>,
  ): Promise<IngestSummary>;
  get(url: string, token?: string | null): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

export function observation(partial: Partial<Observation> & { ip: string; port: number }): Observation {
  return {
    protocol: 'tcp',
    hostnames: [],
    timestamp: Date.now(),
    fingerprints: [],
    osCpes: [],
    cves: [],
    classifications: [],
    ...partial,
  };
}

export async function* asItems(observations: Observation[]): AsyncIterable<ReadItem> {
  let line = 0;
  for (const obs of observations) yield { kind: 'observation', observation: obs, at: { file: 'test', line: ++line } };
}

export async function startTestApp(engine: EngineCase, env: Record<string, string> = {}): Promise<TestApp> {
  const database = await engine.fresh();
  // Tests make many requests with one token: unlimited unless a test sets a budget.
  const config: Config = {
    ...loadConfig({ VULNSCOPE_RETENTION_DAYS: '0', VULNSCOPE_RATE_LIMIT: 'unlimited', ...env }),
    database: database.config,
  };
  const storage = await createStorage(database.config);
  const context = await createContext(config, storage);
  const logs: string[] = [];
  const logStream = {
    write(chunk: string) {
      logs.push(chunk);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const app = await buildApp(context, { logStream });
  const { token } = await storage.tokens.create('test');
  return {
    app,
    context,
    storage,
    config,
    token,
    logs,
    async ingest(observations, options = {}) {
      const classifier = new ClassificationResolver(await storage.classificationLists.allEntries());
      const summary = await runIngest(
        storage,
        asItems(observations.map(observation)),
        { classifier, matcher: confirmingMatcher(storage) },
        {
          retentionDays: config.retentionDays,
          ...options,
        },
      );
      await context.hostIndex.refresh();
      return summary;
    },
    async get(url, useToken) {
      const headers: Record<string, string> = {};
      const chosen = useToken === undefined ? token : useToken;
      if (chosen) headers.authorization = `Bearer ${chosen}`;
      const response = await app.inject({ method: 'GET', url, headers });
      let body: unknown = response.body;
      try {
        body = response.json();
      } catch {
        /* not JSON: tests assert on that */
      }
      return { status: response.statusCode, body, headers: response.headers };
    },
    async close() {
      await app.close();
      await context.tokens.stop().catch(() => {});
      await storage.close();
      await database.drop();
    },
  };
}
