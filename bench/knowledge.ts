/**
 * The knowledge benchmark: a deterministic synthetic NVD (bench/knowledge-dataset.ts) loaded through
 * the product's paths — CVE API 2.0 `cve` objects converted by the nist-nvd2 adapter's converter into
 * `loadFeedItems` (which derives knowledge after the load), and CPE API 2.0 product objects into
 * `ingestCpeDictionary` — then measured: `/v3/search/cpe` query classes in-process (the repository
 * calls (`searchCpe`) the route makes) and through the real server (c=1 and c=32, with
 * the `/whoami` floor), `KnowledgeMatcher.matchAll` over a stream of fingerprint contexts (cold and
 * warm caches), and `runIngest` with the matcher off and on.
 *
 *   node dist-bench/bench/knowledge.js [--cves 400000] [--names 1500000] [--engine sqlite|postgres]
 *        [--database-url URL] [--quick] [--small] [--contexts N] [--observations N] [--memory-observations N] [--out bench/results] [--workers 2]
 */
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { convertNvdCve } from '../src/ingest/advisories/nvd.js';
import type { AdvisoryItem } from '../src/ingest/advisories/types.js';
import { ClassificationResolver } from '../src/ingest/classifications/resolver.js';
import { loadFeedItems } from '../src/ingest/feeds/load.js';
import { ingestCpeDictionary } from '../src/ingest/knowledge/dictionary.js';
import { contextKey, KnowledgeMatcher } from '../src/services/matching/matcher.js';
import type { ContextMatch, MatchContext } from '../src/core/matching.js';
import { refreshKnowledgeAfterLoad } from '../src/ingest/knowledge/refresh.js';
import { storageKnowledgeSource } from '../src/services/matching/source.js';
import type { CveMatcher } from '../src/core/matching.js';
import { runIngest, type IngestSummary } from '../src/ingest/pipeline.js';
import { readScanFile } from '../src/ingest/readers/index.js';
import { createStorage, type Storage } from '../src/storage/index.js';
import { ipSortKey, parseIp } from '../src/core/ip.js';
import {
  benchDatabase,
  DEFAULT_DATA_DIR,
  type DataOptions,
  loadPreparedMeta,
  parseDataArg,
  savePreparedMeta,
} from './bench-data.js';
import { databaseUrlOf, dropSchema, fail, freePort, heapUsedAfterGc } from './common.js';
import { percentile, runLoad, timeRuns } from './http-load.js';
import { randomBytes } from 'node:crypto';
import { type ClassContext, measureClass } from './class-load.js';
import { type CpeEngine, openCpeEngine } from './cpe-engine.js';
import { measureIngestMemory } from './ingest-memory.js';
import { explainApi, explainEngine } from './knowledge-explain.js';
import { readLoopDelay } from './loop-delay.js';
import {
  buildKnowledgeModel,
  dictionaryCounts,
  emptyKnowledgeStats,
  generateContexts,
  generateCves,
  generateDictionary,
  type FingerprintContext,
  type KnowledgeModel,
} from './knowledge-dataset.js';
import {
  compareKnowledgeWithSqlite,
  writeKnowledgeReport,
  type IngestFigures,
  type KnowledgeBenchResult,
  type MatcherPass,
  type SearchFigures,
} from './knowledge-report.js';
import { databaseSize, getJson, startServer, stopServer } from './server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli/main.js');
const FEED = {
  name: 'nist-nvd2',
  description: 'Synthetic NVD CVE API 2.0 records (knowledge benchmark)',
  adapter: 'nist-nvd2',
};
const SEED = 11;
/** Contexts per matchAll call, as the ingest pipeline batches them. */
const MATCH_BATCH = 1000;
/** A matcher with cold caches, keeping confirmed CVEs only as ingest's `confirmingMatcher(storage)` does. */
const newMatcher = (storage: Storage) => new KnowledgeMatcher(storageKnowledgeSource(storage), { evidence: false });
/** Matching off: the pipeline always matches, so it gets a matcher that confirms nothing. */
const NO_MATCHING: CveMatcher = {
  matchAll: async (contexts) => contexts.map((): ContextMatch => ({ confirmed: [], evidence: [] })),
};
const KNOWLEDGE_TABLES = ['advisories', 'knowledge_cves', 'knowledge_criteria', 'cpe_names', 'cpe_aliases', 'hosts'];

