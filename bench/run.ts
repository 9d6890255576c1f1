import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDatabaseUrl, type DatabaseConfig } from '../src/config.js';
import { ClassificationResolver } from '../src/ingest/classifications/resolver.js';
import { prepare } from '../src/ingest/pipeline.js';
import { IndexSync } from '../src/search/index-sync.js';
import { parseHostQuery, typedFilters } from '../src/server/routes/target-intel/query.js';
import { KeptListBodies } from '../src/server/routes/c2-lists/body.js';
import { listBodyOf } from './index-lookups.js';
import { ClassifiedLists } from '../src/services/classified-lists.js';
import { parseFacetFields } from '../src/server/routes/target-intel/facet-fields.js';
import { createStorage, type Storage } from '../src/storage/index.js';
import { cleanEnv, databaseUrlOf, dropSchema, fail, freePort } from './common.js';
import { parseChildCpu, serverCpuMark, type ChildCpu } from './cpu-time.js';
import { writeDataset, type DatasetStats } from './dataset.js';
import { loadPrepared, PRISTINE, savePrepared, type PreparedDataset } from './prepared.js';
import { measureExport } from './export.js';
import { percentile, runLoad, timeRuns, type LoadResult } from './http-load.js';
import { FACET_SCAN_COLUMNS, pathOf, pickQueries, pickWalk, type QueryClass } from './queries.js';
import { rawInsert } from './raw-insert.js';
import { writeReport, type BenchResult, type QueryFigures } from './report.js';
import { measureRestart, removeSnapshots } from './restart.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli/main.js');
const RSS_REPORT = path.join(ROOT, 'bench/rss-report.mjs');

interface Options {
  records: number;
  engine: 'sqlite' | 'postgres';
  databaseUrl?: string;
  out: string;
  workDir?: string;
  quick: boolean;
  workers: number;
  /** Stop after generate + ingest + raw insert, keeping them in --work-dir for --reuse. */
  prepareOnly: boolean;
  /** Measure on the dataset a --prepare-only run left in --work-dir. */
  reuse: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    records: 1_000_000,
    engine: 'sqlite',
    out: path.join(ROOT, 'bench/results'),
    quick: false,
    workers: 2,
    prepareOnly: false,
    reuse: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => argv[++i] ?? fail(`${arg} needs a value`);
    if (arg === '--records') options.records = Number(value());
    else if (arg === '--engine') options.engine = value() as Options['engine'];
    else if (arg === '--database-url') options.databaseUrl = value();
    else if (arg === '--out') options.out = value();
    else if (arg === '--work-dir') options.workDir = value();
    else if (arg === '--quick') options.quick = true;
    else if (arg === '--workers') options.workers = Number(value());
    else if (arg === '--prepare-only') options.prepareOnly = true;
    else if (arg === '--reuse') options.reuse = true;
    else fail(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.records) || options.records < 1000) fail('--records must be a whole number ≥ 1000');
  if (!['sqlite', 'postgres'].includes(options.engine)) fail('--engine is sqlite or postgres');
  if ((options.prepareOnly || options.reuse) && (!options.workDir || options.engine !== 'sqlite')) {
    fail('--prepare-only and --reuse need --work-dir and the sqlite engine');
  }
  return options;
}

