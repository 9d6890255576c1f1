import fs from 'node:fs';
import path from 'node:path';
import type { ClassRun } from './class-load.js';
import type { LoadResult } from './http-load.js';
import { gcMaxText, type ServerLoopDelay, type WorkerStatus } from './loop-delay.js';
import { classTargets, sumTargets, type Target, verdict } from './targets.js';

export interface AdvisoryQueryFigures extends ClassRun {
  name: string;
  /** The `/v4/advisory` parameters (limit 100 always; `page` for the deep page), or `/v3/search/cve`'s `cve`. */
  params: Record<string, string>;
  /** `_meta.filtered`: records matching (absent when the server refuses the class). */
  filtered?: number;
  /** True when the filter needs the match data (version, CPE, several entry filters). */
  matchData: boolean;
  engineRuns?: number;
  /** In-process engine (the index the server builds, or the storage query when there is none), no HTTP. */
  engineP50Ms?: number;
  engineP99Ms?: number;
  api: { c1: LoadResult; c32: LoadResult };
  targets?: Target[];
}

/** API p50 per class of the SQLite run of the same size, for the PostgreSQL ≤ 2 × SQLite target. */
export interface SqliteComparison {
  file: string;
  date: string;
  apiP50Ms: Record<string, number>;
}

/** Reads `advisories-sqlite-<records>.json` from `dir` when this run is PostgreSQL's. */
export function compareWithSqlite(dir: string, engine: string, records: number): SqliteComparison | undefined {
  if (engine === 'sqlite') return undefined;
  const file = path.join(dir, `advisories-sqlite-${records}.json`);
  if (!fs.existsSync(file)) return undefined;
  const sqlite = JSON.parse(fs.readFileSync(file, 'utf8')) as AdvisoryBenchResult;
  const all = [...sqlite.queries, ...(sqlite.pathological ?? [])];
  return {
    file: path.basename(file),
    date: sqlite.date,
    apiP50Ms: Object.fromEntries(all.map((q) => [q.name, q.api.c1.p50Ms])),
  };
}

export interface AdvisoryBenchResult {
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; loadAverage?: number[] };
  date: string;
  engine: string;
  records: number;
  quick: boolean;
  serverWorkers: number;
  feed: string;
  dataset: { products: number; vendors: number; generateSeconds: number; recordsPerSecond: number };
  load: {
    /** Wall time of `loadFeedItems` with the generator streaming into it. */
    seconds: number;
    /** Loader alone: records ÷ (wall − generation time). */
    recordsPerSecond: number;
    added: number;
    records: number;
    rejected: number;
    peakRssMiB: number;
    databaseMiB?: number;
  };
  floor: { c1: LoadResult; c32: LoadResult };
  queries: AdvisoryQueryFigures[];
  /** The requests that used to stall a server (deep pages, `version` alone). */
  pathological: AdvisoryQueryFigures[];
  memory: {
    engine: string;
    /** `memoryBytes()` of the in-process index (the same structure each server worker builds). */
    indexBytes: number;
    /** Harness heap growth (after full collections) from before the engine was built to after every class. */
    engineHeapBytes: number;
    engineBuildSeconds: number;
    harnessRssMiB: number;
    serverStartSeconds: number;
    /** Each server worker's RSS after the run (from `/process/status`). */
    workerRssMiB: number[];
  };
  comparedWith?: SqliteComparison;
  /** Set when the run measured a prepared database: when the preparing run loaded it (the load figures are that run's). */
  preparedAt?: string;
  walk: {
    params: Record<string, string>;
    limit: number;
    total: number;
    records: number;
    pages: number;
    duplicates: number;
    seconds: number;
    recordsPerSecond: number;
    pageP50Ms: number;
    pageP99Ms: number;
    loop?: ServerLoopDelay;
  };
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const n = (value: number) => Math.round(value).toLocaleString('en-US');