interface Options extends DataOptions {
  cves: number;
  names: number;
  out: string;
  /** Leave out the matcher passes and the ingest runs (they take up to 15 minutes). */
  skipMatcher: boolean;
  quick: boolean;
  workers: number;
  contexts?: number;
  observations?: number;
  /** Observations for the long-ingest memory run (`vulnscope ingest scans` as its own process); absent: not run. */
  memoryObservations?: number;
  /** Seconds a cold matcher pass or an ingest run may take at most (the stream is cut there). */
  budget: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    cves: 400_000,
    names: 1_500_000,
    engine: 'sqlite',
    out: path.join(ROOT, 'bench/results'),
    quick: false,
    workers: 2,
    budget: 300,
    skipMatcher: false,
    data: DEFAULT_DATA_DIR,
    prepareOnly: false,
    reuse: false,
  };
  let small = false;
  const sized = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => argv[++i] ?? fail(`${arg} needs a value`);
    const dataArg = parseDataArg(argv, i, options);
    if (dataArg !== undefined) i = dataArg;
    else if (arg === '--skip-matcher') options.skipMatcher = true;
    else if (arg === '--cves') {
      options.cves = Number(value());
      sized.add('cves');
    } else if (arg === '--names') {
      options.names = Number(value());
      sized.add('names');
    } else if (arg === '--engine') options.engine = value() as Options['engine'];
    else if (arg === '--database-url') options.databaseUrl = value();
    else if (arg === '--out') options.out = value();
    else if (arg === '--quick') options.quick = true;
    else if (arg === '--small') small = true;
    else if (arg === '--workers') options.workers = Number(value());
    else if (arg === '--contexts') options.contexts = Number(value());
    else if (arg === '--observations') options.observations = Number(value());
    else if (arg === '--memory-observations') options.memoryObservations = Number(value());
    else if (arg === '--budget') options.budget = Number(value());
    else fail(`unknown argument ${arg}`);
  }
  if (small) {
    // The small preset: a twentieth of the default sizes, few repetitions (a few minutes).
    options.quick = true;
    if (!sized.has('cves')) options.cves = 20_000;
    if (!sized.has('names')) options.names = 75_000;
  }
  if (!Number.isInteger(options.cves) || options.cves < 100) fail('--cves must be a whole number ≥ 100');
  if (!Number.isInteger(options.names) || options.names < 1000) fail('--names must be a whole number ≥ 1000');
  for (const key of ['contexts', 'observations', 'memoryObservations'] as const) {
    const n = options[key];
    const flag = key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    if (n !== undefined && (!Number.isInteger(n) || n < 1)) fail(`--${flag} must be a whole number ≥ 1`);
  }
  if (!(options.budget > 0)) fail('--budget must be a number of seconds > 0');
  if (!['sqlite', 'postgres'].includes(options.engine)) fail('--engine is sqlite or postgres');
  if (options.prepareOnly && options.reuse) fail('--prepare-only and --reuse exclude each other');
  if (!Number.isInteger(options.workers) || options.workers < 1) fail('--workers must be a whole number ≥ 1');
  return options;
}