const say = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const work = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-bench-'));
  fs.mkdirSync(work, { recursive: true });
  if (!options.reuse) checkDisk(work, options.records);
  const dataset = path.join(work, 'dataset.ndjson');
  const database = databaseFor(options, work, 'product');
  const rawDatabase = databaseFor(options, work, 'raw');
  const url = databaseUrlOf(database);
  // No background backup writes: they would compete with the measured work.
  const env = {
    VULNSCOPE_DATABASE_URL: url,
    VULNSCOPE_RETENTION_DAYS: '0',
    VULNSCOPE_LOG_LEVEL: 'warn',
    VULNSCOPE_BACKUP_INTERVAL: '0',
    // The index snapshot is written only at shutdown, where the restart measurement wants it.
    VULNSCOPE_SNAPSHOT_INTERVAL: '0',
  };

  const prepared = options.reuse
    ? reuse(options, work)
    : await prepareDataset(options, { dataset, database, rawDatabase, env });
  if (options.prepareOnly) {
    fs.copyFileSync(path.join(work, 'product.db'), path.join(work, PRISTINE));
    savePrepared(work, prepared);
    say(`prepared in ${work}: measure with --work-dir ${work} --reuse`);
    return;
  }
  const { stats, ingest, raw, datasetBytes } = prepared;

  const storage = await createStorage(database);
  removeSnapshots(database, storage);
  const indexed = await storage.hosts.count();
  const engine = new IndexSync(storage.hosts);
  const buildStarted = performance.now();
  await engine.build();
  const indexBuildMs = performance.now() - buildStarted;

  // Exempt from rate limits, so budgets never distort the numbers.
  const token = (await storage.tokens.create('bench', { rateLimit: 'unlimited' })).token;
  const port = await freePort();
  say('starting the server');
  const statusToken = randomBytes(24).toString('base64url');
  const serverEnv = {
    ...env,
    VULNSCOPE_STATUS_TOKEN: statusToken,
    VULNSCOPE_PORT: String(port),
    VULNSCOPE_WORKERS: String(options.workers),
  };
  let server = await startServer(serverEnv);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    const health = JSON.parse(await getFresh(`${baseUrl}/process/status`, statusToken)) as {
      index: { memory_bytes: number; build_ms: number };
    };
    const workerMemory = await waitForAllWorkers(baseUrl, statusToken, options.workers);
    const serverRssKb = treeRssKb(server.pid!);
    const requests = options.quick ? 40 : 300;
    const loadRequests = options.quick ? 100 : 2000;
    // Steady state, not the first seconds after start (the workers' post-build garbage collection
    // and compilation gave the first class measured p99s of 15–25 ms): every class warms every worker.
    const warmPaths = pickQueries(stats).map(pathOf);
    await runLoad([...warmPaths, '/whoami'], {
      baseUrl,
      token,
      concurrency: options.workers * 2,
      requests: 50 * (warmPaths.length + 1),
    });

    say('HTTP floor (GET /whoami)');
    const floor1 = await runLoad(['/whoami'], { baseUrl, token, concurrency: 1, requests, warmup: 20 });
    const floor32 = await runLoad(['/whoami'], { baseUrl, token, concurrency: 32, requests: loadRequests, warmup: 20 });

    const queries: QueryFigures[] = [];
    for (const query of pickQueries(stats)) {
      say(`query: ${query.name}`);
      queries.push(
        await measureQuery(query, { storage, engine, baseUrl, token, requests, loadRequests, quick: options.quick }),
      );
    }

    say('cursor walk');
    const walk = await measureWalk(pickWalk(stats, Math.min(100_000, indexed)), baseUrl, token);

    // About a million records: all of them up to 1M, then the ~10% with CVEs (1.0M at 10M records).
    const exportParams: Record<string, string> = indexed <= 1_000_000 ? {} : { contains_cve: 'true' };
    say(`export: ${new URLSearchParams(exportParams)} as NDJSON`);
    const exported = await measureExport(exportParams, baseUrl, token, () => treeRssKb(server.pid!));

    say('upkeep: expire the oldest 5%');
    const expiryServerCpu = serverCpuMark(server.pid!);
    const expiry = await measureExpiry(storage, engine, stats);
    // Each upkeep step starts once every worker has applied the previous one: otherwise the upserts
    // would share the cores with the workers still applying half a million expiry deletes.
    const expiryAppliedSeconds =
      expiry.expirySeconds + (await waitForWorkers(baseUrl, statusToken, storage, options.workers));
    const expiryCpu = expiryServerCpu.since();
    // Each kind of upsert runs UPSERT_ROUNDS times (each round newer than the last, so every round
    // writes): one run's time varied by up to 1.8× on a shared machine. The median is reported.
    const upsertRound = async (change: 'time' | 'hostname', round: number) => {
      say(
        `upkeep: upsert 100k observations seen again, ${change === 'time' ? 'only the time changes' : 'with a new hostname (the content changes)'} (round ${round + 1} of ${UPSERT_ROUNDS})`,
      );
      const serverCpu = serverCpuMark(server.pid!);
      const run = await measureUpserts(dataset, work, env, Math.min(100_000, options.records), change, round);
      const appliedSeconds = run.upsertSeconds + (await waitForWorkers(baseUrl, statusToken, storage, options.workers));
      return { ...run, appliedSeconds, cpu: { ingest: run.cpu, server: serverCpu.since() } };
    };
    const timeRounds = [];
    for (let round = 0; round < UPSERT_ROUNDS; round++) timeRounds.push(await upsertRound('time', round));
    const contentRounds = [];
    for (let round = 0; round < UPSERT_ROUNDS; round++) contentRounds.push(await upsertRound('hostname', round));
    const upsert = medianRound(timeRounds);
    const contentUpsert = medianRound(contentRounds);
    say('upkeep: ingest → visible through the API');
    const visible = await measureVisibility(storage, baseUrl, token);
    await engine.refresh();
    const restart = await measureRestart({
      database,
      storage,
      engine,
      server,
      start: (extra) => (server = spawnServer({ ...serverEnv, ...extra })),
      baseUrl,
      token,
      say,
    });

    const result: BenchResult = {
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
      },
      date: new Date().toISOString(),
      engine: options.engine,
      records: options.records,
      serverWorkers: options.workers,
      indexedRecords: indexed,
      datasetBytes,
      ingest: {
        measuredAt: prepared.measuredAt,
        reused: options.reuse,
        seconds: ingest.seconds,
        observationsPerSecond: options.records / ingest.seconds,
        peakRssMiB: ingest.maxRssKb / 1024,
        rawRowsPerSecond: raw.rowsPerSecond,
        ratioToRaw: options.records / ingest.seconds / raw.rowsPerSecond,
      },
      index: {
        buildSeconds: indexBuildMs / 1000,
        serverBuildSeconds: health.index.build_ms / 1000,
        memoryMiB: health.index.memory_bytes / 2 ** 20,
        serverRssMiB: serverRssKb / 1024,
        workerMemory,
      },
      floor: { c1: floor1, c32: floor32 },
      queries,
      walk,
      export: exported,
      upkeep: {
        upserts: upsert.upserts,
        upsertSeconds: upsert.upsertSeconds,
        upsertsPerSecond: upsert.upsertsPerSecond,
        upsertAppliedSeconds: upsert.appliedSeconds,
        upsertRoundsSeconds: timeRounds.map((round) => round.upsertSeconds),
        upsertCpu: upsert.cpu,
        contentUpserts: {
          upserts: contentUpsert.upserts,
          seconds: contentUpsert.upsertSeconds,
          perSecond: contentUpsert.upsertsPerSecond,
          appliedSeconds: contentUpsert.appliedSeconds,
          roundsSeconds: contentRounds.map((round) => round.upsertSeconds),
          cpu: contentUpsert.cpu,
        },
        ...visible,
        ...expiry,
        expiryAppliedSeconds,
        expiryServerCpu: expiryCpu,
      },
      restart,
    };
    const files = writeReport(options.out, result);
    say(`results: ${files.join(', ')}`);
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      const closed = new Promise((resolve) => server.once('close', resolve));
      server.kill('SIGTERM');
      await closed;
    }
    await storage.close();
    if (!options.workDir) fs.rmSync(work, { recursive: true, force: true });
    if (options.reuse) fs.rmSync(dataset.replace(/dataset\.ndjson$/, 'changed.ndjson'), { force: true });
    if (options.engine === 'postgres') for (const config of [database, rawDatabase]) await dropSchema(config);
  }
}

