/**
 * The advisory benchmark: a deterministic CVE-record feed (bench/advisory-dataset.ts) loaded through
 * the product's loader, then `/v4/advisory` query classes measured in-process (the bare storage
 * query the route runs) and through the real server (c=1 and c=32), and a full cursor walk.
 *
 *   node dist-bench/bench/advisories.js --records 400000 [--engine sqlite|postgres] [--database-url URL]
 *        [--quick] [--out bench/results] [--workers 2]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseConfig } from '../src/config.js';
import { needsMatchData } from '../src/core/advisory/filters.js';
import { loadFeedItems, recordsAsItems } from '../src/ingest/feeds/load.js';
import { parseAdvisoryFilters } from '../src/server/routes/advisory/filters.js';
import { createStorage, type Storage } from '../src/storage/index.js';
import type { AdvisoryPaging } from '../src/storage/index.js';
import { emptyStats, generateAdvisories, type AdvisoryStats } from './advisory-dataset.js';
import { writeAdvisoryReport, type AdvisoryBenchResult, type AdvisoryQueryFigures } from './advisories-report.js';
import { percentile, runLoad, timeRuns } from './http-load.js';
import { randomBytes } from 'node:crypto';
import { openAdvisoryEngine, type AdvisoryEngine } from './advisory-engine.js';
import { compareWithSqlite } from './advisories-report.js';
import { type ClassContext, measureClass } from './class-load.js';
import { readLoopDelay, resetLoopDelay } from './loop-delay.js';
import {
  benchDatabase,
  DEFAULT_DATA_DIR,
  type DataOptions,
  loadPreparedMeta,
  parseDataArg,
  savePreparedMeta,
} from './bench-data.js';
import { cleanEnv, databaseUrlOf, dropSchema, fail, freePort, heapUsedAfterGc } from './common.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli/main.js');
const FEED = {
  name: 'mitre-cvelist-v5',
  description: 'Synthetic CVE List V5 records (advisory benchmark)',
  adapter: 'mitre-cvelist-v5',
};
const LIMIT = 100;
/** A `page` value the harness replaces with the filter's last page (`_meta.pages`) before measuring. */
const LAST_PAGE = 'last';
const SEED = 7;

interface Options extends DataOptions {
  records: number;
  out: string;
  quick: boolean;
  workers: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    records: 400_000,
    engine: 'sqlite',
    out: path.join(ROOT, 'bench/results'),
    quick: false,
    workers: 2,
    data: DEFAULT_DATA_DIR,
    prepareOnly: false,
    reuse: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => argv[++i] ?? fail(`${arg} needs a value`);
    const dataArg = parseDataArg(argv, i, options);
    if (dataArg !== undefined) i = dataArg;
    else if (arg === '--records') options.records = Number(value());
    else if (arg === '--engine') options.engine = value() as Options['engine'];
    else if (arg === '--database-url') options.databaseUrl = value();
    else if (arg === '--out') options.out = value();
    else if (arg === '--quick') options.quick = true;
    else if (arg === '--workers') options.workers = Number(value());
    else fail(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.records) || options.records < 100) fail('--records must be a whole number ≥ 100');
  if (!['sqlite', 'postgres'].includes(options.engine)) fail('--engine is sqlite or postgres');
  if (options.prepareOnly && options.reuse) fail('--prepare-only and --reuse exclude each other');
  if (!Number.isInteger(options.workers) || options.workers < 1) fail('--workers must be a whole number ≥ 1');
  return options;
}