const say = (message: string) =>
  process.stderr.write(`[bench-knw ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
/** Heap in use (after a full collection when run with --expose-gc, as `npm run bench:knowledge` does). */
const heapMiB = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
const seconds = (since: number) => (performance.now() - since) / 1000;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface QueryClass {
  name: string;
  params: Record<string, string>;
}

/** The CPE search classes, with values from the model (apache:http_server has its real version list). */
export function pickSearchQueries(model: KnowledgeModel): QueryClass[] {
  const { byVendor } = dictionaryCounts(model);
  const topVendor = [...byVendor].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  const heaviest = model.products.reduce(
    (best, p) => (p.nameCount > best.nameCount && p.part !== 'h' ? p : best),
    model.products[0]!,
  );
  const limit = { limit: '100' };
  const http = { vendor: 'apache', product: 'http_server' };
  return [
    { name: 'vendor+product', params: { ...http, ...limit } },
    { name: 'vendor+product (most names)', params: { vendor: heaviest.vendor, product: heaviest.product, ...limit } },
    { name: 'vendor+product+version', params: { ...http, version: '2.4.49', ...limit } },
    { name: 'version prefix 2.4.*', params: { ...http, version: '2.4.*', ...limit } },
    { name: 'part only', params: { part: 'a', ...limit } },
    { name: 'vendor only', params: { vendor: topVendor, ...limit } },
    { name: 'isVulnerable=true', params: { ...http, isVulnerable: 'true', ...limit } },
    { name: 'deep page (page 100)', params: { part: 'a', page: '100', ...limit } },
  ];
}

/** The `/v3/cpe` classes: a name (both bindings), a version prefix, whole products, and a vendor alone. */
export function pickLookupQueries(model: KnowledgeModel): QueryClass[] {
  const { byVendor } = dictionaryCounts(model);
  const topVendor = [...byVendor].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  const heaviest = model.products.reduce(
    (best, p) => (p.nameCount > best.nameCount && p.part !== 'h' ? p : best),
    model.products[0]!,
  );
  const name = 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*';
  return [
    { name: 'name', params: { cpe: name } },
    { name: 'name (2.2 URI)', params: { cpe: 'cpe:/a:apache:http_server:2.4.49' } },
    { name: 'name, isVulnerable=true', params: { cpe: name, isVulnerable: 'true' } },
    { name: 'version prefix 2.4.*', params: { cpe: 'cpe:2.3:a:apache:http_server:2.4.*' } },
    { name: 'product, no version', params: { cpe: 'cpe:2.3:a:apache:http_server' } },
    {
      name: 'product, no version (most names)',
      params: { cpe: `cpe:2.3:${heaviest.part}:${heaviest.vendor}:${heaviest.product}` },
    },
    { name: 'vendor alone', params: { cpe: `cpe:2.3:*:${topVendor}` } },
  ];
}

/**
 * The requests that used to stall a server, besides `part=a` at page 100 (the class "deep page"
 * above): the last page of the 10,000 window with no filter, and `version` with no vendor or
 * product (answered, or refused with a 400 that says what to add: the report says which).
 */
export function pickPathologicalSearches(): QueryClass[] {
  const limit = { limit: '100' };
  return [
    { name: 'no filter deep page (page 100)', params: { page: '100', ...limit } },
    { name: 'version alone', params: { version: '2.4.49', ...limit } },
  ];
}

async function* cveItems(model: KnowledgeModel, count: number, now: number): AsyncIterable<AdvisoryItem> {
  for (const cve of generateCves(model, count, { seed: SEED + 1, now })) {
    // As the nist-nvd2 adapter converts each `cve` object it reads.
    const record = convertNvdCve(cve);
    yield { kind: 'record', record, sourceId: record.cveMetadata.cveId };
  }
}

function checkDisk(dir: string, options: Options): void {
  // Generous: ~8 KiB per CVE (record, applicability, criteria) and ~700 B per name, plus the scan files.
  const needed = options.cves * 8192 + options.names * 700 + 200 * 2 ** 20;
  fs.mkdirSync(dir, { recursive: true });
  const stats = fs.statfsSync(dir);
  const free = stats.bavail * stats.bsize;
  if (free < needed)
    fail(
      `${dir}: ${(free / 2 ** 30).toFixed(1)} GiB free, the benchmark needs about ${(needed / 2 ** 30).toFixed(1)} GiB`,
    );
}

/** What the loads left behind, kept with a prepared database so a reusing run reports it too. */
interface PreparedKnowledge {
  now: number;
  cves: number;
  names: number;
  preparedAt: string;
  loadWall: number;
  derivationSeconds: number;
  derivation: { cvesChanged: number; criteria: number };
  summary: { records: number; rejected: number };
  dictionaryWall: number;
  dictionary: { names: number; deprecated: number; aliases: number; rejected: number };
  peakRssMiB: number;
}

async function prepare(
  storage: Storage,
  model: KnowledgeModel,
  options: Options,
  now: number,
): Promise<PreparedKnowledge> {
  say('loading the nist-nvd2 feed through loadFeedItems (knowledge derived after the load)');
  let t0 = performance.now();
  const summary = await loadFeedItems(storage, FEED, cveItems(model, options.cves, now), { source: 'bench' });
  const loadWall = seconds(t0);
  let derivation = summary.knowledge;
  let derivationSeconds = (derivation?.durationMs ?? 0) / 1000;
  if (!derivation) {
    // A loader that leaves knowledge to the caller: derive as the CLI does after it.
    t0 = performance.now();
    derivation = await refreshKnowledgeAfterLoad(storage, FEED.name);
    derivationSeconds = seconds(t0);
  }
  if (summary.records !== options.cves)
    throw new Error(`the feed holds ${summary.records} records, expected ${options.cves}`);
  say(
    `loaded ${fmt(summary.records)} records in ${loadWall.toFixed(1)} s, of which knowledge derivation ${derivationSeconds.toFixed(1)} s (${fmt(derivation?.cvesChanged ?? 0)} CVEs, ${fmt(derivation?.criteria ?? 0)} criteria)`,
  );

  say('loading the CPE dictionary through ingestCpeDictionary');
  t0 = performance.now();
  const dictionary = await ingestCpeDictionary(storage, generateDictionary(model, now));
  const dictionaryWall = seconds(t0);
  say(
    `dictionary: ${fmt(dictionary.names)} names in ${dictionaryWall.toFixed(1)} s (${dictionary.rejected} rejected, ${dictionary.aliases} renames)`,
  );
  if (dictionary.rejected !== 0) throw new Error(`the dictionary load rejected ${dictionary.rejected} names`);
  return {
    now,
    cves: options.cves,
    names: options.names,
    preparedAt: new Date().toISOString(),
    loadWall,
    derivationSeconds,
    derivation: { cvesChanged: derivation?.cvesChanged ?? 0, criteria: derivation?.criteria ?? 0 },
    summary: { records: summary.records, rejected: summary.rejected },
    dictionaryWall,
    dictionary: {
      names: dictionary.names,
      deprecated: dictionary.deprecated,
      aliases: dictionary.aliases,
      rejected: dictionary.rejected,
    },
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-bench-knw-'));
  const name = `knowledge-${options.cves}-${options.names}`;
  const keep = options.prepareOnly || options.reuse;
  if (!options.reuse) checkDisk(keep ? options.data : work, options);
  const database = benchDatabase(options, name, work, `knw_${options.cves}`);
  const url = databaseUrlOf(database);
  const reused = options.reuse ? loadPreparedMeta<PreparedKnowledge>(options, name) : undefined;
  if (!options.reuse) {
    await dropSchema(database);
    if (database.engine === 'sqlite')
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(database.file + suffix, { force: true });
  }
  const now = reused?.now ?? Date.now();
  const contextCount = options.contexts ?? (options.quick ? 1000 : 20_000);
  const observationCount = options.observations ?? (options.quick ? 1000 : 20_000);

  say(`model: ${fmt(options.names)} names, ${fmt(options.cves)} CVEs`);
  let t0 = performance.now();
  const model = buildKnowledgeModel(options.names, SEED);
  const modelSeconds = seconds(t0);
  // Dry passes: statistics, and the generation time the load rates leave out.
  t0 = performance.now();
  const stats = emptyKnowledgeStats(model);
  for (const _ of generateCves(model, options.cves, { seed: SEED + 1, now }, stats)) void _;
  const cveGenerateSeconds = seconds(t0);
  t0 = performance.now();
  let dictionaryItems = 0;
  for (const _ of generateDictionary(model, now)) dictionaryItems++;
  const dictionaryGenerateSeconds = seconds(t0);
  say(
    `generated in ${modelSeconds.toFixed(1)} s (model) + ${cveGenerateSeconds.toFixed(1)} s (CVEs) + ${dictionaryGenerateSeconds.toFixed(1)} s (dictionary)`,
  );

  const storage = await createStorage(database);
  let server: ChildProcess | undefined;
  try {
    const prepared = reused ?? (await prepare(storage, model, options, now));
    if (options.prepareOnly) {
      savePreparedMeta(options, name, prepared);
      say(`prepared: ${database.engine === 'sqlite' ? database.file : `schema ${database.schema}`}`);
      return;
    }
    const { loadWall, derivationSeconds, derivation, summary, dictionaryWall, dictionary, peakRssMiB } = prepared;
    const counts = await storage.knowledge.counts();
    const size = await databaseSize(storage, database, KNOWLEDGE_TABLES);
    say(
      `knowledge: ${fmt(counts.cves)} CVEs, ${fmt(counts.criteria)} criteria, ${fmt(counts.names)} names; database ${fmt(size.totalMiB)} MiB`,
    );

    // --- CPE search ----------------------------------------------------------------------
    const token = (await storage.tokens.create('bench', { rateLimit: 'unlimited' })).token;
    const statusToken = randomBytes(24).toString('base64url');
    say('building the in-process engine (the indexes the server builds)');
    const heapBefore = heapUsedAfterGc();
    t0 = performance.now();
    const engine = await openCpeEngine(storage);
    const engineBuildSeconds = seconds(t0);
    say(`engine: ${engine.description}; index memory ${fmt(engine.memoryBytes() / 2 ** 20)} MiB`);
    const port = await freePort();
    say('starting the server');
    const env = {
      VULNSCOPE_DATABASE_URL: url,
      VULNSCOPE_LOG_LEVEL: 'warn',
      VULNSCOPE_BACKUP_INTERVAL: '0',
      VULNSCOPE_STATUS_TOKEN: statusToken,
    };
    t0 = performance.now();
    server = await startServer(CLI, {
      ...env,
      VULNSCOPE_PORT: String(port),
      VULNSCOPE_WORKERS: String(options.workers),
    });
    const serverStartSeconds = seconds(t0);
    const baseUrl = `http://127.0.0.1:${port}`;
    const classContext = { baseUrl, token, statusToken, workers: options.workers, quick: options.quick };
    say('HTTP floor (GET /whoami)');
    const floor1 = await runLoad(['/whoami'], {
      baseUrl,
      token,
      concurrency: 1,
      requests: options.quick ? 40 : 300,
      warmup: 20,
    });
    const floor32 = await runLoad(['/whoami'], {
      baseUrl,
      token,
      concurrency: 32,
      requests: options.quick ? 100 : 2000,
      warmup: 20,
    });

    const measureAll = async (classes: QueryClass[]) => {
      const figures: SearchFigures[] = [];
      for (const query of classes) {
        say(`search: ${query.name} ${new URLSearchParams(query.params)}`);
        const q = await measureSearch(query, engine, classContext);
        figures.push(q);
        say(
          `  ${q.status === 400 ? 'refused (400)' : `total ${fmt(q.total ?? 0)}, ${q.links} CVE links on the page`}; engine p50 ${q.engineP50Ms?.toFixed(2) ?? '–'} ms, API p50 ${q.api.c1.p50Ms.toFixed(2)} p99 ${q.api.c1.p99Ms.toFixed(2)} ms, c=32 ${q.api.c32.requestsPerSecond.toFixed(1)} req/s p99 ${q.api.c32.p99Ms.toFixed(1)} ms, loop ${q.loop.worstMs.toFixed(1)} ms${q.serialiseP50Ms !== undefined ? `, serialise ${q.serialiseP50Ms.toFixed(1)} ms` : ''}`,
        );
      }
      return figures;
    };
    const queries = await measureAll(pickSearchQueries(model));
    const pathological = await measureAll(pickPathologicalSearches());
    const lookups: SearchFigures[] = [];
    for (const query of pickLookupQueries(model)) {
      say(`lookup: ${query.name} ${new URLSearchParams(query.params)}`);
      const q = await measureLookup(query, engine, classContext);
      lookups.push(q);
      say(
        `  ${q.status === 400 ? 'refused (400)' : `${fmt(q.total ?? 0)} CVEs`}; engine cold ${q.engineColdMs?.toFixed(2) ?? '–'} ms, p50 ${q.engineP50Ms?.toFixed(2) ?? '–'} ms, API p50 ${q.api.c1.p50Ms.toFixed(2)} p99 ${q.api.c1.p99Ms.toFixed(2)} ms, c=32 ${q.api.c32.requestsPerSecond.toFixed(1)} req/s`,
      );
    }
    const serverStatus = await readLoopDelay(baseUrl, statusToken, options.workers);
    // What the engine holds after every class ran through it (indexes, prepared products), the harness's other data aside.
    const engineHeapBytes = heapUsedAfterGc() - heapBefore;
    await stopServer(server);
    server = undefined;
    const searchMemory = {
      engine: engine.description,
      indexBytes: engine.memoryBytes(),
      engineHeapBytes,
      engineBuildSeconds,
      serverStartSeconds,
      workerRssMiB: serverStatus.workers.map((w) => w.rssMiB),
    };

    const matching = options.skipMatcher
      ? undefined
      : await measureMatching({ storage, model, work, contextCount, observationCount, now, budget: options.budget });

    let explain: KnowledgeBenchResult['explain'];
    if (matching) {
      // The records the new matcher's ingest run wrote carry knowledge CVEs: explain pages of them.
      const block = `${10 + INGEST_BLOCKS.cold}.`;
      const pages = options.quick ? 2 : 5;
      say(`explain=true: ${pages} pages of 100 records, in-process then through a fresh server`);
      const engineFigures = await explainEngine(storage, block, pages);
      t0 = performance.now();
      server = await startServer(CLI, {
        ...env,
        VULNSCOPE_PORT: String(port),
        VULNSCOPE_WORKERS: String(options.workers),
      });
      const explainServerStart = seconds(t0);
      const api = await explainApi(baseUrl, token, `${block}0.0.0/8`, engineFigures.pages);
      await stopServer(server);
      server = undefined;
      explain = { engine: engineFigures, api: { ...api, serverStartSeconds: explainServerStart } };
      say(
        `  engine cold ${engineFigures.coldMs.map((v) => v.toFixed(0)).join(' / ')} ms, warm p50 ${engineFigures.warmP50Ms.toFixed(1)} ms; API cold ${api.coldMs.map((v) => v.toFixed(0)).join(' / ')} ms, warm p50 ${api.warmP50Ms.toFixed(1)} ms`,
      );
    }

    let memory: KnowledgeBenchResult['memory'];
    if (options.memoryObservations !== undefined) {
      const block = INGEST_BLOCKS.memory;
      await clearBlock(storage, block);
      const file = path.join(work, 'observations-memory.ndjson');
      await writeObservations(file, model, options.memoryObservations, now, block);
      say(`long ingest: ${fmt(options.memoryObservations)} observations through \`vulnscope ingest scans\``);
      memory = await measureIngestMemory(CLI, url, file, options.memoryObservations);
      fs.rmSync(file, { force: true });
      say(`  ${fmt(memory.observationsPerSecond)} obs/s, peak RSS ${fmt(memory.peakRssMiB)} MiB`);
    }

    const result: KnowledgeBenchResult = {
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        // Other work on the machine shows here: the figures are only as quiet as the machine was.
        loadAverage: os.loadavg(),
        heapLimitMiB: v8.getHeapStatistics().heap_size_limit / 2 ** 20,
      },
      date: new Date().toISOString(),
      engine: options.engine,
      cves: options.cves,
      names: options.names,
      quick: options.quick,
      serverWorkers: options.workers,
      dataset: {
        products: model.products.length,
        vendors: new Set(model.products.map((p) => p.vendor)).size,
        namesByPart: Object.fromEntries(dictionaryCounts(model).byPart),
        cvesWithConfigurations: stats.withConfigurations,
        rejectedCves: stats.rejected,
        andConfigurations: stats.andConfigurations,
        cpeMatch: stats.cpeMatch,
        ranges: stats.ranges,
        exact: stats.exact,
        any: stats.any,
        platformCriteria: stats.platformCriteria,
        generateSeconds: { model: modelSeconds, cves: cveGenerateSeconds, dictionary: dictionaryGenerateSeconds },
      },
      load: {
        feed: {
          seconds: loadWall - derivationSeconds,
          recordsPerSecond: options.cves / Math.max(0.001, loadWall - derivationSeconds - cveGenerateSeconds),
          records: summary.records,
          rejected: summary.rejected,
        },
        derivation: {
          seconds: derivationSeconds,
          cvesPerSecond: (derivation?.cvesChanged ?? 0) / Math.max(0.001, derivationSeconds),
          cvesChanged: derivation?.cvesChanged ?? 0,
          criteria: derivation?.criteria ?? 0,
        },
        dictionary: {
          seconds: dictionaryWall,
          namesPerSecond: dictionaryItems / Math.max(0.001, dictionaryWall - dictionaryGenerateSeconds),
          names: dictionary.names,
          deprecated: dictionary.deprecated,
          aliases: dictionary.aliases,
          rejected: dictionary.rejected,
        },
        counts,
        peakRssMiB,
        database: size,
      },
      search: { floor: { c1: floor1, c32: floor32 }, queries, pathological, lookups, memory: searchMemory },
      ...(matching ?? {}),
      ...(explain ? { explain } : {}),
      ...(memory ? { memory } : {}),
      comparedWith: compareKnowledgeWithSqlite(options.out, options.engine, options.cves),
      ...(reused ? { preparedAt: reused.preparedAt } : {}),
    };
    const files = writeKnowledgeReport(options.out, result);
    say(`results: ${files.join(', ')}`);
  } finally {
    if (server) await stopServer(server);
    await storage.close();
    fs.rmSync(work, { recursive: true, force: true });
    if (!keep) await dropSchema(database);
  }
}