async function prepareDataset(
  options: Options,
  files: { dataset: string; database: DatabaseConfig; rawDatabase: DatabaseConfig; env: Record<string, string> },
): Promise<PreparedDataset> {
  const now = Date.now();
  await emptyDatabases([files.database, files.rawDatabase]);
  say(`generating ${options.records.toLocaleString('en-US')} observations`);
  const stats = await writeDataset(files.dataset, options.records, { now });
  const datasetBytes = fs.statSync(files.dataset).size;

  say('ingest through `vulnscope ingest scans` (the real pipeline)');
  const ingest = await runCliMeasured(['ingest', 'scans', '--batch-size', '2000', files.dataset], files.env);
  say(`ingested in ${ingest.seconds.toFixed(1)} s, peak RSS ${(ingest.maxRssKb / 1024).toFixed(0)} MiB`);

  say('raw batched INSERT of the same rows into the hosts table alone');
  const raw = await rawInsert(files.rawDatabase, files.dataset);
  say(`raw insert ${raw.rowsPerSecond.toFixed(0)} rows/s`);
  if (options.prepareOnly && files.rawDatabase.engine === 'sqlite') fs.rmSync(files.rawDatabase.file, { force: true });
  return { measuredAt: new Date().toISOString(), records: options.records, now, stats, datasetBytes, ingest, raw };
}

