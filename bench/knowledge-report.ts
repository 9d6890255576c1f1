import fs from 'node:fs';
import path from 'node:path';
import type { ClassRun } from './class-load.js';
import type { LoadResult } from './http-load.js';
import type { IngestMemoryFigures } from './ingest-memory.js';
import type { ExplainApiFigures, ExplainEngineFigures } from './knowledge-explain.js';
import { gcMaxText, type WorkerStatus } from './loop-delay.js';
import type { DatabaseSize } from './server.js';
import { classTargets, sumTargets, type Target, verdict } from './targets.js';

export interface SearchFigures extends ClassRun {
  name: string;
  /** The `/v3/search/cpe` parameters. */
  params: Record<string, string>;
  /** `_meta.total_documents`: names matching (absent when the server refuses the class). */
  total?: number;
  /** Names on the page, and CVE links listed for them (Σ `cves` lengths). */
  names?: number;
  links?: number;
  engineRuns?: number;
  /** First in-process call of the query. */
  engineColdMs?: number;
  /** In-process engine (what the route computes for the page, from the indexes the server builds); warm. */
  engineP50Ms?: number;
  engineP99Ms?: number;
  api: { c1: LoadResult; c32: LoadResult };
  targets?: Target[];
}

export interface SearchMemory {
  engine: string;
  /** `memoryBytes()` of the in-process indexes (the same structures each server worker builds). */
  indexBytes: number;
  /** Harness heap growth (after full collections) from before the engine was built to after every class. */
  engineHeapBytes: number;
  engineBuildSeconds: number;
  serverStartSeconds: number;
  /** Each server worker's RSS after the search classes (from `/process/status`). */
  workerRssMiB: number[];
}

/** API p50 per class of the SQLite run of the same size, for the PostgreSQL ≤ 2 × SQLite target. */
export interface KnowledgeSqliteComparison {
  file: string;
  date: string;
  apiP50Ms: Record<string, number>;
}

/** Reads `knowledge-sqlite-<cves>.json` from `dir` when this run is PostgreSQL's. */
export function compareKnowledgeWithSqlite(
  dir: string,
  engine: string,
  cves: number,
): KnowledgeSqliteComparison | undefined {
  if (engine === 'sqlite') return undefined;
  const file = path.join(dir, `knowledge-sqlite-${cves}.json`);
  if (!fs.existsSync(file)) return undefined;
  const sqlite = JSON.parse(fs.readFileSync(file, 'utf8')) as KnowledgeBenchResult;
  const all = [...sqlite.search.queries, ...(sqlite.search.pathological ?? []), ...(sqlite.search.lookups ?? [])];
  return {
    file: path.basename(file),
    date: sqlite.date,
    apiP50Ms: Object.fromEntries(all.map((q) => [q.name, q.api.c1.p50Ms])),
  };
}

export interface MatcherPass {
  contexts: number;
  distinctContexts: number;
  fingerprintCpes: number;
  osCpes: number;
  /** Time inside `matchAll` only. */
  seconds: number;
  contextsPerSecond: number;
  fingerprintsPerSecond: number;
  contextsWithConfirmed: number;
  confirmedPerContext: number;
  evidencePerContext: number;
}

export interface IngestFigures {
  /** off; cold: a new matcher, as a `vulnscope ingest scans` process starts; warm: the matcher the matcher passes warmed. */
  matcher: 'off' | 'cold' | 'warm' | 'table';
  seconds: number;
  /** Observations read (fewer than offered when the time budget cut the run). */
  read: number;
  observationsPerSecond: number;
  inserted: number;
  /** Records stored with knowledge-confirmed CVEs. */
  withKnowledgeCves: number;
  /** Heap in use after the run, its matcher still referenced. */
  heapMiB: number;
}