/** The matcher passes (cold, warm) and the ingest runs with the matcher off and on. */
async function measureMatching(run: {
  storage: Storage;
  model: KnowledgeModel;
  work: string;
  contextCount: number;
  observationCount: number;
  now: number;
  budget: number;
}): Promise<Pick<KnowledgeBenchResult, 'matcher' | 'ingest'>> {
  const { storage, model, work, contextCount, observationCount, now } = run;
  const options = { budget: run.budget };
  // --- matcher ---------------------------------------------------------------------------
  say(
    `matcher: ${fmt(contextCount)} fingerprint contexts in batches of ${MATCH_BATCH}, cold (at most ${options.budget} s) then warm`,
  );
  const heapBeforeMiB = heapMiB();
  let matcher: KnowledgeMatcher | undefined = newMatcher(storage);
  const cold = await matcherPass(matcher, model, contextCount, options.budget);
  // What the matcher's caches hold after the pass (contexts cached with all their evidence).
  const heapAfterColdMiB = heapMiB();
  say(
    `  cold: ${fmt(cold.contexts)} contexts, ${fmt(cold.contextsPerSecond)} contexts/s (${fmt(cold.fingerprintsPerSecond)} fingerprint CPEs/s); heap ${fmt(heapBeforeMiB)} → ${fmt(heapAfterColdMiB)} MiB`,
  );
  const warm = await matcherPass(matcher, model, cold.contexts);
  say(`  warm: ${fmt(warm.contextsPerSecond)} contexts/s (${fmt(warm.fingerprintsPerSecond)} fingerprint CPEs/s)`);

  // --- ingest with the matcher off and on --------------------------------------------------
  // One matcher alive at a time: the warmed one is dropped before the run with a new one.
  say(
    `ingest: ${fmt(observationCount)} observations through runIngest (at most ${options.budget} s each): matcher off, on (the warmed one), on (new)`,
  );
  const ingestRun = { storage, model, work, count: observationCount, now, budget: options.budget };
  const off = await measureIngest(ingestRun, 'off', NO_MATCHING);
  say(`  off: ${fmt(off.observationsPerSecond)} obs/s`);
  const onWarm = await measureIngest(ingestRun, 'warm', matcher);
  say(
    `  on, warmed matcher: ${fmt(onWarm.read)} observations, ${fmt(onWarm.observationsPerSecond)} obs/s; heap ${fmt(onWarm.heapMiB)} MiB`,
  );
  matcher = undefined;
  const table = new Map<string, string[]>();
  const on = await measureIngest(ingestRun, 'cold', recording(newMatcher(storage), table));
  say(
    `  on, new matcher: ${fmt(on.read)} observations, ${fmt(on.observationsPerSecond)} obs/s, ${fmt(on.withKnowledgeCves)} records with knowledge CVEs; heap ${fmt(on.heapMiB)} MiB`,
  );
  // The same observations as the new matcher's run read, their CVE sets from its answers.
  const baseline = await measureIngest({ ...ingestRun, count: on.read }, 'table', fromTable(table));
  table.clear();
  say(
    `  baseline (CVE sets from a table): ${fmt(baseline.read)} observations, ${fmt(baseline.observationsPerSecond)} obs/s, ${fmt(baseline.withKnowledgeCves)} records with knowledge CVEs`,
  );
  return {
    matcher: {
      batch: MATCH_BATCH,
      contexts: contextCount,
      budgetSeconds: options.budget,
      cold,
      warm,
      heapBeforeMiB,
      heapAfterColdMiB,
    },
    ingest: { observations: observationCount, budgetSeconds: options.budget, off, on, onWarm, baseline },
  };
}

