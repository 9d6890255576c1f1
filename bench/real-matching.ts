/**
 * Matching on real data: the CVE 5 records of `../shared/data/cve5-vulnrichment.dev.ndjson.gz`
 * loaded as knowledge (the mitre-cvelist-v5 feed, derived as a load derives it), and observations
 * whose fingerprints are CPEs and versions those records name; `runIngest` with matching off and
 * on (a new matcher that keeps confirmed CVEs, as `vulnscope ingest scans` makes), in one run on
 * one fresh SQLite database. Target: ingest with matching ≥ 0.8 × without.
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/real-matching.js \
 *     [--file ../shared/data/cve5-vulnrichment.dev.ndjson.gz] [--observations 60000] [--out bench/results]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CveApplicability } from '../src/core/applicability/types.js';
import { ANY, formatCpe23, parseCpe, quoteWfnValue, type Wfn } from '../src/core/cpe.js';
import { isConcrete } from '../src/core/applicability/name-match.js';
import type { ContextMatch, CveMatcher } from '../src/core/matching.js';
import { ClassificationResolver } from '../src/ingest/classifications/resolver.js';
import { loadFeedSources } from '../src/ingest/feeds/load.js';
import { runIngest } from '../src/ingest/pipeline.js';
import { readScanFile } from '../src/ingest/readers/index.js';
import { FeedRegistry } from '../src/services/feed-registry.js';
import { KnowledgeMatcher } from '../src/services/matching/matcher.js';
import { storageKnowledgeSource } from '../src/services/matching/source.js';
import { createStorage, type Storage } from '../src/storage/index.js';
import { fail } from './common.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SEED = 23;

const say = (message: string) =>
  process.stderr.write(`[bench-real ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const NO_MATCHING: CveMatcher = {
  matchAll: async (contexts) => contexts.map((): ContextMatch => ({ confirmed: [], evidence: [] })),
};

interface Options {
  file: string;
  observations: number;
  out: string;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    file: path.join(ROOT, '../shared/data/cve5-vulnrichment.dev.ndjson.gz'),
    observations: 60_000,
    out: path.join(ROOT, 'bench/results'),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => argv[++i] ?? fail(`${arg} needs a value`);
    if (arg === '--file') options.file = path.resolve(value());
    else if (arg === '--observations') options.observations = Number(value());
    else if (arg === '--out') options.out = value();
    else fail(`unknown argument ${arg}`);
  }
  if (!fs.existsSync(options.file)) fail(`${options.file} is missing`);
  if (!Number.isInteger(options.observations) || options.observations < 1) fail('--observations must be ≥ 1');
  return options;
}

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PLACEHOLDERS = new Set(['*', '-', '0', 'n/a', 'unspecified', 'all']);

/** The name with `version`, when the CPE names a concrete product and the version can be a CPE value. */
function named(cpe: string, version: string | undefined): string | undefined {
  let wfn: Wfn;
  try {
    wfn = parseCpe(cpe);
  } catch {
    return undefined;
  }
  if (!isConcrete(wfn.part) || !isConcrete(wfn.vendor) || !isConcrete(wfn.product)) return undefined;
  if (version === undefined) return isConcrete(wfn.version) ? formatCpe23({ ...wfn, update: ANY }) : undefined;
  if (PLACEHOLDERS.has(version.trim().toLowerCase())) return undefined;
  try {
    return formatCpe23({ ...wfn, version: quoteWfnValue(version.trim()), update: ANY });
  } catch {
    return undefined;
  }
}

/** Every CPE name with a version the knowledge's statements name: criteria versions, range bounds, CVE 5 versions. */
function namesOf(app: CveApplicability, into: Set<string>): void {
  const add = (name: string | undefined) => {
    if (name) into.add(name);
  };
  for (const statement of app.statements) {
    for (const configuration of statement.configurations)
      for (const node of configuration.nodes)
        for (const criterion of node.cpeMatch) {
          add(named(criterion.criteria, undefined));
          for (const bound of Object.values(criterion.range ?? {})) add(named(criterion.criteria, bound));
        }
    for (const entry of statement.affected) {
      // Vendors list one product under hundreds of CPEs that differ only in version: name each product once.
      const products = new Set<string>();
      for (const cpe of entry.cpes) {
        add(named(cpe, undefined));
        products.add(
          cpe
            .split(':')
            .map((part, i) => (i === 5 ? '*' : part))
            .join(':'),
        );
      }
      for (const cpe of products)
        for (const version of entry.versions ?? []) {
          add(named(cpe, version.version));
          add(named(cpe, version.lessThan));
          add(named(cpe, version.lessThanOrEqual));
        }
    }
  }
}