export interface KnowledgeBenchResult {
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    node: string;
    heapLimitMiB: number;
    loadAverage?: number[];
  };
  date: string;
  engine: string;
  cves: number;
  names: number;
  quick: boolean;
  serverWorkers: number;
  dataset: {
    products: number;
    vendors: number;
    namesByPart: Record<string, number>;
    cvesWithConfigurations: number;
    rejectedCves: number;
    andConfigurations: number;
    cpeMatch: number;
    ranges: number;
    exact: number;
    any: number;
    platformCriteria: number;
    generateSeconds: { model: number; cves: number; dictionary: number };
  };
  load: {
    /** `loadFeedItems` without the derivation it triggers; the rate leaves generation out. */
    feed: { seconds: number; recordsPerSecond: number; records: number; rejected: number };
    /** Knowledge derivation after the load (`refreshKnowledgeAfterLoad`). */
    derivation: { seconds: number; cvesPerSecond: number; cvesChanged: number; criteria: number };
    /** `ingestCpeDictionary`; the rate leaves generation out. */
    dictionary: {
      seconds: number;
      namesPerSecond: number;
      names: number;
      deprecated: number;
      aliases: number;
      rejected: number;
    };
    counts: { cves: number; criteria: number; names: number; dictionaryNames: number; aliases: number };
    peakRssMiB: number;
    database: DatabaseSize;
  };
  search: {
    floor: { c1: LoadResult; c32: LoadResult };
    queries: SearchFigures[];
    /** The requests that used to stall a server (deep pages without a selective filter, `version` alone). */
    pathological: SearchFigures[];
    /** `GET /v3/cpe` classes: `total` and `links` are the CVEs listed (absent in reports before it). */
    lookups?: SearchFigures[];
    memory: SearchMemory;
  };
  comparedWith?: KnowledgeSqliteComparison;
  /** Set when the run measured a prepared database: when the preparing run loaded it (the load figures are that run's). */
  preparedAt?: string;
  /** Absent when the run left the matcher and ingest out (`--skip-matcher`). */
  matcher?: {
    batch: number;
    contexts: number;
    budgetSeconds: number;
    cold: MatcherPass;
    warm: MatcherPass;
    /** Harness heap in use before the matcher was made, and after its cold pass (its caches full). */
    heapBeforeMiB: number;
    heapAfterColdMiB: number;
  };
  /** `explain=true` on pages of 100 records with knowledge CVEs (absent with `--skip-matcher`). */
  /** The long-ingest memory run (`--memory-observations`). */
  memory?: IngestMemoryFigures;
  explain?: { engine: ExplainEngineFigures; api: ExplainApiFigures & { serverStartSeconds: number } };
  ingest?: {
    observations: number;
    budgetSeconds: number;
    off: IngestFigures;
    on: IngestFigures;
    onWarm: IngestFigures;
    /** The same CVE sets as the new matcher's run, replayed from a table (absent in older results). */
    baseline?: IngestFigures;
  };
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const n = (value: number) => Math.round(value).toLocaleString('en-US');
/** A rate: one decimal below 10 (a multi-second page at c=32 is not "0 req/s"). */
const rate = (value: number) => (value < 10 ? value.toFixed(1) : n(value));
const bytes = (value: number) =>
  value >= 2 ** 20 ? `${(value / 2 ** 20).toFixed(1)} MiB` : `${(value / 1024).toFixed(1)} KiB`;
const pct = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;

/** Writes `knowledge-<engine>-<cves>.json` and `.md`. */
export function writeKnowledgeReport(dir: string, result: KnowledgeBenchResult): string[] {
  fs.mkdirSync(dir, { recursive: true });
  for (const q of [...result.search.queries, ...result.search.pathological, ...(result.search.lookups ?? [])])
    q.targets = classTargets(q, result.comparedWith?.apiP50Ms[q.name]);
  const base = path.join(dir, `knowledge-${result.engine}-${result.cves}`);
  fs.writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(`${base}.md`, renderKnowledgeMarkdown(result));
  return [`${base}.json`, `${base}.md`];
}

const describe = (params: Record<string, string>) =>
  Object.entries(params)
    .filter(([name]) => name !== 'limit')
    .map(([name, value]) => `${name}=${value}`)
    .join('&') || '(none)';