/** The dataset of an earlier --prepare-only run, with the product database restored as ingested. */
function reuse(options: Options, work: string): PreparedDataset {
  const prepared = loadPrepared(work);
  if (!prepared) fail(`${work} holds no prepared dataset: run with --prepare-only first`);
  if (prepared.records !== options.records) fail(`${work} was prepared with --records ${prepared.records}`);
  say(`reusing the dataset prepared at ${prepared.measuredAt}; restoring the product database`);
  for (const suffix of ['-wal', '-shm']) fs.rmSync(path.join(work, `product.db${suffix}`), { force: true });
  fs.copyFileSync(path.join(work, PRISTINE), path.join(work, 'product.db'));
  return prepared;
}

interface MeasureContext {
  storage: Storage;
  engine: IndexSync;
  baseUrl: string;
  token: string;
  requests: number;
  loadRequests: number;
  quick: boolean;
}

async function measureQuery(query: QueryClass, context: MeasureContext): Promise<QueryFigures> {
  const { storage, engine } = context;
  if (query.facets !== undefined) return measureFacets(query, context);
  if (query.list !== undefined) return measureList(query, query.list, context);
  const hostQuery = parseHostQuery(typedFilters(query.params));
  const request = { sort: 'timestamp' as const, order: 'desc' as const, offset: 0, limit: 100 };
  // The first run pays what repeats may not (a hostname search's exact check is remembered).
  const firstStarted = performance.now();
  const first = engine.index.page(hostQuery, request);
  const engineFirstMs = performance.now() - firstStarted;
  const runs = context.quick ? 10 : 50;
  const engineMs = await timeRuns(runs, async () => {
    const page = engine.index.page(hostQuery, request);
    await storage.hosts.getPageRecords(page.ids);
  });
  const sqlMs = await timeRuns(runs, () => storage.hosts.getPageRecords(first.ids));
  const naiveRuns = context.quick ? 1 : 3;
  const naiveMs = await timeRuns(naiveRuns, async () => {
    await storage.db.get(`SELECT COUNT(*) AS n FROM hosts WHERE ${query.naive.where}`, query.naive.args);
    await storage.db.all(
      `SELECT id FROM hosts WHERE ${query.naive.where} ORDER BY observed_at + 0 DESC, id DESC LIMIT 100`,
      query.naive.args,
    );
  });
  const api = await measureApi(pathOf(query), context);
  return {
    name: query.name,
    params: query.params,
    total: first.total,
    engineP50Ms: percentile(engineMs, 0.5),
    engineFirstMs,
    sqlPageP50Ms: percentile(sqlMs, 0.5),
    naiveMs: percentile(naiveMs, 0.5),
    api,
  };
}

/**
 * A facets class: engine = the index's facet counts (no SQL, so no SQL page figure); full scan =
 * a GROUP BY per column that the table holds as such (the multi-valued fields would need JSON
 * expansion on top, so this is a lower bound for SQL).
 */