async function knowledgeNames(storage: Storage): Promise<string[]> {
  const names = new Set<string>();
  let after = '';
  for (;;) {
    const rows = await storage.db.all<{ cve_id: string }>(
      `SELECT cve_id FROM knowledge_cves WHERE cve_id > ? ORDER BY cve_id LIMIT 1000`,
      [after],
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.cve_id;
    for (const app of await storage.knowledge.applicability(rows.map((row) => row.cve_id))) namesOf(app, names);
  }
  return [...names].sort();
}

function writeObservations(file: string, names: string[], count: number, block: number, now: number): void {
  const next = random(SEED);
  const pick = () => names[Math.floor(next() * names.length)]!;
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const cpes = next() < 0.3 ? [pick(), pick()] : [pick()];
    const fingerprints = cpes.map((cpe) => {
      const [, , , vendor, product, version] = cpe.split(':');
      return { vendor, product, version, cpe };
    });
    const ip = `${10 + block}.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`;
    lines.push(
      JSON.stringify({ ip, port: 443, protocol: 'tcp', timestamp: new Date(now).toISOString(), fingerprints }),
    );
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

interface IngestRun {
  observations: number;
  seconds: number;
  perSecond: number;
  withKnowledgeCves: number;
}

async function ingest(storage: Storage, file: string, matcher: CveMatcher, block: number): Promise<IngestRun> {
  const classifier = new ClassificationResolver(await storage.classificationLists.allEntries());
  const started = performance.now();
  const summary = await runIngest(
    storage,
    readScanFile(file, { format: 'ndjson' }),
    { classifier, matcher },
    { retentionDays: 0, batchSize: 1000 },
  );
  const seconds = (performance.now() - started) / 1000;
  if (summary.rejected !== 0 || summary.inserted !== summary.read)
    throw new Error(`ingest: ${summary.inserted} inserted, ${summary.rejected} rejected of ${summary.read} read`);
  const row = await storage.db.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM hosts WHERE knowledge_cves IS NOT NULL AND ip LIKE ?`,
    [`${10 + block}.%`],
  );
  return { observations: summary.read, seconds, perSecond: summary.read / seconds, withKnowledgeCves: Number(row?.n) };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-bench-real-'));
  const storage = await createStorage({ engine: 'sqlite', file: path.join(work, 'real.db') });
  try {
    say(`loading ${path.relative(ROOT, options.file)} into mitre-cvelist-v5 (knowledge derived as a load does)`);
    let started = performance.now();
    const load = await loadFeedSources(storage, new FeedRegistry().get('mitre-cvelist-v5')!, [options.file]);
    const loadSeconds = (performance.now() - started) / 1000;
    const knowledge = await storage.knowledge.counts();
    say(`  ${fmt(load.records)} records in ${loadSeconds.toFixed(1)} s; knowledge of ${fmt(knowledge.cves)} CVEs`);
    started = performance.now();
    const names = await knowledgeNames(storage);
    say(
      `  ${fmt(names.length)} versioned CPE names named by the knowledge (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    const now = Date.now();
    const runs: Array<[string, IngestRun]> = [];
    for (const [label, block, matcher] of [
      ['off', 0, NO_MATCHING],
      ['on, new matcher', 1, new KnowledgeMatcher(storageKnowledgeSource(storage), { evidence: false })],
    ] as const) {
      const file = path.join(work, `observations-${block}.ndjson`);
      writeObservations(file, names, options.observations, block, now);
      const run = await ingest(storage, file, matcher, block);
      say(
        `  ${label}: ${fmt(run.perSecond)} obs/s, ${fmt(run.withKnowledgeCves)} records with knowledge CVEs, heap ${fmt(process.memoryUsage().heapUsed / 2 ** 20)} MiB, peak RSS ${fmt(process.resourceUsage().maxRSS / 1024)} MiB`,
      );
      runs.push([label, run]);
    }
    const [off, on] = [runs[0]![1], runs[1]![1]];
    const report = [
      '# Vulnscope matching on real data: CVE 5 records as knowledge, SQLite',
      '',
      `${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'} · Node ${process.version}`,
      '',
      `Knowledge: \`${path.relative(ROOT, options.file)}\` through the mitre-cvelist-v5 feed, ${fmt(load.records)} records in ${loadSeconds.toFixed(1)} s (knowledge derivation included): ${fmt(knowledge.cves)} CVEs, ${fmt(knowledge.criteria)} criteria. Observations: ${fmt(options.observations)} per run, each with one fingerprint (30%: two) drawn uniformly from the ${fmt(names.length)} CPE names with a version that the knowledge names (criteria versions, range bounds, CVE 5 versions), into fresh addresses; \`runIngest\` in batches of 1,000.`,
      '',
      '| matching | observations | obs/s | seconds | records with knowledge CVEs |',
      '|---|---:|---:|---:|---:|',
      ...runs.map(
        ([label, run]) =>
          `| ${label} | ${fmt(run.observations)} | ${fmt(run.perSecond)} | ${run.seconds.toFixed(1)} | ${fmt(run.withKnowledgeCves)} |`,
      ),
      '',
      `On ÷ off: ${(on.perSecond / off.perSecond).toFixed(2)} (target ≥ 0.8).`,
      '',
      `Reproduce: \`npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/real-matching.js --observations ${options.observations}\`.`,
      '',
    ].join('\n');
    fs.mkdirSync(options.out, { recursive: true });
    const out = path.join(options.out, 'real-matching-sqlite.md');
    fs.writeFileSync(out, report);
    say(`results: ${out}`);
  } finally {
    await storage.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