export function renderKnowledgeMarkdown(r: KnowledgeBenchResult): string {
  const d = r.dataset;
  const l = r.load;
  const floor = r.search.floor.c1.p50Ms;
  const parts = Object.entries(d.namesByPart)
    .sort((a, b) => b[1] - a[1])
    .map(([part, count]) => `${part} ${n(count)}`)
    .join(', ');
  const lines = [
    `# Vulnscope knowledge benchmark: ${r.engine}, ${n(r.cves)} CVEs, ${n(r.names)} CPE names${r.quick ? ' (quick)' : ''}`,
    '',
    `${r.date} · ${r.machine.cpus} × ${r.machine.cpuModel} · ${r.machine.memoryGiB} GiB · Node ${r.machine.node} (heap limit ${n(r.machine.heapLimitMiB)} MiB) · server with ${r.serverWorkers} worker process(es)${r.machine.loadAverage ? ` · load average at the end ${r.machine.loadAverage.map((x) => x.toFixed(1)).join(' / ')}` : ''}`,
    '',
    '## Dataset (deterministic, bench/knowledge-dataset.ts)',
    '',
    `${n(d.products)} vendor:product pairs (${n(d.vendors)} vendors), names by part: ${parts}. CVEs: ${n(r.cves)} NVD CVE API 2.0 objects, ${n(d.cvesWithConfigurations)} with configurations (of the ${n(r.cves - d.cvesWithConfigurations)} without, ${n(d.rejectedCves)} rejected, the rest awaiting analysis), ${n(d.andConfigurations)} AND configurations (${pct(d.andConfigurations, d.cvesWithConfigurations)}) with ${n(d.platformCriteria)} platform criteria; ${n(d.cpeMatch)} cpeMatch: ${n(d.ranges)} version ranges, ${n(d.exact)} exact versions, ${n(d.any)} ANY. Generation (in-process, excluded from the rates below): model ${d.generateSeconds.model.toFixed(1)} s, CVEs ${d.generateSeconds.cves.toFixed(1)} s, dictionary ${d.generateSeconds.dictionary.toFixed(1)} s.`,
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
    `| nist-nvd2 feed through \`loadFeedItems\` (adapter converter + store, generation excluded) | ${n(l.feed.recordsPerSecond)} records/s (${l.feed.seconds.toFixed(1)} s) |`,
    `| knowledge derivation after the load | ${n(l.derivation.cvesPerSecond)} CVEs/s (${l.derivation.seconds.toFixed(1)} s; ${n(l.derivation.cvesChanged)} CVEs, ${n(l.derivation.criteria)} criteria rows) |`,
    `| feed load + derivation | ${n(r.cves / Math.max(0.001, l.feed.seconds + l.derivation.seconds - d.generateSeconds.cves))} records/s |`,
    `| CPE dictionary through \`ingestCpeDictionary\` (generation excluded) | ${n(l.dictionary.namesPerSecond)} names/s (${l.dictionary.seconds.toFixed(1)} s; ${n(l.dictionary.deprecated)} deprecated, ${n(l.dictionary.aliases)} renames) |`,
    `| knowledge after load | ${n(l.counts.cves)} CVEs, ${n(l.counts.criteria)} criteria, ${n(l.counts.names)} names (${n(l.counts.dictionaryNames)} from the dictionary), ${n(l.counts.aliases)} renames |`,
    `| database size | ${n(l.database.totalMiB)} MiB |`,
    ...Object.entries(l.database.tables)
      .filter(([table]) => table !== 'hosts')
      .map(([table, mib]) => `| … \`${table}\` (with indexes) | ${n(mib)} MiB |`),
    `| harness peak RSS | ${n(l.peakRssMiB)} MiB |`,
    '',
    '## CPE search (`GET /v3/search/cpe`, limit 100)',
    '',
    `engine = in-process ${r.search.memory.engine}, what the route computes for the page (no HTTP); cold = the first such call. API = the real server (${r.serverWorkers} worker processes), c=1 then c=32 keep-alive clients, each after untimed warm-up requests (one per c=32 connection, so every worker has served the request). loop = the worst event-loop stall any server worker saw during the c=32 run (\`monitorEventLoopDelay\`, read from every worker's \`/process/status\`). serialise = in-process \`JSON.stringify\` of the same response body (bodies over 1 MiB, whose target is API p50 ≤ 2 × serialise). HTTP floor (authenticated \`/whoami\`): p50 ${ms(floor)} ms at c=1, ${n(r.search.floor.c32.requestsPerSecond)} req/s at c=32.${r.comparedWith ? ` PostgreSQL ÷ SQLite: API p50 against ${r.comparedWith.file} (${r.comparedWith.date}).` : ''}`,
    '',
    ...searchTable(r.search.queries),
    '',
    '### Pathological requests',
    '',
    ...searchTable(r.search.pathological),
    '',
    ...r.search.pathological.filter((q) => q.refusal).map((q) => `${q.name}: the server answers 400: "${q.refusal}"`),
    '',
    ...lookupSection(r.search.lookups ?? []),
    '### Targets',
    '',
    '| class | status |',
    '|---|---|',
    ...[...r.search.queries, ...r.search.pathological].map((q) => `| ${q.name} | ${verdict(q.targets ?? [])} |`),
    ...(r.search.lookups ?? []).map((q) => `| /v3/cpe ${q.name} | ${verdict(q.targets ?? [])} |`),
    `| index memory ≤ 1.5 GB per process | ${memoryVerdict(r.search.memory)} |`,
    '',
    `Class targets met: ${(() => {
      const t = sumTargets(
        [...r.search.queries, ...r.search.pathological, ...(r.search.lookups ?? [])].map((q) => q.targets ?? []),
      );
      return `${t.met} of ${t.total}`;
    })()}. Index memory (\`memoryBytes()\`, the in-process build, ${r.search.memory.engineBuildSeconds.toFixed(1)} s): ${n(r.search.memory.indexBytes / 2 ** 20)} MiB; harness memory growth (JS heap + external, after full GCs) from before the build to after every class: ${n(r.search.memory.engineHeapBytes / 2 ** 20)} MiB; server worker RSS after the classes: ${r.search.memory.workerRssMiB.map((m) => `${n(m)} MiB`).join(', ')}; server start ${r.search.memory.serverStartSeconds.toFixed(1)} s.`,
    '',
    ...matcherSection(r),
    ...explainSection(r),
    ...(r.memory
      ? [
          '## Memory of a long ingest',
          '',
          `\`vulnscope ingest scans\` as its own process (matching on, a new matcher) over ${n(r.memory.observations)} observations of the same kind of contexts, with this knowledge loaded: ${rate(r.memory.observationsPerSecond)} obs/s (${r.memory.seconds.toFixed(0)} s), peak RSS ${n(r.memory.peakRssMiB)} MiB (VmHWM; target ≤ 2 GB ${r.memory.peakRssMiB <= 2048 ? 'met' : 'not met'}).`,
          '',
        ]
      : []),
    `Reproduce: \`npm run bench:knowledge -- --cves ${r.cves} --names ${r.names}${r.matcher ? ` --contexts ${r.matcher.contexts} --observations ${r.ingest!.observations} --budget ${r.ingest!.budgetSeconds}` : ' --skip-matcher'} --workers ${r.serverWorkers}${r.engine === 'postgres' ? ' --engine postgres' : ''}${r.quick ? ' --quick' : ''}\` (or \`--prepare-only\` once, then \`--reuse\`).`,
    '',
  ];
  return lines.join('\n');
}

