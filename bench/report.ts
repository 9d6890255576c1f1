import fs from 'node:fs';
import path from 'node:path';
import type { ChildCpu, ServerCpu } from './cpu-time.js';
import type { LoadResult } from './http-load.js';
import type { ExportFigures } from './export.js';
import type { RestartFigures } from './restart.js';

/** CPU seconds used during an upsert round: by the ingest process, and by the server until every worker had applied it. */
export interface UpkeepCpu {
  ingest?: ChildCpu;
  server: ServerCpu;
}

export interface QueryFigures {
  name: string;
  params: Record<string, string>;
  total: number;
  /** In-process: index evaluation + page selection + SQL fetch of the page's records. */
  engineP50Ms: number;
  /** The first evaluation (index only, no SQL), before anything is warm or remembered. */
  engineFirstMs?: number;
  /** The SQL the product issues for the page (fetch by ids), alone; none for facets. */
  sqlPageP50Ms?: number;
  /** A full scan of the table answering the same filter (exact count + first page). */
  naiveMs: number;
  api: { c1: LoadResult; c32: LoadResult };
}

export interface BenchResult {
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string };
  date: string;
  engine: string;
  records: number;
  serverWorkers: number;
  indexedRecords: number;
  datasetBytes: number;
  ingest: {
    measuredAt?: string;
    reused?: boolean;
    seconds: number;
    observationsPerSecond: number;
    peakRssMiB: number;
    rawRowsPerSecond: number;
    ratioToRaw: number;
  };
  index: {
    buildSeconds: number;
    serverBuildSeconds: number;
    memoryMiB: number;
    serverRssMiB: number;
    /** Per worker, averaged, from /process/status: JS heap and V8-tracked external memory; the rest of RSS is native (bitmaps, SQLite, allocator). */
    workerMemory?: {
      workersSeen: number;
      rssMiB: number;
      heapTotalMiB: number;
      heapUsedMiB: number;
      externalMiB: number;
    };
  };
  floor: { c1: LoadResult; c32: LoadResult };
  /** What a restart costs with and without the index snapshot (absent in older results). */
  restart?: RestartFigures;
  queries: QueryFigures[];
  walk: {
    params: Record<string, string>;
    records: number;
    pages: number;
    duplicates: number;
    seconds: number;
    recordsPerSecond: number;
  };
  /** One export read to its end (absent in older results). */
  export?: ExportFigures;
  upkeep: {
    upserts: number;
    upsertSeconds: number;
    upsertsPerSecond: number;
    ingestToVisibleMs: number;
    expired: number;
    expirySeconds: number;
    expiredPerSecond: number;
    expiryScanSeconds?: number;
    /** From the start of the step until every server worker's index had applied it (absent in older results). */
    upsertAppliedSeconds?: number;
    expiryAppliedSeconds?: number;
    /** Seconds of each round; the figures above are the median round's (absent in older results: one round). */
    upsertRoundsSeconds?: number[];
    /** CPU seconds of the median round (absent in older results). */
    upsertCpu?: UpkeepCpu;
    /** The same observations again with a new hostname each: every record's content changes (absent in older results). */
    contentUpserts?: {
      upserts: number;
      seconds: number;
      perSecond: number;
      appliedSeconds: number;
      roundsSeconds?: number[];
      cpu?: UpkeepCpu;
    };
    /** CPU seconds the server used from the start of the expiry until every worker had applied it. */
    expiryServerCpu?: ServerCpu;
  };
}

/** ", median of 3 rounds: 8.3, 5.1, 5.0 s" for results with several rounds. */
const rounds = (seconds: number[] | undefined) =>
  seconds && seconds.length > 1
    ? `, median of ${seconds.length} rounds: ${seconds.map((s) => s.toFixed(1)).join(', ')} s`
    : '';

const cpuLine = (cpu: UpkeepCpu | undefined) => {
  if (!cpu) return [];
  const ingest = cpu.ingest
    ? `ingest ${cpu.ingest.totalSeconds.toFixed(1)} (main thread ${cpu.ingest.mainThreadSeconds.toFixed(1)}), `
    : '';
  return [`| … CPU seconds used meanwhile | ${ingest}${serverCpuText(cpu.server)} |`];
};
const serverCpuText = (cpu: ServerCpu) =>
  `server workers ${cpu.workerSeconds.map((s) => s.toFixed(1)).join(' + ')}, server primary ${cpu.primarySeconds.toFixed(1)}`;

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const n = (value: number) => Math.round(value).toLocaleString('en-US');

/** Writes `<engine>-<records>.json` and `.md`; the markdown adds growth ratios when the other size exists. */
export function writeReport(dir: string, result: BenchResult): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `${result.engine}-${result.records}`);
  fs.writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(`${base}.md`, renderMarkdown(result, findOther(dir, result)));
  return [`${base}.json`, `${base}.md`];
}