async function measureFacets(query: QueryClass, context: MeasureContext): Promise<QueryFigures> {
  const { storage, engine } = context;
  const hostQuery = parseHostQuery(typedFilters(query.params));
  const requests = parseFacetFields(query.facets);
  const firstStarted = performance.now();
  const first = await engine.readStill((index) => index.facets(hostQuery, requests));
  const engineFirstMs = performance.now() - firstStarted;
  const engineMs = await timeRuns(context.quick ? 10 : 50, () =>
    engine.readStill((index) => index.facets(hostQuery, requests)),
  );
  const naiveMs = await timeRuns(context.quick ? 1 : 3, async () => {
    for (const column of FACET_SCAN_COLUMNS) {
      await storage.db.all(
        `SELECT ${column} AS value, COUNT(*) AS n FROM hosts WHERE ${query.naive.where} GROUP BY ${column}`,
        query.naive.args,
      );
    }
  });
  return {
    name: query.name,
    params: { ...query.params, fields: query.facets! },
    total: first.total,
    engineP50Ms: percentile(engineMs, 0.5),
    engineFirstMs,
    naiveMs: percentile(naiveMs, 0.5),
    api: await measureApi(pathOf(query), context),
  };
}

/**
 * A C2 list: engine = the whole body as the route gives it in-process (index postings → distinct
 * sorted entries → formatted chunks, kept while the list is unchanged), total = its entries; full
 * scan = the distinct values a table scan finds.
 */
async function measureList(
  query: QueryClass,
  list: NonNullable<QueryClass['list']>,
  context: MeasureContext,
): Promise<QueryFigures> {
  const { storage, engine } = context;
  const lists = new ClassifiedLists(storage, 'c2');
  const bodies = new KeptListBodies();
  const body = () => listBodyOf(lists, bodies, engine, list.kind, list.format);
  const firstStarted = performance.now();
  const first = await body();
  const engineFirstMs = performance.now() - firstStarted;
  const engineMs = await timeRuns(context.quick ? 10 : 50, body);
  const column = list.kind === 'addresses' ? 'ip' : 'hostname';
  const naiveMs = await timeRuns(context.quick ? 1 : 3, () =>
    storage.db.all(
      `SELECT DISTINCT ${column} AS value FROM hosts WHERE ${query.naive.where} ORDER BY 1`,
      query.naive.args,
    ),
  );
  return {
    name: query.name,
    params: { format: list.format },
    total: first.entries(),
    engineP50Ms: percentile(engineMs, 0.5),
    engineFirstMs,
    naiveMs: percentile(naiveMs, 0.5),
    api: await measureApi(pathOf(query), context),
  };
}

async function measureApi(path: string, context: MeasureContext): Promise<QueryFigures['api']> {
  const c1 = await runLoad([path], {
    baseUrl: context.baseUrl,
    token: context.token,
    concurrency: 1,
    requests: context.requests,
    warmup: 10,
  });
  const c32 = await runLoad([path], {
    baseUrl: context.baseUrl,
    token: context.token,
    concurrency: 32,
    requests: context.loadRequests,
    warmup: 10,
  });
  return { c1, c32 };
}

async function measureWalk(walk: { params: Record<string, string> }, baseUrl: string, token: string) {
  const started = performance.now();
  let url = `${baseUrl}/v3/index/target-intel?${new URLSearchParams({ ...walk.params, start_cursor: 'true', limit: '2000' })}`;
  let records = 0;
  let pages = 0;
  const seen = new Set<string>();
  let duplicates = 0;
  for (;;) {
    const body = (await (await fetch(url, { headers: { authorization: token } })).json()) as {
      _meta: { next_cursor?: string; total_documents: number };
      data: Array<{ ip: string; port: number; protocol: string; fingerprints: unknown[] }>;
    };
    pages++;
    records += body.data.length;
    for (const r of body.data) {
      const key = `${r.ip}|${r.port}|${r.protocol}|${JSON.stringify(r.fingerprints)}`;
      if (seen.has(key)) duplicates++;
      seen.add(key);
    }
    if (!body._meta.next_cursor) break;
    url = `${baseUrl}/v3/index/target-intel?${new URLSearchParams({ cursor: body._meta.next_cursor })}`;
  }
  const seconds = (performance.now() - started) / 1000;
  return { params: walk.params, records, pages, duplicates, seconds, recordsPerSecond: records / seconds };
}

const UPSERT_ROUNDS = 3;

/** The round of median upsert time. */
function medianRound<T extends { upsertSeconds: number }>(rounds: T[]): T {
  return [...rounds].sort((a, b) => a.upsertSeconds - b.upsertSeconds)[Math.floor(rounds.length / 2)]!;
}

