import fs from 'node:fs';
import path from 'node:path';
import type { LoadResult } from './http-load.js';
import type { DatabaseSize } from './server.js';

export interface SearchFigures {
  name: string;
  /** The `/v3/search/cpe` parameters. */
  params: Record<string, string>;
  /** `_meta.total_documents`: names matching. */
  total: number;
  /** Names on the page, and CVE links listed for them (Σ `cves` lengths). */
  names: number;
  links: number;
  /** Size of the JSON response (re-serialised, so without insignificant whitespace). */
  responseBytes: number;
  engineRuns: number;
  /** First in-process call of the query (nothing of it in the database page cache yet, unless an earlier class read it). */
  engineColdMs: number;
  /** In-process: `searchCpe` (name search + `criteriaForNames`), as the route (no HTTP); warm. */
  engineP50Ms: number;
  engineP99Ms: number;
  /** `searchCpeNames` alone (count + page). */
  sqlP50Ms: number;
  api: { c1: LoadResult; c32: LoadResult };
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
  matcher: 'off' | 'cold' | 'warm';
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
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; heapLimitMiB: number };
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
  search: { floor: { c1: LoadResult; c32: LoadResult }; queries: SearchFigures[] };
  matcher: {
    batch: number;
    contexts: number;
    budgetSeconds: number;
    cold: MatcherPass;
    warm: MatcherPass;
    /** Harness heap in use before the matcher was made, and after its cold pass (its caches full). */
    heapBeforeMiB: number;
    heapAfterColdMiB: number;
  };
  ingest: { observations: number; budgetSeconds: number; off: IngestFigures; on: IngestFigures; onWarm: IngestFigures };
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
  const passRow = (label: string, p: MatcherPass) =>
    `| ${label} | ${rate(p.contextsPerSecond)} | ${rate(p.fingerprintsPerSecond)} | ${p.seconds.toFixed(2)} | ${pct(p.contextsWithConfirmed, p.contexts)} | ${p.confirmedPerContext.toFixed(2)} | ${p.evidencePerContext.toFixed(2)} |`;
  const lines = [
    `# Vulnscope knowledge benchmark: ${r.engine}, ${n(r.cves)} CVEs, ${n(r.names)} CPE names${r.quick ? ' (quick)' : ''}`,
    '',
    `${r.date} · ${r.machine.cpus} × ${r.machine.cpuModel} · ${r.machine.memoryGiB} GiB · Node ${r.machine.node} (heap limit ${n(r.machine.heapLimitMiB)} MiB) · server with ${r.serverWorkers} worker process(es)`,
    '',
    '## Dataset (deterministic, bench/knowledge-dataset.ts)',
    '',
    `${n(d.products)} vendor:product pairs (${n(d.vendors)} vendors), names by part: ${parts}. CVEs: ${n(r.cves)} NVD CVE API 2.0 objects, ${n(d.cvesWithConfigurations)} with configurations (of the ${n(r.cves - d.cvesWithConfigurations)} without, ${n(d.rejectedCves)} rejected, the rest awaiting analysis), ${n(d.andConfigurations)} AND configurations (${pct(d.andConfigurations, d.cvesWithConfigurations)}) with ${n(d.platformCriteria)} platform criteria; ${n(d.cpeMatch)} cpeMatch: ${n(d.ranges)} version ranges, ${n(d.exact)} exact versions, ${n(d.any)} ANY. Generation (in-process, excluded from the rates below): model ${d.generateSeconds.model.toFixed(1)} s, CVEs ${d.generateSeconds.cves.toFixed(1)} s, dictionary ${d.generateSeconds.dictionary.toFixed(1)} s.`,
    '',
    '## Load',
    '',
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
    `engine = in-process \`searchCpe\` for the page (name search, then one criteria query per product), as the route (no HTTP); cold = the first such call; SQL = \`searchCpeNames\` alone (exact count + page). HTTP floor (authenticated \`/whoami\`): p50 ${ms(floor)} ms at c=1, ${n(r.search.floor.c32.requestsPerSecond)} req/s at c=32.`,
    '',
    '| query | parameters | total | CVE links on page | response | engine cold ms | engine p50 ms | SQL p50 ms | API p50 ms | API p99 ms | API p50 ÷ (engine + floor) | c=32 req/s | c=32 p99 ms | errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.search.queries.map(
      (q) =>
        `| ${q.name} | \`${describe(q.params)}\` | ${n(q.total)} | ${n(q.links)} | ${bytes(q.responseBytes)} | ${ms(q.engineColdMs)} | ${ms(q.engineP50Ms)} | ${ms(q.sqlP50Ms)} | ${ms(q.api.c1.p50Ms)} | ${ms(q.api.c1.p99Ms)} | ${(q.api.c1.p50Ms / (q.engineP50Ms + floor)).toFixed(2)} | ${rate(q.api.c32.requestsPerSecond)} | ${ms(q.api.c32.p99Ms)} | ${q.api.c1.errors + q.api.c32.errors} |`,
    ),
    '',
    `Requests per query: adapted to the engine time (c=1: ${r.search.queries.map((q) => q.api.c1.requests).join('/')}; c=32: ${r.search.queries.map((q) => q.api.c32.requests).join('/')}).`,
    '',
    '## Matcher (`KnowledgeMatcher.matchAll`)',
    '',
    `${n(r.matcher.cold.contexts)} fingerprint contexts${r.matcher.cold.contexts < r.matcher.contexts ? ` (of ${n(r.matcher.contexts)} offered: the cold pass stops at the first call after ${r.matcher.budgetSeconds} s)` : ''}, ${n(r.matcher.cold.distinctContexts)} distinct, with ${n(r.matcher.cold.fingerprintCpes)} fingerprint CPEs and ${n(r.matcher.cold.osCpes)} OS CPEs, Zipf over the knowledge's applications, firmware and versions, in calls of ${n(r.matcher.batch)}; cold = a new matcher, warm = the same contexts again through it. Time inside \`matchAll\` only.`,
    '',
    '| pass | contexts/s | fingerprint CPEs/s | seconds | contexts with a confirmed CVE | confirmed CVEs per context | evidence per context |',
    '|---|---:|---:|---:|---:|---:|---:|',
    passRow('cold cache', r.matcher.cold),
    passRow('warm cache', r.matcher.warm),
    '',
    `Heap in use (after a full GC) before the matcher was made: ${n(r.matcher.heapBeforeMiB)} MiB; after the cold pass, its caches holding ${n(r.matcher.cold.distinctContexts)} contexts with their evidence: ${n(r.matcher.heapAfterColdMiB)} MiB (${(((r.matcher.heapAfterColdMiB - r.matcher.heapBeforeMiB) * 1024) / Math.max(1, r.matcher.cold.distinctContexts)).toFixed(0)} KiB per distinct context).`,
    '',
    '## Ingest (`runIngest`, Vulnscope NDJSON, batches of 1,000)',
    '',
    `${n(r.ingest.observations)} new observations per run carrying the same kind of contexts (another seed), each run into fresh addresses, each cut at the first batch boundary after ${r.ingest.budgetSeconds} s (a batch of 1,000 is matched as a whole). off = the pipeline given a matcher that confirms nothing (it always matches otherwise); new matcher = a fresh \`KnowledgeMatcher\` over storage (cold caches), as in a new \`vulnscope ingest scans\` process; warmed = the matcher of the passes above (run before the new one, then dropped: one matcher alive at a time).`,
    '',
    '| matcher | observations | obs/s | seconds | records with knowledge CVEs | ÷ off | heap after, MiB |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...(
      [
        ['off', r.ingest.off],
        ['on, new matcher', r.ingest.on],
        ['on, warmed matcher', r.ingest.onWarm],
      ] as const
    ).map(
      ([label, run]) =>
        `| ${label} | ${n(run.read)} | ${rate(run.observationsPerSecond)} | ${run.seconds.toFixed(1)} | ${n(run.withKnowledgeCves)} | ${(run.observationsPerSecond / r.ingest.off.observationsPerSecond).toPrecision(2)} | ${n(run.heapMiB)} |`,
    ),
    '',
    `Reproduce: \`npm run bench:knowledge -- --cves ${r.cves} --names ${r.names} --contexts ${r.matcher.contexts} --observations ${r.ingest.observations} --budget ${r.ingest.budgetSeconds} --workers ${r.serverWorkers}${r.engine === 'postgres' ? ' --engine postgres' : ''}${r.quick ? ' --quick' : ''}\``,
    '',
  ];
  return lines.join('\n');
}