function findOther(dir: string, result: BenchResult): BenchResult | undefined {
  const other = result.records === 10_000_000 ? 1_000_000 : result.records === 1_000_000 ? 10_000_000 : undefined;
  if (!other) return undefined;
  const file = path.join(dir, `${result.engine}-${other}.json`);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as BenchResult) : undefined;
}

export function renderMarkdown(r: BenchResult, other?: BenchResult): string {
  const small = other && other.records < r.records ? other : r;
  const large = other && other.records > r.records ? other : r;
  const growth = other
    ? (name: string) => {
        const a = small.queries.find((q) => q.name === name)?.api.c1.p50Ms;
        const b = large.queries.find((q) => q.name === name)?.api.c1.p50Ms;
        return a && b ? `${(b / a).toFixed(2)}×` : '—';
      }
    : undefined;
  const floor = r.floor.c1.p50Ms;
  const lines = [
    `# Vulnscope benchmark: ${r.engine}, ${n(r.records)} observations`,
    '',
    `${r.date} · ${r.machine.cpus} × ${r.machine.cpuModel} · ${r.machine.memoryGiB} GiB · Node ${r.machine.node} · ${n(r.indexedRecords)} records indexed (dataset ${(r.datasetBytes / 2 ** 20).toFixed(0)} MiB) · server with ${r.serverWorkers} worker process(es)`,
    '',
    '## Queries (`GET /v3/index/target-intel`, limit 100, exact `total_documents`; the facets class `GET /v3/index/target-intel/facets`)',
    '',
    `engine = in-process index + page selection + SQL fetch (no HTTP; for facets, the index's counts alone); engine first = the first evaluation, before anything is warm or remembered; SQL page = the SQL the product issues for the page; full scan = the same filter as a table scan (count + first page; for facets, a GROUP BY on each of country_code, port and asn); HTTP floor (authenticated \`/whoami\`): p50 ${ms(floor)} ms at c=1, ${n(r.floor.c32.requestsPerSecond)} req/s at c=32.`,
    '',
    `| query | hits | engine first ms | engine p50 ms | SQL page p50 ms | full scan ms | API p50 ms | API p99 ms | API p50 ÷ (engine + floor) | c=32 req/s | c=32 p99 ms | c=32 ÷ c=1 req/s |${growth ? ' 1M→10M |' : ''}`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|${growth ? '---:|' : ''}`,
    ...r.queries.map(
      (q) =>
        `| ${q.name} | ${n(q.total)} | ${q.engineFirstMs === undefined ? '–' : ms(q.engineFirstMs)} | ${ms(q.engineP50Ms)} | ${q.sqlPageP50Ms === undefined ? '–' : ms(q.sqlPageP50Ms)} | ${ms(q.naiveMs)} | ${ms(q.api.c1.p50Ms)} | ${ms(q.api.c1.p99Ms)} | ${(q.api.c1.p50Ms / (q.engineP50Ms + floor)).toFixed(2)} | ${n(q.api.c32.requestsPerSecond)} | ${ms(q.api.c32.p99Ms)} | ${(q.api.c32.requestsPerSecond / q.api.c1.requestsPerSecond).toFixed(2)} |${growth ? ` ${growth(q.name)} |` : ''}`,
    ),
    '',
    `Cursor walk (${new URLSearchParams(r.walk.params)}, limit 2000): ${n(r.walk.records)} records in ${r.walk.pages} pages, ${r.walk.seconds.toFixed(2)} s = ${n(r.walk.recordsPerSecond)} records/s, ${r.walk.duplicates} duplicates.`,
    ...(r.export
      ? [
          '',
          `Export (\`/v3/index/target-intel/export?${new URLSearchParams(r.export.params)}\`, NDJSON): ${n(r.export.records)} records (${(r.export.bytes / 2 ** 20).toFixed(0)} MiB) in ${r.export.seconds.toFixed(2)} s = ${n(r.export.recordsPerSecond)} records/s, ${r.export.complete ? 'closed by its complete line' : 'NOT closed by a complete line'}; server RSS ${n(r.export.rssBeforeMiB)} MiB before, ${n(r.export.rssPeakMiB)} MiB at its peak during the export (+${n(r.export.rssPeakMiB - r.export.rssBeforeMiB)} MiB).`,
        ]
      : []),
    '',
    '## Ingest and upkeep',
    '',
    '| figure | value |',
    '|---|---:|',
    `| ingest through \`vulnscope ingest scans\` | ${n(r.ingest.observationsPerSecond)} obs/s (${r.ingest.seconds.toFixed(1)} s) |`,
    `| raw batched INSERT into hosts alone | ${n(r.ingest.rawRowsPerSecond)} rows/s |`,
    `| ingest ÷ raw | ${r.ingest.ratioToRaw.toFixed(2)} |`,
    `| ingest peak RSS | ${n(r.ingest.peakRssMiB)} MiB |`,
    `| index build at server start | ${r.index.serverBuildSeconds.toFixed(1)} s |`,
    `| index memory (bitmaps + columns) | ${n(r.index.memoryMiB)} MiB |`,
    `| server RSS after start (all worker processes) | ${n(r.index.serverRssMiB)} MiB |`,
    ...(r.index.workerMemory
      ? [
          `| … per worker: RSS = JS heap (used) + external + native rest | ${n(r.index.workerMemory.rssMiB)} = ${n(r.index.workerMemory.heapTotalMiB)} (${n(r.index.workerMemory.heapUsedMiB)}) + ${n(r.index.workerMemory.externalMiB)} + ${n(r.index.workerMemory.rssMiB - r.index.workerMemory.heapTotalMiB - r.index.workerMemory.externalMiB)} MiB |`,
        ]
      : []),
    `| upsert ${n(r.upkeep.upserts)} observations seen again${r.upkeep.contentUpserts ? ' (only the time changes)' : ''}${rounds(r.upkeep.upsertRoundsSeconds)} | ${n(r.upkeep.upsertsPerSecond)} /s (${r.upkeep.upsertSeconds.toFixed(1)} s) |`,
    ...(r.upkeep.upsertAppliedSeconds !== undefined
      ? [`| … until every server worker had applied them | ${r.upkeep.upsertAppliedSeconds.toFixed(1)} s |`]
      : []),
    ...cpuLine(r.upkeep.upsertCpu),
    ...(r.upkeep.contentUpserts
      ? [
          `| upsert the same ${n(r.upkeep.contentUpserts.upserts)} with a new hostname each (the content changes)${rounds(r.upkeep.contentUpserts.roundsSeconds)} | ${n(r.upkeep.contentUpserts.perSecond)} /s (${r.upkeep.contentUpserts.seconds.toFixed(1)} s) |`,
          `| … until every server worker had applied them | ${r.upkeep.contentUpserts.appliedSeconds.toFixed(1)} s |`,
          ...cpuLine(r.upkeep.contentUpserts.cpu),
        ]
      : []),
    `| expire the oldest 5% (${n(r.upkeep.expired)} records, found through the index) | ${r.upkeep.expirySeconds.toFixed(1)} s (${n(r.upkeep.expiredPerSecond)} /s) |`,
    ...(r.upkeep.expiryScanSeconds !== undefined
      ? [`| finding them by a pass over the table instead (no server) | ${r.upkeep.expiryScanSeconds.toFixed(1)} s |`]
      : []),
    ...(r.upkeep.expiryAppliedSeconds !== undefined
      ? [`| … until every server worker had applied the expiry | ${r.upkeep.expiryAppliedSeconds.toFixed(1)} s |`]
      : []),
    ...(r.upkeep.expiryServerCpu
      ? [`| … CPU seconds the server used meanwhile | ${serverCpuText(r.upkeep.expiryServerCpu)} |`]
      : []),
    `| committed ingest → visible through the API | ${ms(r.upkeep.ingestToVisibleMs)} ms |`,
    '',
    ...(r.restart ? restartLines(r.restart, r.serverWorkers) : []),
    ...(r.ingest.reused
      ? [
          `Ingest and raw-insert figures: measured ${r.ingest.measuredAt} by the run that prepared this dataset (\`--prepare-only\`); the rest by this run (\`--reuse\`).`,
          '',
        ]
      : []),
    `Reproduce: \`npm run bench -- --records ${r.records}${r.engine === 'postgres' ? ' --engine postgres' : ''}\``,
    '',
  ];
  return lines.join('\n');
}

function restartLines(r: RestartFigures, workers: number): string[] {
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  return [
    `## Restart (\`serve --workers ${workers}\`: process start → first target-intel answer)`,
    '',
    '| step | figure |',
    '|---|---|',
    `| without the index snapshot (full build) | ${r.answerSeconds.withoutSnapshot.toFixed(1)} s |`,
    `| from the index snapshot | ${r.answerSeconds.withSnapshot.toFixed(1)} s |`,
    `| snapshot size | ${mib(r.snapshot.bytes)} MiB (${r.snapshot.bytesPerRecord.toFixed(0)} bytes per record) |`,
    `| writing it (in process), longest event-loop hold meanwhile | ${r.snapshot.writeSeconds.toFixed(1)} s, ${r.snapshot.writeMaxLoopBlockMs.toFixed(0)} ms |`,
    `| reading it into an index (in process) | ${r.snapshot.readSeconds.toFixed(1)} s |`,
    `| shutdown (SIGTERM → exit, writing the snapshot) | ${r.shutdownSeconds.toFixed(1)} s |`,
    '',
  ];
}