async function measureSearch(query: QueryClass, engine: CpeEngine, context: ClassContext): Promise<SearchFigures> {
  const url = `/v3/search/cpe?${new URLSearchParams(query.params)}`;
  // The server decides whether the class is answered or refused; a refused class has no engine time.
  const probe = await getJson(`${context.baseUrl}${url}`, context.token);
  let first: { total: number; names: number; links: number } | undefined;
  let coldMs: number | undefined;
  let engineMs: number[] | undefined;
  if (probe.status === 200) {
    let t = performance.now();
    first = await engine.search(query.params);
    coldMs = performance.now() - t;
    t = performance.now();
    await engine.search(query.params);
    const warmMs = performance.now() - t;
    // Pages of a popular product list hundreds of thousands of CVEs: fewer repetitions when a call takes seconds.
    const runs = context.quick
      ? 5
      : Math.max(warmMs > 1000 ? 5 : 10, Math.min(200, Math.round(3000 / Math.max(warmMs, 0.05))));
    engineMs = await timeRuns(runs, () => engine.search(query.params));
  }
  const { run, body } = await measureClass(url, engineMs ? percentile(engineMs, 0.5) : 1, context);
  if (run.status === 200 && first) {
    const page = body as { _meta?: { total_documents?: number }; data?: Array<{ cves: string[] }> };
    if (page._meta?.total_documents !== first.total)
      throw new Error(`${query.name}: the API says ${page._meta?.total_documents} names, the engine ${first.total}`);
    const apiLinks = (page.data ?? []).reduce((sum, item) => sum + item.cves.length, 0);
    if (apiLinks !== first.links)
      throw new Error(`${query.name}: the API lists ${apiLinks} CVE links on the page, the engine ${first.links}`);
  }
  return {
    name: query.name,
    params: query.params,
    ...(first ? { total: first.total, names: first.names, links: first.links } : {}),
    ...(engineMs && coldMs !== undefined
      ? {
          engineRuns: engineMs.length,
          engineColdMs: coldMs,
          engineP50Ms: percentile(engineMs, 0.5),
          engineP99Ms: percentile(engineMs, 0.99),
        }
      : {}),
    ...run,
    api: { c1: run.c1, c32: run.c32 },
  };
}

