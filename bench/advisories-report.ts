import fs from 'node:fs';
import path from 'node:path';
import type { LoadResult } from './http-load.js';

export interface AdvisoryQueryFigures {
  name: string;
  /** The `/v4/advisory` parameters (limit 100 always; `page` for the deep page). */
  params: Record<string, string>;
  /** `_meta.filtered`: records matching. */
  filtered: number;
  /** True when the filter needs the match data (version, CPE, several entry filters): every candidate is evaluated. */
  matchData: boolean;
  engineRuns: number;
  /** In-process `storage.advisories.search(...)` (filters parsed as the route does), no HTTP. */
  engineP50Ms: number;
  engineP99Ms: number;
  api: { c1: LoadResult; c32: LoadResult };
}

export interface AdvisoryBenchResult {
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string };
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
  };
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const n = (value: number) => Math.round(value).toLocaleString('en-US');

/** Writes `advisories-<engine>-<records>.json` and `.md`. */
export function writeAdvisoryReport(dir: string, result: AdvisoryBenchResult): string[] {
  fs.mkdirSync(dir, { recursive: true });
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
    `${r.date} · ${r.machine.cpus} × ${r.machine.cpuModel} · ${r.machine.memoryGiB} GiB · Node ${r.machine.node} · feed \`${r.feed}\` · ${n(r.dataset.products)} vendor:product pairs (${n(r.dataset.vendors)} vendors) · server with ${r.serverWorkers} worker process(es)`,
    '',
    '## Load',
    '',
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
    `engine = in-process \`storage.advisories.search(...)\` with the filters parsed as the route parses them (no HTTP); match data = the filter needs every candidate's match data evaluated (version, CPE, several entry filters). HTTP floor (authenticated \`/whoami\`): p50 ${ms(floor)} ms at c=1, ${n(r.floor.c32.requestsPerSecond)} req/s at c=32.`,
    '',
    '| query | parameters | filtered | match data | engine p50 ms | API p50 ms | API p99 ms | API p50 ÷ (engine + floor) | c=32 req/s | c=32 p99 ms | errors |',
    '|---|---|---:|:---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.queries.map(
      (q) =>
        `| ${q.name} | \`${describe(q.params)}\` | ${n(q.filtered)} | ${q.matchData ? 'yes' : ''} | ${ms(q.engineP50Ms)} | ${ms(q.api.c1.p50Ms)} | ${ms(q.api.c1.p99Ms)} | ${(q.api.c1.p50Ms / (q.engineP50Ms + floor)).toFixed(2)} | ${n(q.api.c32.requestsPerSecond)} | ${ms(q.api.c32.p99Ms)} | ${q.api.c1.errors + q.api.c32.errors} |`,
    ),
    '',
    `Requests per query: adapted to the engine time (c=1: ${r.queries.map((q) => q.api.c1.requests).join('/')}; c=32: ${r.queries.map((q) => q.api.c32.requests).join('/')}).`,
    '',
    `## Cursor walk`,
    '',
    `\`${describe(r.walk.params)}\`, \`start_cursor\`, limit ${r.walk.limit}: ${n(r.walk.records)} of ${n(r.walk.total)} records in ${n(r.walk.pages)} pages, ${r.walk.seconds.toFixed(2)} s = **${n(r.walk.recordsPerSecond)} records/s** (page p50 ${ms(r.walk.pageP50Ms)} ms, p99 ${ms(r.walk.pageP99Ms)} ms), ${r.walk.duplicates} duplicates.`,
    '',
    `Reproduce: \`npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/advisories.js --records ${r.records}${r.engine === 'postgres' ? ' --engine postgres' : ''}${r.quick ? ' --quick' : ''}\``,
    '',
  ];
  return lines.join('\n');
}