/** Writes `advisories-<engine>-<records>.json` and `.md`. */
export function writeAdvisoryReport(dir: string, result: AdvisoryBenchResult): string[] {
  fs.mkdirSync(dir, { recursive: true });
  for (const q of [...result.queries, ...result.pathological])
    q.targets = classTargets(q, result.comparedWith?.apiP50Ms[q.name]);
  const base = path.join(dir, `advisories-${result.engine}-${result.records}`);
  fs.writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(`${base}.md`, renderAdvisoryMarkdown(result));
  return [`${base}.json`, `${base}.md`];
}

const describe = (params: Record<string, string>) =>
  Object.entries(params)
    .filter(([name]) => name !== 'name' && name !== 'limit')
    .map(([name, value]) => `${name}=${value}`)
    .join('&') || '(none)';

export function renderAdvisoryMarkdown(r: AdvisoryBenchResult): string {
  const floor = r.floor.c1.p50Ms;
  const lines = [
    `# Vulnscope advisory benchmark: ${r.engine}, ${n(r.records)} records${r.quick ? ' (quick)' : ''}`,
    '',
    `${r.date} · ${r.machine.cpus} × ${r.machine.cpuModel} · ${r.machine.memoryGiB} GiB · Node ${r.machine.node} · feed \`${r.feed}\` · ${n(r.dataset.products)} vendor:product pairs (${n(r.dataset.vendors)} vendors) · server with ${r.serverWorkers} worker process(es)${r.machine.loadAverage ? ` · load average at the end ${r.machine.loadAverage.map((x) => x.toFixed(1)).join(' / ')}` : ''}`,
    '',
    '## Load',
    '',
    ...(r.preparedAt
      ? [
          `Measured by the \`--prepare-only\` run that loaded this database (${r.preparedAt}); it may have run beside other work.`,
          '',
        ]
      : []),
    '| figure | value |',
    '|---|---:|',
    `| generate (deterministic, in-process) | ${n(r.dataset.recordsPerSecond)} records/s (${r.dataset.generateSeconds.toFixed(1)} s) |`,
    `| load through \`loadFeedItems\` (generation excluded) | ${n(r.load.recordsPerSecond)} records/s |`,
    `| load wall time (generator streaming into the loader) | ${r.load.seconds.toFixed(1)} s |`,
    `| records added / in the feed / rejected | ${n(r.load.added)} / ${n(r.load.records)} / ${n(r.load.rejected)} |`,
    `| harness peak RSS | ${n(r.load.peakRssMiB)} MiB |`,
    ...(r.load.databaseMiB !== undefined ? [`| database size after load | ${n(r.load.databaseMiB)} MiB |`] : []),
    '',
    '## Queries (`GET /v4/advisory?name=…&limit=100`, exact `_meta.filtered`)',
    '',
    `engine = in-process ${r.memory.engine}, the filters parsed as the route parses them (no HTTP). API = the real server (${r.serverWorkers} worker processes), c=1 then c=32 keep-alive clients, each after untimed warm-up requests (one per c=32 connection, so every worker has served the request); each class repeats one request, so after the first its page's records come from the records the index keeps (64 MiB of served records), while the cursor walk reads each page's records from the database once, the next page ahead. loop = the worst event-loop stall any server worker saw during the c=32 run (\`monitorEventLoopDelay\`, read from every worker's \`/process/status\`). HTTP floor (authenticated \`/whoami\`): p50 ${ms(floor)} ms at c=1, ${n(r.floor.c32.requestsPerSecond)} req/s at c=32.${r.comparedWith ? ` PostgreSQL ÷ SQLite: API p50 against ${r.comparedWith.file} (${r.comparedWith.date}).` : ''}`,
    '',
    ...queryTable(r.queries),
    '',
    '### Pathological requests',
    '',
    ...queryTable(r.pathological),
    '',
    ...r.pathological.filter((q) => q.refusal).map((q) => `${q.name}: the server answers 400: "${q.refusal}"`),
    '',
    '### Targets',
    '',
    '| class | status |',
    '|---|---|',
    ...[...r.queries, ...r.pathological].map((q) => `| ${q.name} | ${verdict(q.targets ?? [])} |`),
    `| cursor walk ≥ 20,000 records/s | ${r.walk.recordsPerSecond >= 20_000 ? 'met' : 'not met'} (${n(r.walk.recordsPerSecond)} records/s) |`,
    `| index memory ≤ 1.5 GB per process | ${memoryVerdict(r)} |`,
    '',
    `${targetsSummary(r)}`,
    '',
    '## Memory',
    '',
    `Index (\`memoryBytes()\`, the in-process build in ${r.memory.engineBuildSeconds.toFixed(1)} s): ${n(r.memory.indexBytes / 2 ** 20)} MiB; harness memory growth (JS heap + external, after full GCs) from before the build to after every class: ${n(r.memory.engineHeapBytes / 2 ** 20)} MiB. Server worker RSS after the run: ${r.memory.workerRssMiB.map((m) => `${n(m)} MiB`).join(', ')}. Server start (index build) ${r.memory.serverStartSeconds.toFixed(1)} s.`,
    '',
    `## Cursor walk`,
    '',
    `\`${describe(r.walk.params)}\`, \`start_cursor\`, limit ${r.walk.limit}: ${n(r.walk.records)} of ${n(r.walk.total)} records in ${n(r.walk.pages)} pages, ${r.walk.seconds.toFixed(2)} s = **${n(r.walk.recordsPerSecond)} records/s** (page p50 ${ms(r.walk.pageP50Ms)} ms, p99 ${ms(r.walk.pageP99Ms)} ms), ${r.walk.duplicates} duplicates${r.walk.loop ? `; worst loop stall ${ms(r.walk.loop.worstMs)} ms` : ''}.`,
    '',
    `Reproduce: \`npm run bench:advisories -- --records ${r.records}${r.engine === 'postgres' ? ' --engine postgres' : ''}${r.quick ? ' --quick' : ''}\` (or \`--prepare-only\` once, then \`--reuse\`).`,
    '',
  ];
  return lines.join('\n');
}