function matcherSection(r: KnowledgeBenchResult): string[] {
  if (!r.matcher || !r.ingest)
    return ['The matcher passes and ingest runs were left out of this run (`--skip-matcher`).', ''];
  const passRow = (label: string, p: MatcherPass) =>
    `| ${label} | ${rate(p.contextsPerSecond)} | ${rate(p.fingerprintsPerSecond)} | ${p.seconds.toFixed(2)} | ${pct(p.contextsWithConfirmed, p.contexts)} | ${p.confirmedPerContext.toFixed(2)} | ${p.evidencePerContext.toFixed(2)} |`;
  const ingest = r.ingest;
  return [
    '## Matcher (`KnowledgeMatcher.matchAll`)',
    '',
    `${n(r.matcher.cold.contexts)} fingerprint contexts${r.matcher.cold.contexts < r.matcher.contexts ? ` (of ${n(r.matcher.contexts)} offered: the cold pass stops at the first call after ${r.matcher.budgetSeconds} s)` : ''}, ${n(r.matcher.cold.distinctContexts)} distinct, with ${n(r.matcher.cold.fingerprintCpes)} fingerprint CPEs and ${n(r.matcher.cold.osCpes)} OS CPEs, Zipf over the knowledge's applications, firmware and versions, in calls of ${n(r.matcher.batch)}; cold = a new matcher, warm = the same contexts again through it. Time inside \`matchAll\` only.`,
    '',
    '| pass | contexts/s | fingerprint CPEs/s | seconds | contexts with a confirmed CVE | confirmed CVEs per context | evidence per context |',
    '|---|---:|---:|---:|---:|---:|---:|',
    passRow('cold cache', r.matcher.cold),
    passRow('warm cache', r.matcher.warm),
    '',
    `Heap in use (after a full GC) before the matcher was made: ${n(r.matcher.heapBeforeMiB)} MiB; after the cold pass, its caches holding ${n(r.matcher.cold.distinctContexts)} contexts (confirmed CVEs only, as ingest's matcher keeps them) with the names and applicability they read: ${n(r.matcher.heapAfterColdMiB)} MiB (${(((r.matcher.heapAfterColdMiB - r.matcher.heapBeforeMiB) * 1024) / Math.max(1, r.matcher.cold.distinctContexts)).toFixed(0)} KiB per distinct context).`,
    '',
    '## Ingest (`runIngest`, Vulnscope NDJSON, batches of 1,000)',
    '',
    `${n(r.ingest.observations)} new observations per run carrying the same kind of contexts (another seed), each run into fresh addresses, each cut at the first batch boundary after ${r.ingest.budgetSeconds} s (a batch of 1,000 is matched as a whole). off = the pipeline given a matcher that confirms nothing (it always matches otherwise); new matcher = a fresh \`KnowledgeMatcher\` over storage (cold caches), as in a new \`vulnscope ingest scans\` process; warmed = the matcher of the passes above (run before the new one, then dropped: one matcher alive at a time); baseline = the observations the new matcher's run read, given the CVE sets that run confirmed from a table (what storing them costs without matching); ÷ baseline is the new matcher's rate against it.`,
    '',
    '| matcher | observations | obs/s | seconds | records with knowledge CVEs | ÷ off | heap after, MiB |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...(
      [
        ['off', r.ingest.off],
        ['on, new matcher', r.ingest.on],
        ['on, warmed matcher', r.ingest.onWarm],
        ...(r.ingest.baseline ? [['baseline: CVE sets from a table', r.ingest.baseline] as const] : []),
      ] as const
    ).map(
      ([label, run]) =>
        `| ${label} | ${n(run.read)} | ${rate(run.observationsPerSecond)} | ${run.seconds.toFixed(1)} | ${n(run.withKnowledgeCves)} | ${(run.observationsPerSecond / ingest.off.observationsPerSecond).toPrecision(2)} | ${n(run.heapMiB)} |`,
    ),
    '',
    ...(r.ingest.baseline
      ? [
          `New matcher ÷ baseline: ${(r.ingest.on.observationsPerSecond / r.ingest.baseline.observationsPerSecond).toPrecision(2)} (target ≥ 0.5); ÷ off: ${(r.ingest.on.observationsPerSecond / r.ingest.off.observationsPerSecond).toPrecision(2)}.`,
          '',
        ]
      : []),
  ];
}