/**
 * Upserts the first `count` observations again, observed now: same keys, newer, so each updates its
 * record. `time`: nothing else changes (a re-scan finding the same service); `hostname`: each also
 * reports a new hostname, so every record's content changes too.
 */
async function measureUpserts(
  dataset: string,
  work: string,
  env: Record<string, string>,
  count: number,
  change: 'time' | 'hostname',
  round: number,
) {
  const changed = path.join(work, 'changed.ndjson');
  const out = fs.createWriteStream(changed);
  const now = new Date().toISOString();
  let written = 0;
  const { createInterface } = await import('node:readline');
  const input = fs.createReadStream(dataset);
  try {
    for await (const line of createInterface({ input })) {
      if (written >= count) break;
      const record = JSON.parse(line) as { timestamp: string; hostname?: string };
      record.timestamp = now;
      if (change === 'hostname') record.hostname = `renamed-${round}-${written}.example.net`;
      out.write(`${JSON.stringify(record)}\n`);
      written++;
    }
  } finally {
    // Leaving the loop closes readline but not its input, which read on through the rest of the
    // dataset (GBs, a core's worth) while the upserts were measured (10M: 19k instead of 34k/s).
    input.destroy();
  }
  out.end();
  await new Promise<void>((resolve) => out.on('finish', () => resolve()));
  const run = await runCliMeasured(['ingest', 'scans', '--batch-size', '2000', changed], env);
  return { upserts: written, upsertSeconds: run.seconds, upsertsPerSecond: written / run.seconds, cpu: run.cpu };
}

/**
 * Seconds until every worker's index has applied the change log as it stands: /process/status is asked
 * over a new connection each time (the cluster hands connections, not requests, to workers) until
 * `workers * 4` answers in a row report the latest sequence number.
 */