const fmtMiB = (bytes: number) => `${Math.round(bytes / 2 ** 20).toLocaleString('en-US')} MiB`;
const say = (message: string) =>
  process.stderr.write(`[bench-adv ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

interface QueryClass {
  name: string;
  params: Record<string, string>;
  /** The endpoint, when not `/v4/advisory`. */
  path?: '/v3/purl';
}

/** Top entry of a count map (by count, then key, so picks are deterministic). */
function ranked(map: Map<string, number>): Array<[string, number]> {
  return [...map.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

function closest(map: Map<string, number>, target: number): [string, number] {
  return ranked(map).reduce((best, entry) => (Math.abs(entry[1] - target) < Math.abs(best[1] - target) ? entry : best));
}

/** Query values picked from the generated data: a popular vendor, a mid-popular product (~1% of the feed), … */
export function pickAdvisoryQueries(stats: AdvisoryStats): QueryClass[] {
  const packageVendors = new Set(stats.products.filter((p) => p.package).map((p) => p.vendor));
  const vendor = ranked(stats.vendorCounts).find(([name]) => !packageVendors.has(name))![0];
  // A product of a non-package vendor with about 1% of the records (a popular product, not the head).
  const productTarget = Math.max(5, stats.records * 0.01);
  // Semver-style: vendor-style ranges (versionType custom) rest on a guessed order, which the version filter never matches.
  const cpeProducts = new Map(
    [...stats.productCounts].filter(([key]) => {
      const candidate = stats.products[stats.productIndex.get(key)!]!;
      return !candidate.package && candidate.style === 'semver';
    }),
  );
  const [pairKey] = closest(cpeProducts, productTarget);
  const product = stats.products[stats.productIndex.get(pairKey)!]!;
  const middle = product.versions[Math.floor(product.versions.length / 2)]!;
  const packages = new Map(
    [...stats.productCounts].filter(([key]) => stats.products[stats.productIndex.get(key)!]!.package?.purl),
  );
  const [packageKey] = closest(packages, Math.max(3, stats.records * 0.003));
  const pkg = stats.products[stats.productIndex.get(packageKey)!]!;
  const pkgVersion = pkg.versions[Math.floor(pkg.versions.length / 2)]!;
  const named = new Map(
    [...stats.productCounts].filter(([key]) => stats.products[stats.productIndex.get(key)!]!.package),
  );
  const [nameKey] = closest(named, Math.max(3, stats.records * 0.005));
  const packageName = stats.products[stats.productIndex.get(nameKey)!]!.package!.name;
  const base = { name: FEED.name, limit: String(LIMIT) };
  const purlName = pkg.package!.name.replace('@', '%40');
  return [
    { name: 'cve_id', params: { ...base, cve_id: stats.sampleCveId } },
    { name: 'vendor', params: { ...base, vendor: vendor } },
    { name: 'vendor+product', params: { ...base, vendor: product.vendor, product: product.product } },
    {
      name: 'vendor+product+version',
      params: { ...base, vendor: product.vendor, product: product.product, version: middle },
    },
    {
      name: 'cpe (with version)',
      params: { ...base, cpe: `cpe:2.3:a:${product.vendor}:${product.product}:${middle}` },
    },
    {
      name: 'purl (with version)',
      params: { ...base, purl: `pkg:${pkg.package!.ecosystem}/${purlName}@${pkgVersion}` },
    },
    {
      name: '/v3/purl (purl lookup)',
      path: '/v3/purl',
      params: { purl: `pkg:${pkg.package!.ecosystem}/${purlName}@${pkgVersion}` },
    },
    { name: 'package_name', params: { ...base, package_name: packageName } },
    { name: 'reference_tag', params: { ...base, reference_tag: 'exploit' } },
    { name: 'description_lang', params: { ...base, description_lang: 'ja' } },
    { name: 'updatedAfter (date-math)', params: { ...base, updatedAfter: 'now-30d' } },
    { name: 'no filter (page 1)', params: { ...base } },
    { name: 'deep page (page 50)', params: { ...base, page: '50' } },
  ];
}

/**
 * The requests that used to stall a server: the whole feed's last page and page 2,000, a broad
 * filter's last page, and `version` with no vendor, product or package (answered or refused with a
 * 400 that says what to add: the report says which the server did).
 */
export function pickPathologicalQueries(stats: AdvisoryStats, records: number): QueryClass[] {
  const base = { name: FEED.name, limit: String(LIMIT) };
  const lastPage = Math.max(1, Math.ceil(records / LIMIT));
  const [tag] = ranked(stats.tagCounts)[0]!;
  const semver = stats.products.find((p) => !p.package && p.style === 'semver') ?? stats.products[0]!;
  const middle = semver.versions[Math.floor(semver.versions.length / 2)]!;
  return [
    { name: 'no filter (last page)', params: { ...base, page: String(lastPage) } },
    { name: 'no filter (page 2000)', params: { ...base, page: String(Math.min(2000, lastPage)) } },
    {
      name: 'reference_tag (last page)',
      params: { ...base, reference_tag: tag, page: LAST_PAGE },
    },
    { name: 'version alone', params: { ...base, version: middle } },
  ];
}

/** The walk: a filter with about 50k results (the tag closest to it), or the whole feed with --quick. */
function pickWalk(stats: AdvisoryStats, quick: boolean): Record<string, string> {
  if (quick) return { name: FEED.name };
  const [tag] = closest(stats.tagCounts, 50_000);
  return { name: FEED.name, reference_tag: tag };
}

/** What the load left behind, kept with a prepared database so a reusing run reports it too. */
interface PreparedAdvisories {
  now: number;
  records: number;
  preparedAt: string;
  loadSeconds: number;
  summary: { records: number; added: number; rejected: number };
  peakRssMiB: number;
  databaseMiB?: number;
}

async function prepare(
  storage: Storage,
  options: Options,
  database: DatabaseConfig,
  now: number,
): Promise<PreparedAdvisories> {
  say('loading through loadFeedItems');
  const loadStarted = performance.now();
  const summary = await loadFeedItems(
    storage,
    FEED,
    recordsAsItems(generateAdvisories(options.records, { seed: SEED, now })),
    { source: 'bench' },
  );
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  say(`loaded ${summary.records} records in ${loadSeconds.toFixed(1)} s (${summary.rejected} rejected)`);
  if (summary.records !== options.records)
    throw new Error(`the feed holds ${summary.records} records, expected ${options.records}`);
  return {
    now,
    records: options.records,
    preparedAt: new Date().toISOString(),
    loadSeconds,
    summary: { records: summary.records, added: summary.added, rejected: summary.rejected },
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    ...(database.engine === 'sqlite' ? { databaseMiB: sqliteSizeMiB(database.file) } : {}),
  };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-bench-adv-'));
  const name = `advisories-${options.records}`;
  const database = benchDatabase(options, name, work, `adv_${options.records}`);
  const url = databaseUrlOf(database);
  const keep = options.prepareOnly || options.reuse;
  const reused = options.reuse ? loadPreparedMeta<PreparedAdvisories>(options, name) : undefined;
  if (reused && reused.records !== options.records) fail(`the prepared data holds ${reused.records} records`);
  if (!options.reuse) {
    await dropSchema(database);
    if (database.engine === 'sqlite')
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(database.file + suffix, { force: true });
  }
  const now = reused?.now ?? Date.now();

  say(`generating ${options.records.toLocaleString('en-US')} advisories (dry pass: statistics and generation speed)`);
  const stats = emptyStats(now, SEED);
  const generateStarted = performance.now();
  for (const _ of generateAdvisories(options.records, { seed: SEED, now }, stats)) void _;
  const generateSeconds = (performance.now() - generateStarted) / 1000;

  const storage = await createStorage(database);
  let server: ChildProcess | undefined;
  try {
    const prepared = reused ?? (await prepare(storage, options, database, now));
    if (options.prepareOnly) {
      savePreparedMeta(options, name, prepared);
      say(`prepared: ${database.engine === 'sqlite' ? database.file : `schema ${database.schema}`}`);
      return;
    }
    const { loadSeconds, summary, peakRssMiB, databaseMiB } = prepared;

    const token = (await storage.tokens.create('bench', { rateLimit: 'unlimited' })).token;
    const statusToken = randomBytes(24).toString('base64url');
    say('building the in-process engine (the index the server builds)');
    const heapBefore = heapUsedAfterGc();
    const engineStarted = performance.now();
    const engine = await openAdvisoryEngine(storage);
    const engineBuildSeconds = (performance.now() - engineStarted) / 1000;
    say(`engine: ${engine.description}; index memory ${fmtMiB(engine.memoryBytes())}`);
    const port = await freePort();
    say('starting the server');
    const env = {
      VULNSCOPE_DATABASE_URL: url,
      VULNSCOPE_LOG_LEVEL: 'warn',
      VULNSCOPE_BACKUP_INTERVAL: '0',
      VULNSCOPE_STATUS_TOKEN: statusToken,
    };
    const serverStarted = performance.now();
    server = await startServer({ ...env, VULNSCOPE_PORT: String(port), VULNSCOPE_WORKERS: String(options.workers) });
    const serverStartSeconds = (performance.now() - serverStarted) / 1000;
    const baseUrl = `http://127.0.0.1:${port}`;
    const classContext = { baseUrl, token, statusToken, workers: options.workers, quick: options.quick };

    const floorRequests = options.quick ? 40 : 300;
    say('HTTP floor (GET /whoami)');
    const floor1 = await runLoad(['/whoami'], { baseUrl, token, concurrency: 1, requests: floorRequests, warmup: 20 });
    const floor32 = await runLoad(['/whoami'], {
      baseUrl,
      token,
      concurrency: 32,
      requests: options.quick ? 100 : 2000,
      warmup: 20,
    });

    const measureAll = async (classes: QueryClass[]) => {
      const figures: AdvisoryQueryFigures[] = [];
      for (const query of classes) {
        say(`query: ${query.name} ${new URLSearchParams(query.params)}`);
        const q = await measureQuery(query, engine, classContext);
        figures.push(q);
        say(
          `  ${q.status === 400 ? 'refused (400)' : `filtered ${q.filtered}`}, engine p50 ${q.engineP50Ms?.toFixed(2) ?? '–'} ms, API p50 ${q.api.c1.p50Ms.toFixed(2)} p99 ${q.api.c1.p99Ms.toFixed(2)} ms, c=32 ${q.api.c32.requestsPerSecond.toFixed(0)} req/s p99 ${q.api.c32.p99Ms.toFixed(1)} ms, loop ${q.loop.worstMs.toFixed(1)} ms`,
        );
      }
      return figures;
    };
    const queries = await measureAll(pickAdvisoryQueries(stats));
    say(`query: ${CVE_SEARCH_CLASS} cve=${stats.sampleCveId}`);
    queries.push(await measureCveSearch(stats.sampleCveId, engine, classContext));
    const pathological = await measureAll(
      await Promise.all(pickPathologicalQueries(stats, options.records).map((q) => withLastPage(q, baseUrl, token))),
    );

    const walkParams = pickWalk(stats, options.quick);
    say(`cursor walk ${new URLSearchParams(walkParams)}`);
    await resetLoopDelay(baseUrl, statusToken, options.workers);
    const walk = { ...(await measureWalk(walkParams, baseUrl, token)) };
    walk.loop = await readLoopDelay(baseUrl, statusToken, options.workers);
    const serverStatus = await readLoopDelay(baseUrl, statusToken, options.workers);
    // What the engine holds after every class ran through it (index, caches), the harness's other data aside.
    const engineHeapBytes = heapUsedAfterGc() - heapBefore;
    say(
      `walk: ${walk.records} records, ${walk.pages} pages, ${walk.recordsPerSecond.toFixed(0)} records/s, ${walk.duplicates} duplicates`,
    );
    if (walk.duplicates !== 0 || walk.records !== walk.total)
      throw new Error(`the walk returned ${walk.records} of ${walk.total} records with ${walk.duplicates} duplicates`);

    const result: AdvisoryBenchResult = {
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        // Other work on the machine shows here: the figures are only as quiet as the machine was.
        loadAverage: os.loadavg(),
      },
      date: new Date().toISOString(),
      engine: options.engine,
      records: options.records,
      quick: options.quick,
      serverWorkers: options.workers,
      feed: FEED.name,
      dataset: {
        products: stats.products.length,
        vendors: new Set(stats.products.map((p) => p.vendor)).size,
        generateSeconds,
        recordsPerSecond: options.records / generateSeconds,
      },
      load: {
        seconds: loadSeconds,
        recordsPerSecond: options.records / Math.max(0.001, loadSeconds - generateSeconds),
        added: summary.added,
        records: summary.records,
        rejected: summary.rejected,
        peakRssMiB,
        ...(databaseMiB !== undefined ? { databaseMiB } : {}),
      },
      floor: { c1: floor1, c32: floor32 },
      queries,
      pathological,
      walk,
      memory: {
        engine: engine.description,
        indexBytes: engine.memoryBytes(),
        engineHeapBytes,
        engineBuildSeconds,
        harnessRssMiB: process.memoryUsage().rss / 2 ** 20,
        serverStartSeconds,
        workerRssMiB: serverStatus.workers.map((w) => w.rssMiB),
      },
      comparedWith: compareWithSqlite(options.out, options.engine, options.records),
      ...(reused ? { preparedAt: reused.preparedAt } : {}),
    };
    const files = writeAdvisoryReport(options.out, result);
    say(`results: ${files.join(', ')}`);
  } finally {
    if (server) await stopServer(server);
    await storage.close();
    fs.rmSync(work, { recursive: true, force: true });
    if (!keep) await dropSchema(database);
  }
}