async function measureLookup(query: QueryClass, engine: CpeEngine, context: ClassContext): Promise<SearchFigures> {
  const url = `/v3/cpe?${new URLSearchParams(query.params)}`;
  const params = query.params as { cpe: string; isVulnerable?: string };
  // The server decides whether the class is answered or refused; a refused class has no engine time.
  const probe = await getJson(`${context.baseUrl}${url}`, context.token);
  let total: number | undefined;
  let coldMs: number | undefined;
  let engineMs: number[] | undefined;
  if (probe.status === 200) {
    let t = performance.now();
    total = (await engine.lookup(params)).total;
    coldMs = performance.now() - t;
    t = performance.now();
    await engine.lookup(params);
    const warmMs = performance.now() - t;
    const runs = context.quick ? 5 : Math.max(10, Math.min(200, Math.round(3000 / Math.max(warmMs, 0.05))));
    engineMs = await timeRuns(runs, () => engine.lookup(params));
  }
  const { run, body } = await measureClass(url, engineMs ? percentile(engineMs, 0.5) : 1, context);
  if (run.status === 200 && total !== undefined) {
    const answer = body as { _meta?: { total_documents?: number } };
    if (answer._meta?.total_documents !== total)
      throw new Error(`${query.name}: the API lists ${answer._meta?.total_documents} CVEs, the engine ${total}`);
  }
  return {
    name: query.name,
    params: query.params,
    ...(total !== undefined ? { total, links: total } : {}),
    ...(engineMs && coldMs !== undefined
      ? {
          engineRuns: engineMs.length,
          engineColdMs: coldMs,
          engineP50Ms: percentile(engineMs, 0.5),
          engineP99Ms: percentile(engineMs, 0.99),
        }
      : {}),
    ...run,
    api: { c1: run.c1, c32: run.c32 },
  };
}