function explainSection(r: KnowledgeBenchResult): string[] {
  if (!r.explain) return [];
  const { engine, api } = r.explain;
  const list = (values: number[]) => values.map(ms).join(' / ');
  const worstCold = Math.max(...api.coldMs);
  return [
    '## `explain=true` (a page of 100 records)',
    '',
    `The records the new matcher's ingest run wrote that carry knowledge CVEs, ${n(engine.pages)} pages of 100 (${n(engine.evidencePerPage)} evidence rows on the first). engine = what the route computes for a page (\`getByIds\`, then \`explainRecordsJson\` with the evidence matcher: each context's evidence serialised once), in-process with a new matcher; API = \`/v3/index/target-intel?cidr=…&contains_cve=true&explain=true&limit=100\` on a server started for it (${api.serverStartSeconds.toFixed(1)} s), timed to the last byte. Cold = each page the first time, in order; warm = the first page again (p50 of 20).`,
    '',
    '| | cold, page by page (ms) | warm p50 ms | warm p99 ms | response |',
    '|---|---|---:|---:|---:|',
    `| engine | ${list(engine.coldMs)} | ${ms(engine.warmP50Ms)} | | |`,
    `| API | ${list(api.coldMs)} | ${ms(api.warmP50Ms)} | ${ms(api.warmP99Ms)} | ${bytes(api.responseBytes)} |`,
    '',
    `Target: a page ≤ 50 ms — ${worstCold <= 50 ? 'met' : `not met cold (worst page ${ms(worstCold)} ms)`}${api.warmP50Ms <= 50 ? ', met warm' : `, not met warm (${ms(api.warmP50Ms)} ms)`}.`,
    '',
  ];
}