/** The class with `page=last` replaced by the page count the API reports for its filter. */
async function withLastPage(query: QueryClass, baseUrl: string, token: string): Promise<QueryClass> {
  if (query.params.page !== LAST_PAGE) return query;
  const { page: _, ...first } = query.params;
  const response = await getJson(`${baseUrl}/v4/advisory?${new URLSearchParams(first)}`, token);
  const pages = (response.body as { _meta?: { pages?: number } })._meta?.pages;
  if (response.status !== 200 || !pages) throw new Error(`${query.name}: no page count (HTTP ${response.status})`);
  return { ...query, params: { ...query.params, page: String(pages) } };
}

async function measureQuery(
  query: QueryClass,
  engine: AdvisoryEngine,
  context: ClassContext,
): Promise<AdvisoryQueryFigures> {
  const path = `${query.path ?? '/v4/advisory'}?${new URLSearchParams(query.params)}`;
  const limit = Number(query.params.limit ?? LIMIT);
  const page = Number(query.params.page ?? 1);
  const paging: AdvisoryPaging = { mode: 'offset', offset: (page - 1) * limit, limit };
  // The server decides whether the class is answered or refused; a refused class has no engine time.
  const probe = await getJson(`${context.baseUrl}${path}`, context.token);
  let engineMs: number[] | undefined;
  let filtered: number | undefined;
  let matchData = false;
  let firstMs = 1;
  if (probe.status === 200 && query.path === '/v3/purl') {
    const feeds = [FEED.name];
    const t0 = performance.now();
    filtered = (await engine.purl(feeds, query.params.purl!)).total;
    firstMs = performance.now() - t0;
    const runs = context.quick ? 5 : Math.max(10, Math.min(200, Math.round(3000 / Math.max(firstMs, 0.05))));
    engineMs = await timeRuns(runs, () => engine.purl(feeds, query.params.purl!));
  } else if (probe.status === 200) {
    const { feed, filters } = parseAdvisoryFilters(query.params);
    matchData = needsMatchData(filters);
    const feeds = [feed ?? FEED.name];
    const t0 = performance.now();
    filtered = (await engine.search(feeds, filters, paging)).filtered;
    firstMs = performance.now() - t0;
    const runs = context.quick ? 5 : Math.max(10, Math.min(200, Math.round(3000 / Math.max(firstMs, 0.05))));
    engineMs = await timeRuns(runs, () => engine.search(feeds, filters, paging));
  }
  const { run, body } = await measureClass(path, engineMs ? percentile(engineMs, 0.5) : firstMs, context);
  if (run.status === 200) {
    const meta = (body as { _meta?: { filtered?: number; total_documents?: number } })._meta;
    const apiFiltered = query.path === '/v3/purl' ? meta?.total_documents : meta?.filtered;
    if (apiFiltered !== filtered)
      throw new Error(`${query.name}: the API says ${apiFiltered} records match, the engine ${filtered}`);
  }
  return {
    name: query.name,
    params: query.params,
    ...(filtered !== undefined ? { filtered } : {}),
    matchData,
    ...(engineMs
      ? { engineRuns: engineMs.length, engineP50Ms: percentile(engineMs, 0.5), engineP99Ms: percentile(engineMs, 0.99) }
      : {}),
    ...run,
    api: { c1: run.c1, c32: run.c32 },
  };
}

