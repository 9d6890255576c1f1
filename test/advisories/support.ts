import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import type { AdvisoryRecord } from '../../src/ingest/advisories/types.js';
import { loadFeedItems, loadFeedSources, recordsAsItems, type FeedLoadSummary } from '../../src/ingest/feeds/load.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { buildApp } from '../../src/server/app.js';
import { createContext } from '../../src/server/main.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import type { TestApp } from '../support/app.js';
import { fixture, fixtureHead } from '../support/fixtures.js';

export const ADVISORY = '/v4/advisory';
export const ADVISORY_SCHEMA = 'search.V4AdvisoryReturnValue';
export { RECORD_SCHEMA } from '../support/contract.js';

/** Real feeds, in subsets that keep the tests quick. */
export const REAL_FEEDS = {
  'mitre-cvelist-v5': () => fixtureHead('cve5-vulnrichment.sample.ndjson.gz', 2000),
  'nist-nvd2': async () => fixture('nvd'),
  'cisa-kev': async () => fixture('feeds/cisa_kev_known_exploited_vulnerabilities.json.gz'),
  'go-vulndb': () => fixtureHead('feeds/golang_vulndb_osv.jsonl.gz', 300),
  pypa: () => fixtureHead('feeds/pypa_advisory_database_osv.jsonl.gz', 200),
  rustsec: () => fixtureHead('feeds/rustsec_advisory_db_osv.jsonl.gz', 200),
} as const;
export type RealFeed = keyof typeof REAL_FEEDS;

export async function loadRealFeed(storage: Storage, feed: RealFeed): Promise<FeedLoadSummary> {
  const registered = new FeedRegistry().get(feed)!;
  return loadFeedSources(storage, registered, [await REAL_FEEDS[feed]()]);
}

export async function loadRealFeeds(storage: Storage): Promise<Record<RealFeed, FeedLoadSummary>> {
  const summaries = {} as Record<RealFeed, FeedLoadSummary>;
  for (const feed of Object.keys(REAL_FEEDS) as RealFeed[]) summaries[feed] = await loadRealFeed(storage, feed);
  return summaries;
}

type Json = Record<string, unknown>;

/** A record in the served shape with just the parts a test needs. */
export function advisory(
  cveId: string,
  cna: Json = {},
  options: { dateUpdated?: string; adp?: Json[] } = {},
): AdvisoryRecord {
  return {
    dataType: 'CVE_RECORD',
    dataVersion: '5.0',
    cveMetadata: {
      cveId,
      state: 'PUBLISHED',
      ...(options.dateUpdated ? { dateUpdated: options.dateUpdated } : {}),
    },
    containers: {
      cna: { descriptions: [{ lang: 'en', value: `${cveId} test record` }], ...cna },
      ...(options.adp ? { adp: options.adp } : {}),
    },
  };
}

export function loadRecords(
  storage: Storage,
  feed: string,
  records: AdvisoryRecord[],
  mode: 'replace' | 'merge' = 'replace',
): Promise<FeedLoadSummary> {
  return loadFeedItems(
    storage,
    { name: feed, description: `${feed} (test)`, adapter: 'mitre-cvelist-v5' },
    recordsAsItems(records),
    {
      mode,
    },
  );
}

export const cveIds = (body: { data?: Array<{ cveMetadata: { cveId: string } }> }) =>
  (body.data ?? []).map((r) => r.cveMetadata.cveId);

export interface SecondApp {
  app: FastifyInstance;
  storage: Storage;
  get(url: string, token: string): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** Another server instance (its own context, pool and rate limiter) on the same database as `first`. */
export async function startSecondApp(first: TestApp, env: Record<string, string> = {}): Promise<SecondApp> {
  const config: Config = {
    ...loadConfig({ VULNSCOPE_RETENTION_DAYS: '0', VULNSCOPE_RATE_LIMIT: 'unlimited', ...env }),
    database: first.config.database,
  };
  const storage = await createStorage(config.database);
  const context = await createContext(config, storage);
  const app = await buildApp(context, { logStream: { write: () => true } as unknown as NodeJS.WritableStream });
  return {
    app,
    storage,
    async get(url, token) {
      const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      return { status: response.statusCode, body: response.json(), headers: response.headers };
    },
    async close() {
      await app.close();
      await context.tokens.stop().catch(() => {});
      await storage.close();
    },
  };
}