function lookupSection(lookups: SearchFigures[]): string[] {
  if (lookups.length === 0) return [];
  return [
    '### CPE lookup (`GET /v3/cpe`)',
    '',
    'The same measurements; total and the links column are the CVEs listed (the CVEs of the CPE and of every name it matches).',
    '',
    ...searchTable(lookups),
    '',
    ...lookups.filter((q) => q.refusal).map((q) => `${q.name}: the server answers 400: "${q.refusal}"`),
    '',
  ];
}

function searchTable(queries: SearchFigures[]): string[] {
  return [
    '| query | parameters | total | CVE links on page | response | engine cold ms | engine p50 ms | API p50 ms | API p99 ms | serialise ms | c=32 req/s | c=32 p99 ms | c=32 ÷ c=1 | loop max / p99 ms | GC max ms | errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...queries.map(
      (q) =>
        `| ${q.name} | \`${describe(q.params)}\` | ${q.status === 400 ? 'refused (400)' : n(q.total ?? 0)} | ${n(q.links ?? 0)} | ${bytes(q.responseBytes)} | ${q.engineColdMs !== undefined ? ms(q.engineColdMs) : '–'} | ${q.engineP50Ms !== undefined ? ms(q.engineP50Ms) : '–'} | ${ms(q.api.c1.p50Ms)} | ${ms(q.api.c1.p99Ms)} | ${q.serialiseP50Ms !== undefined ? ms(q.serialiseP50Ms) : ''} | ${rate(q.api.c32.requestsPerSecond)} | ${ms(q.api.c32.p99Ms)} | ${(q.api.c32.requestsPerSecond / q.api.c1.requestsPerSecond).toFixed(2)} | ${ms(q.loop.worstMs)} / ${ms(Math.max(0, ...q.loop.workers.map((w) => w.p99DelayMs)))} | ${gcMax(q)} | ${q.api.c1.errors + q.api.c32.errors} |`,
    ),
  ];
}

function memoryVerdict(m: SearchMemory): string {
  // The indexes' own figure or what the harness grew by holding them; RSS (everything a worker holds) is shown beside.
  const worst = Math.max(m.indexBytes, m.engineHeapBytes);
  return `${worst <= 1.5e9 ? 'met' : 'not met'} (indexes ${n(m.indexBytes / 2 ** 20)} MiB, heap + external growth ${n(m.engineHeapBytes / 2 ** 20)} MiB; worker RSS ${m.workerRssMiB.map((x) => n(x)).join(' / ')} MiB)`;
}

/** The longest GC pause any worker reported during the class's c=32 run, with its kind. */
function gcMax(q: { loop: { workers: WorkerStatus[] } }): string {
  return gcMaxText(q.loop.workers, ms);
}