const CVE_SEARCH_CLASS = 'search/cve (GET /v3/search/cve)';

/** `/v3/search/cve` for one CVE: its engine run is the route's lookup over the feed's index and an empty target-intel. */
async function measureCveSearch(
  cve: string,
  engine: AdvisoryEngine,
  context: ClassContext,
): Promise<AdvisoryQueryFigures> {
  const params = { cve };
  const search = () => engine.searchCve([FEED.name], cve, 100);
  const { total } = await search();
  const engineMs = await timeRuns(context.quick ? 5 : 200, search);
  const { run, body } = await measureClass(
    `/v3/search/cve?${new URLSearchParams(params)}`,
    percentile(engineMs, 0.5),
    context,
  );
  const apiTotal = (body as { _meta?: { total_count: number } })._meta?.total_count;
  if (apiTotal !== total) throw new Error(`${CVE_SEARCH_CLASS}: the API says ${apiTotal} hits, the engine ${total}`);
  return {
    name: CVE_SEARCH_CLASS,
    params,
    filtered: total,
    matchData: false,
    engineRuns: engineMs.length,
    engineP50Ms: percentile(engineMs, 0.5),
    engineP99Ms: percentile(engineMs, 0.99),
    ...run,
    api: { c1: run.c1, c32: run.c32 },
  };
}