async function waitForWorkers(
  baseUrl: string,
  statusToken: string,
  storage: Storage,
  workers: number,
): Promise<number> {
  const target = await storage.hosts.latestChangeSeq();
  const started = performance.now();
  let inRow = 0;
  while (inRow < workers * 4) {
    const health = JSON.parse(await getFresh(`${baseUrl}/process/status`, statusToken)) as {
      index: { change_seq: number };
    };
    inRow = health.index.change_seq >= target ? inRow + 1 : 0;
    if (inRow === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return (performance.now() - started) / 1000;
}

interface ProcessMemory {
  pid: number;
  rss_bytes: number;
  heap_total_bytes: number;
  heap_used_bytes: number;
  external_bytes: number;
}

/**
 * Waits until every worker answers /process/status (new connections each time: the cluster hands
 * them out among the workers already listening, so one still building its index is not asked yet,
 * but it takes CPU from the ones measured); returns their memory averaged, MiB.
 */
async function waitForAllWorkers(baseUrl: string, statusToken: string, workers: number) {
  const seen = new Map<number, ProcessMemory>();
  const deadline = Date.now() + 30 * 60_000;
  while (seen.size < workers) {
    if (Date.now() > deadline) fail(`only ${seen.size} of ${workers} server workers answered within 30 minutes`);
    const status = JSON.parse(await getFresh(`${baseUrl}/process/status`, statusToken)) as {
      pid: number;
      memory: Omit<ProcessMemory, 'pid'>;
    };
    if (!seen.has(status.pid)) seen.set(status.pid, { pid: status.pid, ...status.memory });
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const all = [...seen.values()];
  const mean = (pick: (m: ProcessMemory) => number) => all.reduce((sum, m) => sum + pick(m), 0) / all.length / 2 ** 20;
  return {
    workersSeen: all.length,
    rssMiB: mean((m) => m.rss_bytes),
    heapTotalMiB: mean((m) => m.heap_total_bytes),
    heapUsedMiB: mean((m) => m.heap_used_bytes),
    externalMiB: mean((m) => m.external_bytes),
  };
}

function getFresh(url: string, bearer: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { authorization: `Bearer ${bearer}` } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

async function measureVisibility(storage: Storage, baseUrl: string, token: string) {
  const ip = '192.0.2.250';
  const write = prepare(
    {
      ip,
      port: 4443,
      protocol: 'tcp',
      hostnames: [],
      timestamp: Date.now(),
      fingerprints: [{ vendor: 'bench', product: 'probe', version: '1' }],
      osCpes: [],
      cves: [],
      classifications: [],
    },
    { classifier: new ClassificationResolver([]) },
  );
  await storage.hosts.upsertBatch([write]);
  const committed = performance.now();
  for (;;) {
    const body = (await (
      await fetch(`${baseUrl}/v3/index/target-intel?cidr=${ip}`, { headers: { authorization: token } })
    ).json()) as {
      _meta: { total_documents: number };
    };
    if (body._meta.total_documents === 1) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { ingestToVisibleMs: performance.now() - committed };
}

/** As the server's sweeper does it: candidates from the index's time buckets, then the deletes. */
async function measureExpiry(storage: Storage, engine: IndexSync, stats: DatasetStats) {
  const cutoff = stats.oldestMs + (stats.newestMs - stats.oldestMs) * 0.05;
  // Without a server (`vulnscope maintenance expire`) a pass over the table finds them instead.
  const scanStarted = performance.now();
  await storage.hosts.idsObservedBefore(cutoff);
  const expiryScanSeconds = (performance.now() - scanStarted) / 1000;
  await engine.refresh();
  const started = performance.now();
  const expired = await storage.hosts.expire(engine.index.idsObservedBefore(cutoff), cutoff);
  const seconds = (performance.now() - started) / 1000;
  return { expired, expirySeconds: seconds, expiredPerSecond: expired / seconds, expiryScanSeconds };
}

function runCliMeasured(
  args: string[],
  env: Record<string, string>,
): Promise<{ seconds: number; maxRssKb: number; cpu?: ChildCpu; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', RSS_REPORT, CLI, ...args], {
      env: { ...cleanEnv(), ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`vulnscope ${args.join(' ')} exited ${code}: ${stderr}`));
      const rss = /bench:maxrss_kb=(\d+)/.exec(stderr);
      resolve({
        seconds: (performance.now() - started) / 1000,
        maxRssKb: rss ? Number(rss[1]) : NaN,
        cpu: parseChildCpu(stderr),
        stderr,
      });
    });
  });
}

function spawnServer(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [CLI, 'serve'], {
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function startServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawnServer(env);
  const deadline = Date.now() + 30 * 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${env.VULNSCOPE_PORT}/healthz`)).ok) return child;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null) throw new Error('the server exited during start');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the server did not start');
}

/** RSS of a process and its direct children (the cluster's workers). */
function treeRssKb(pid: number): number {
  let total = rssKb(pid);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) total += rssKb(Number(entry));
    } catch {
      /* the process ended meanwhile */
    }
  }
  return total;
}

function rssKb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

function checkDisk(dir: string, records: number): void {
  const stat = fs.statfsSync(dir);
  const free = stat.bavail * stat.bsize;
  // Dataset (~450 B/record), the product database and the raw-insert database (~1 KB/record each).
  const needed = records * 2600;
  if (free < needed)
    fail(`needs about ${(needed / 2 ** 30).toFixed(1)} GiB free in ${dir}, has ${(free / 2 ** 30).toFixed(1)} GiB`);
}

function databaseFor(options: Options, work: string, name: string): DatabaseConfig {
  if (options.engine === 'sqlite') return { engine: 'sqlite', file: path.join(work, `${name}.db`) };
  const base = options.databaseUrl ?? process.env.VULNSCOPE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const config = parseDatabaseUrl(base);
  if (config.engine !== 'postgres') fail('--engine postgres needs a postgres:// URL');
  return { ...config, schema: `bench_${name}_${options.records}` };
}

/** Preparing starts from empty databases: a --work-dir used before still holds the last ones. */
async function emptyDatabases(configs: DatabaseConfig[]): Promise<void> {
  for (const config of configs) {
    if (config.engine === 'postgres') await dropSchema(config);
    else for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${config.file}${suffix}`, { force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack}\n`);
  process.exit(1);
});

export type { LoadResult };