function queryTable(queries: AdvisoryQueryFigures[]): string[] {
  return [
    '| query | parameters | filtered | engine p50 ms | API p50 ms | API p99 ms | c=32 req/s | c=32 p99 ms | c=32 ÷ c=1 | loop max / p99 ms | GC max ms | body | errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...queries.map(
      (q) =>
        `| ${q.name} | \`${describe(q.params)}\` | ${q.status === 400 ? 'refused (400)' : n(q.filtered ?? 0)} | ${q.engineP50Ms !== undefined ? ms(q.engineP50Ms) : '–'} | ${ms(q.api.c1.p50Ms)} | ${ms(q.api.c1.p99Ms)} | ${n(q.api.c32.requestsPerSecond)} | ${ms(q.api.c32.p99Ms)} | ${(q.api.c32.requestsPerSecond / q.api.c1.requestsPerSecond).toFixed(2)} | ${ms(q.loop.worstMs)} / ${ms(Math.max(0, ...q.loop.workers.map((w) => w.p99DelayMs)))} | ${gcMax(q)} | ${kib(q.responseBytes)} | ${q.api.c1.errors + q.api.c32.errors} |`,
    ),
  ];
}

const kib = (bytes: number) =>
  bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;

const GB = 1.5 * 1e9;

function memoryVerdict(r: AdvisoryBenchResult): string {
  // The index's own figure or what the harness grew by holding it; RSS (everything a worker holds) is shown beside.
  const worst = Math.max(r.memory.indexBytes, r.memory.engineHeapBytes);
  return `${worst <= GB ? 'met' : 'not met'} (index ${n(r.memory.indexBytes / 2 ** 20)} MiB, heap + external growth ${n(r.memory.engineHeapBytes / 2 ** 20)} MiB; worker RSS ${r.memory.workerRssMiB.map((m) => n(m)).join(' / ')} MiB)`;
}

function targetsSummary(r: AdvisoryBenchResult): string {
  const { met, total } = sumTargets([...r.queries, ...r.pathological].map((q) => q.targets ?? []));
  return `Class targets met: ${met} of ${total}.`;
}

/** The longest GC pause any worker reported during the class's c=32 run, with its kind. */
function gcMax(q: { loop: { workers: WorkerStatus[] } }): string {
  return gcMaxText(q.loop.workers, ms);
}