/** One pass of the context stream through `matchAll`, in pipeline-sized batches; generation is not timed. */
async function matcherPass(
  matcher: KnowledgeMatcher,
  model: KnowledgeModel,
  count: number,
  budgetSeconds = Infinity,
): Promise<MatcherPass> {
  const distinct = new Set<string>();
  let fingerprints = 0;
  let osCpes = 0;
  let matched = 0;
  let confirmed = 0;
  let evidence = 0;
  let busyMs = 0;
  let done = 0;
  let batch: MatchContext[] = [];
  const run = async () => {
    const t = performance.now();
    const results = await matcher.matchAll(batch);
    busyMs += performance.now() - t;
    done += batch.length;
    for (const result of results) {
      if (result.confirmed.length > 0) matched++;
      confirmed += result.confirmed.length;
      evidence += result.evidence.length;
    }
    batch = [];
  };
  for (const context of generateContexts(model, count, SEED + 2)) {
    if (busyMs / 1000 >= budgetSeconds) break;
    fingerprints += context.fingerprintCpes.length;
    osCpes += context.osCpes.length;
    distinct.add(contextKey(context));
    batch.push(context);
    if (batch.length >= MATCH_BATCH) await run();
  }
  if (batch.length > 0) await run();
  const secondsBusy = busyMs / 1000;
  return {
    contexts: done,
    distinctContexts: distinct.size,
    fingerprintCpes: fingerprints,
    osCpes,
    seconds: secondsBusy,
    contextsPerSecond: done / secondsBusy,
    fingerprintsPerSecond: fingerprints / secondsBusy,
    contextsWithConfirmed: matched,
    confirmedPerContext: confirmed / done,
    evidencePerContext: evidence / done,
  };
}

