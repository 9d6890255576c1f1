import fs from 'node:fs';
import type { BenchResult } from './report.js';

/**
 * Side-by-side table of two `npm run bench` results (before/after a change, one engine against
 * the other, or two dataset sizes): every query's API p50/p99 and c=32 throughput, ingest and
 * upkeep, each with the ratio B ÷ A.
 *
 *   node dist-bench/bench/compare.js A.json B.json [--labels "before,after"] [--out file.md]
 */
interface Options {
  a: string;
  b: string;
  labels: [string, string];
  out?: string;
}

function parseArgs(argv: string[]): Options {
  const files: string[] = [];
  let labels: [string, string] = ['A', 'B'];
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--labels') {
      const [first, second] = (argv[++i] ?? '').split(',');
      if (!first || !second) throw new Error('--labels needs two comma-separated names');
      labels = [first, second];
    } else if (arg === '--out') out = argv[++i];
    else files.push(arg);
  }
  if (files.length !== 2) throw new Error('usage: compare A.json B.json [--labels a,b] [--out file.md]');
  return { a: files[0]!, b: files[1]!, labels, out };
}

const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as BenchResult;
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const n = (value: number) => Math.round(value).toLocaleString('en-US');
const ratio = (a: number, b: number) => (a > 0 ? `${(b / a).toFixed(2)}` : '—');

export function renderComparison(a: BenchResult, b: BenchResult, [la, lb]: [string, string]): string {
  const describe = (r: BenchResult, label: string) =>
    `- **${label}**: ${r.engine}, ${n(r.records)} observations, ${r.date}, ${r.serverWorkers} worker process(es), HTTP floor p50 ${ms(r.floor.c1.p50Ms)} ms`;
  const rows = a.queries.map((qa) => {
    const qb = b.queries.find((q) => q.name === qa.name);
    if (!qb)
      return `| ${qa.name} | ${ms(qa.api.c1.p50Ms)} | — | — | ${ms(qa.api.c1.p99Ms)} | — | ${n(qa.api.c32.requestsPerSecond)} | — | — |`;
    return `| ${qa.name} | ${ms(qa.api.c1.p50Ms)} | ${ms(qb.api.c1.p50Ms)} | ${ratio(qa.api.c1.p50Ms, qb.api.c1.p50Ms)} | ${ms(qa.api.c1.p99Ms)} | ${ms(qb.api.c1.p99Ms)} | ${n(qa.api.c32.requestsPerSecond)} | ${n(qb.api.c32.requestsPerSecond)} | ${ratio(qa.api.c32.requestsPerSecond, qb.api.c32.requestsPerSecond)} |`;
  });
  const figure = (name: string, va: number, vb: number, format: (v: number) => string) =>
    `| ${name} | ${format(va)} | ${format(vb)} | ${ratio(va, vb)} |`;
  return [
    `# ${la} → ${lb}`,
    '',
    describe(a, la),
    describe(b, lb),
    '',
    `## Queries (API, c=1 p50/p99 ms; c=32 req/s; ratio = ${lb} ÷ ${la})`,
    '',
    `| query | p50 ${la} | p50 ${lb} | ratio | p99 ${la} | p99 ${lb} | c=32 ${la} | c=32 ${lb} | ratio |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    '## Ingest and upkeep',
    '',
    `| figure | ${la} | ${lb} | ratio |`,
    '|---|---:|---:|---:|',
    figure('ingest obs/s', a.ingest.observationsPerSecond, b.ingest.observationsPerSecond, n),
    figure('raw INSERT rows/s', a.ingest.rawRowsPerSecond, b.ingest.rawRowsPerSecond, n),
    figure('ingest ÷ raw', a.ingest.ratioToRaw, b.ingest.ratioToRaw, (v) => v.toFixed(2)),
    figure('ingest peak RSS MiB', a.ingest.peakRssMiB, b.ingest.peakRssMiB, n),
    figure('index build at server start s', a.index.serverBuildSeconds, b.index.serverBuildSeconds, (v) =>
      v.toFixed(1),
    ),
    figure('index memory MiB', a.index.memoryMiB, b.index.memoryMiB, n),
    figure('server RSS MiB (all workers)', a.index.serverRssMiB, b.index.serverRssMiB, n),
    figure('upserts/s', a.upkeep.upsertsPerSecond, b.upkeep.upsertsPerSecond, n),
    figure('expire oldest 5% s', a.upkeep.expirySeconds, b.upkeep.expirySeconds, (v) => v.toFixed(1)),
    figure('ingest → visible ms', a.upkeep.ingestToVisibleMs, b.upkeep.ingestToVisibleMs, ms),
    figure('cursor walk records/s', a.walk.recordsPerSecond, b.walk.recordsPerSecond, n),
    '',
  ].join('\n');
}

function main(): void {
  const options = parseArgs(process.argv.slice(2));
  const markdown = renderComparison(read(options.a), read(options.b), options.labels);
  if (options.out) fs.writeFileSync(options.out, markdown);
  else process.stdout.write(markdown);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) main();