async function measureWalk(
  params: Record<string, string>,
  baseUrl: string,
  token: string,
): Promise<AdvisoryBenchResult['walk']> {
  let url = `${baseUrl}/v4/advisory?${new URLSearchParams({ ...params, start_cursor: 'true', limit: String(LIMIT) })}`;
  const seen = new Set<string>();
  let duplicates = 0;
  let records = 0;
  let pages = 0;
  let total = 0;
  const pageMs: number[] = [];
  // One keep-alive connection, as a client walking a feed would use; destroyed after the walk.
  const walkAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const started = performance.now();
  for (;;) {
    const t0 = performance.now();
    const response = await getJson(url, token, walkAgent);
    if (response.status !== 200)
      throw new Error(`walk page ${pages + 1}: HTTP ${response.status} ${JSON.stringify(response.body)}`);
    const body = response.body as {
      _meta: { filtered: number; next_cursor?: string };
      data: Array<{ cveMetadata: { cveId: string } }>;
    };
    pageMs.push(performance.now() - t0);
    pages++;
    total = body._meta.filtered;
    for (const record of body.data) {
      const id = record.cveMetadata.cveId;
      if (seen.has(id)) duplicates++;
      seen.add(id);
      records++;
    }
    if (!body._meta.next_cursor) break;
    url = `${baseUrl}/v4/advisory?${new URLSearchParams({ cursor: body._meta.next_cursor })}`;
  }
  const seconds = (performance.now() - started) / 1000;
  walkAgent.destroy();
  pageMs.sort((a, b) => a - b);
  return {
    params,
    limit: LIMIT,
    total,
    records,
    pages,
    duplicates,
    seconds,
    recordsPerSecond: records / seconds,
    pageP50Ms: percentile(pageMs, 0.5),
    pageP99Ms: percentile(pageMs, 0.99),
  };
}

/** GET with node:http (no connection left open unless `agent` keeps one): status and parsed body. */
function getJson(
  url: string,
  token: string,
  agent: http.Agent | false = false,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        try {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown });
        } catch (error) {
          reject(error as Error);
        }
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

async function startServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 15 * 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await getStatus(`http://127.0.0.1:${env.VULNSCOPE_PORT}/healthz`)) === 200) return child;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null) throw new Error(`the server exited during start (code ${child.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGTERM');
  throw new Error('the server did not start');
}

function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
  });
}

/** SIGTERM, then SIGKILL if the server has not exited within 15 s. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await closed;
  clearTimeout(timer);
}

function sqliteSizeMiB(file: string): number {
  let bytes = 0;
  for (const suffix of ['', '-wal']) {
    try {
      bytes += fs.statSync(file + suffix).size;
    } catch {
      /* no such file */
    }
  }
  return bytes / 2 ** 20;
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