/** Scan records (Vulnscope NDJSON) carrying the stream's contexts; `block` keeps the two runs' IPs apart. */
async function writeObservations(
  file: string,
  model: KnowledgeModel,
  count: number,
  now: number,
  block: number,
): Promise<void> {
  // One seed for all runs: the same observations, at other addresses.
  const out = fs.createWriteStream(file);
  let buffer = '';
  let i = 0;
  for (const context of generateContexts(model, count, SEED + 3)) {
    const fingerprints = context.fingerprintCpes.map((cpe) => {
      const [, , , vendor, product, version] = cpe.split(':');
      return { vendor, product, ...(version !== '*' ? { version } : {}), cpe };
    });
    const ip = `${10 + block}.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`;
    const line = {
      ip,
      port: [80, 443, 22, 8080, 8443][i % 5],
      protocol: 'tcp',
      timestamp: new Date(now - (i % 86_400) * 1000).toISOString(),
      fingerprints,
      ...(context.osCpes.length > 0 ? { os_cpes: context.osCpes } : {}),
      cves: [],
      asn: `AS${64_512 + (i % 1000)}`,
      country_code: 'US',
    };
    buffer += `${JSON.stringify(line)}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
    i++;
  }
  out.end(buffer);
  await once(out, 'finish');
}

const INGEST_BLOCKS = { off: 0, cold: 1, warm: 2, table: 3, memory: 4 } as const;

/** Passes a matcher's answers through and keeps them by context, for the baseline that replays them. */
function recording(matcher: CveMatcher, table: Map<string, string[]>): CveMatcher {
  return {
    matchAll: async (contexts) => {
      const results = await matcher.matchAll(contexts);
      contexts.forEach((context, i) => {
        table.set(contextKey(context), results[i]!.confirmed);
      });
      return results;
    },
  };
}

/** The baseline: the same CVE sets, looked up in a table instead of matched. */
const fromTable = (table: Map<string, string[]>): CveMatcher => ({
  matchAll: async (contexts) =>
    contexts.map((context): ContextMatch => ({ confirmed: table.get(contextKey(context)) ?? [], evidence: [] })),
});

/** Items of `items` until `deadline` (performance.now() ms); the rest is not read. */
async function* until<T>(items: AsyncIterable<T>, deadline: number): AsyncIterable<T> {
  for await (const item of items) {
    if (performance.now() >= deadline) return;
    yield item;
  }
}

/**
 * Deletes the records an earlier run left at a block's addresses (a reused database), through the
 * change log like every product write, so the index snapshot a later server reads stays exact.
 */
async function clearBlock(storage: Storage, block: number): Promise<void> {
  const ids = await storage.hosts.idsInIpKeyRange(
    ipSortKey(parseIp(`${10 + block}.0.0.0`)),
    ipSortKey(parseIp(`${10 + block}.255.255.255`)),
  );
  await storage.hosts.expire(ids, Number.MAX_SAFE_INTEGER);
}

async function measureIngest(
  run: { storage: Storage; model: KnowledgeModel; work: string; count: number; now: number; budget: number },
  mode: Exclude<keyof typeof INGEST_BLOCKS, 'memory'>,
  matcher: CveMatcher,
): Promise<IngestFigures> {
  const { storage } = run;
  const block = INGEST_BLOCKS[mode];
  await clearBlock(storage, block);
  const file = path.join(run.work, `observations-${mode}.ndjson`);
  await writeObservations(file, run.model, run.count, run.now, block);
  const classifier = new ClassificationResolver(await storage.classificationLists.allEntries());
  const t0 = performance.now();
  const items = until(readScanFile(file, { format: 'ndjson' }), t0 + run.budget * 1000);
  const summary: IngestSummary = await runIngest(
    storage,
    items,
    { classifier, matcher },
    { retentionDays: 0, batchSize: MATCH_BATCH },
  );
  const wall = seconds(t0);
  const heap = heapMiB();
  fs.rmSync(file, { force: true });
  if (summary.rejected !== 0 || summary.inserted !== summary.read)
    throw new Error(
      `ingest (${mode}): ${summary.inserted} inserted, ${summary.rejected} rejected of ${summary.read} read`,
    );
  const row = await storage.db.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM hosts WHERE knowledge_cves IS NOT NULL AND ip LIKE ?`,
    [`${10 + block}.%`],
  );
  return {
    matcher: mode,
    seconds: wall,
    read: summary.read,
    observationsPerSecond: summary.read / wall,
    inserted: summary.inserted,
    withKnowledgeCves: Number(row?.n ?? 0),
    heapMiB: heap,
  };
}

export type { FingerprintContext };

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
