/**
 * Re-mapping at scale: the target-intel bench's dataset (`bench/dataset.ts`) ingested with
 * knowledge for its products (one NVD record per CVE the dataset names, exact-version criteria),
 * then 1,000 new CVEs on existing product versions loaded while `vulnscope serve` runs: the time
 * until the API serves every one of them on every record of its product version. Then the rate
 * of a full re-map of every record (the walk a rules change or a lost change log starts) against
 * the rate of ingesting the same records with matching on. SQLite, one run, one machine.
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node --max-old-space-size=8192 \
 *     dist-bench/bench/remap.js [--records 10000000] [--changed 1000] [--out bench/results]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertNvdCve } from '../src/ingest/advisories/nvd.js';
import { ClassificationResolver } from '../src/ingest/classifications/resolver.js';
import { loadFeedItems, recordsAsItems } from '../src/ingest/feeds/load.js';
import { runIngest } from '../src/ingest/pipeline.js';
import { readScanFile } from '../src/ingest/readers/index.js';
import { FeedRegistry } from '../src/services/feed-registry.js';
import { requestFullRemap, remapToCurrentRules } from '../src/services/matching/rules-remap.js';
import { confirmingMatcher } from '../src/services/matching/source.js';
import { remappedGeneration } from '../src/services/matching/knowledge-remap.js';
import { createStorage, putSetting, type Storage } from '../src/storage/index.js';
import { fail, freePort } from './common.js';
import { buildModel, writeDataset } from './dataset.js';
import { getJson, startServer, stopServer } from './server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli/main.js');
const SEED = 42;

const say = (message: string) =>
  process.stderr.write(`[bench-remap ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const seconds = (since: number) => (performance.now() - since) / 1000;

interface Options {
  records: number;
  changed: number;
  out: string;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { records: 1_000_000, changed: 1000, out: path.join(ROOT, 'bench/results') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => argv[++i] ?? fail(`${arg} needs a value`);
    if (arg === '--records') options.records = Number(value());
    else if (arg === '--changed') options.changed = Number(value());
    else if (arg === '--out') options.out = value();
    else fail(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.records) || options.records < 1000) fail('--records must be ≥ 1000');
  if (!Number.isInteger(options.changed) || options.changed < 1) fail('--changed must be ≥ 1');
  return options;
}

/** An NVD CVE API 2.0 `cve` object whose one configuration names exactly `cpes`. */
function nvdRecord(id: string, cpes: string[], modified: string): Record<string, unknown> {
  return {
    id,
    sourceIdentifier: 'bench@example.org',
    published: '2024-01-01T00:00:00.000',
    lastModified: modified,
    vulnStatus: 'Analyzed',
    descriptions: [{ lang: 'en', value: `Synthetic ${id}` }],
    configurations: [
      {
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: cpes.map((criteria, i) => ({
              vulnerable: true,
              criteria,
              matchCriteriaId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
            })),
          },
        ],
      },
    ],
  };
}

const cpeOf = (vendor: string, product: string, version: string) =>
  `cpe:2.3:a:${vendor}:${product}:${version}:*:*:*:*:*:*:*`;

/** The knowledge of the dataset's CVEs: each CVE on the product versions the dataset gives it. */
function datasetKnowledge(records: number): Array<Record<string, unknown>> {
  const byCve = new Map<string, string[]>();
  for (const p of buildModel(records, SEED).products)
    p.cves.forEach((cves, v) => {
      for (const cve of cves) {
        const cpes = byCve.get(cve) ?? [];
        cpes.push(cpeOf(p.vendor, p.product, p.versions[v]!));
        byCve.set(cve, cpes);
      }
    });
  return [...byCve].map(([id, cpes]) => nvdRecord(id, [...new Set(cpes)], '2024-01-01T00:00:00.000'));
}

/** `count` new CVEs, each on one product version of the dataset (spread over products by rank). */
function newCves(
  records: number,
  count: number,
): Array<{ id: string; vendor: string; product: string; version: string }> {
  const products = buildModel(records, SEED).products;
  return Array.from({ length: count }, (_, i) => {
    const p = products[(i * 7) % products.length]!;
    return {
      id: `CVE-2031-${String(100000 + i)}`,
      vendor: p.vendor,
      product: p.product,
      version: p.versions[i % p.versions.length]!,
    };
  });
}

async function ingest(storage: Storage, file: string): Promise<{ records: number; seconds: number }> {
  const started = performance.now();
  const summary = await runIngest(
    storage,
    readScanFile(file, { format: 'ndjson' }),
    { classifier: new ClassificationResolver([]), matcher: confirmingMatcher(storage) },
    { retentionDays: 0, batchSize: 1000 },
  );
  if (summary.rejected > 0) throw new Error(`${summary.rejected} observations rejected`);
  return { records: summary.inserted, seconds: seconds(started) };
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-bench-remap-'));
  const file = path.join(work, 'remap.db');
  const storage = await createStorage({ engine: 'sqlite', file });
  const feed = new FeedRegistry().get('nist-nvd2')!;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    let t0 = performance.now();
    const knowledge = datasetKnowledge(options.records);
    await loadFeedItems(storage, feed, recordsAsItems(knowledge.map(convertNvdCve)), { source: 'bench' });
    say(`knowledge: ${fmt(knowledge.length)} CVEs on the dataset's product versions (${seconds(t0).toFixed(1)} s)`);

    const dataset = path.join(work, 'observations.ndjson');
    t0 = performance.now();
    await writeDataset(dataset, options.records, { seed: SEED, now: Date.now() });
    say(`dataset: ${fmt(options.records)} observations written (${seconds(t0).toFixed(1)} s)`);
    const ingested = await ingest(storage, dataset);
    fs.rmSync(dataset);
    const ingestRate = ingested.records / ingested.seconds;
    say(`ingest with matching on: ${fmt(ingested.records)} records, ${fmt(ingestRate)} records/s`);

    // These records were matched against the knowledge as it stands; a server running since the
    // database was empty would have noted that, so the server started here does not walk them again.
    await putSetting(
      storage.db,
      'knowledge_remap',
      JSON.stringify({ generation: await storage.knowledge.generation() }),
    );
    const token = (await storage.tokens.create('bench', { rateLimit: 'unlimited' })).token;
    const port = await freePort();
    t0 = performance.now();
    server = await startServer(CLI, {
      VULNSCOPE_DATABASE_URL: file,
      VULNSCOPE_PORT: String(port),
      VULNSCOPE_RETENTION_DAYS: '0',
      VULNSCOPE_LOG_LEVEL: 'warn',
      VULNSCOPE_BACKUP_INTERVAL: '0',
      VULNSCOPE_WORKERS: '1',
    });
    const serverStart = seconds(t0);
    say(`server up in ${serverStart.toFixed(1)} s`);
    const baseUrl = `http://127.0.0.1:${port}`;
    const total = async (query: string) => {
      const { status, body } = await getJson(`${baseUrl}/v3/index/target-intel?${query}&limit=1`, token);
      if (status !== 200) throw new Error(`${query}: HTTP ${status}`);
      return (body as { _meta: { total_documents: number } })._meta.total_documents;
    };

    const changes = newCves(options.records, options.changed);
    const expected = new Map<string, number>();
    for (const change of changes)
      expected.set(
        change.id,
        await total(`vendor=${change.vendor}&product=${change.product}&version=${change.version}`),
      );
    const affected = [...expected.values()].reduce((a, b) => a + b, 0);

    t0 = performance.now();
    const modified = new Date().toISOString().slice(0, 23);
    await loadFeedItems(
      storage,
      feed,
      recordsAsItems(
        changes.map((c) => convertNvdCve(nvdRecord(c.id, [cpeOf(c.vendor, c.product, c.version)], modified))),
      ),
      { mode: 'merge', source: 'bench-change' },
    );
    const loadSeconds = seconds(t0);
    const generation = await storage.knowledge.generation();
    t0 = performance.now();
    const pending = new Set(expected.keys());
    let writtenSeconds: number | undefined;
    while (pending.size > 0) {
      if (seconds(t0) > 600) throw new Error(`${pending.size} CVEs still not served after 600 s`);
      // The server saves the generation after the re-map's last write: from there on, only the index catches up.
      if (writtenSeconds === undefined && ((await remappedGeneration(storage)) ?? 0) >= generation)
        writtenSeconds = seconds(t0);
      // Light polling, as a client watching would: ask about the first unserved CVE only, and the next once it is served.
      for (const id of [...pending]) {
        if ((await total(`cve=${id}`)) !== expected.get(id)) break;
        pending.delete(id);
      }
      if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const visibleSeconds = seconds(t0);
    writtenSeconds ??= visibleSeconds;
    say(
      `${fmt(options.changed)} new CVEs on ${fmt(affected)} records: load ${loadSeconds.toFixed(1)} s, then written in ${writtenSeconds.toFixed(1)} s, served in ${visibleSeconds.toFixed(1)} s`,
    );
    await stopServer(server);
    server = undefined;

    await requestFullRemap(storage);
    t0 = performance.now();
    const walk = await remapToCurrentRules(storage, confirmingMatcher(storage), { batchSize: 1000 });
    const walkSeconds = seconds(t0);
    const walkRate = walk.examined / walkSeconds;
    say(`full re-map: ${fmt(walk.examined)} records in ${walkSeconds.toFixed(1)} s, ${fmt(walkRate)} records/s`);

    const report = [
      `# Vulnscope re-mapping: ${fmt(options.records)} records, SQLite`,
      '',
      `${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'} · Node ${process.version}`,
      '',
      `Records: the target-intel bench's dataset (seed ${SEED}), ${fmt(ingested.records)} records. Knowledge: ${fmt(knowledge.length)} NVD records, one per CVE the dataset names, each on the product versions the dataset gives it (exact-version criteria). Server: \`vulnscope serve\`, one worker, default VULNSCOPE_REMAP_POLL_MS (2 s) and VULNSCOPE_INDEX_POLL_MS.`,
      '',
      '| figure | value |',
      '|---|---:|',
      `| ingest with matching on | ${fmt(ingestRate)} records/s (${ingested.seconds.toFixed(1)} s) |`,
      `| server start (index build) | ${serverStart.toFixed(1)} s |`,
      `| ${fmt(options.changed)} new CVEs on existing product versions: feed load (merge, knowledge derived) | ${loadSeconds.toFixed(1)} s |`,
      `| … then until the re-map has written every changed record (the server saves its generation) | ${writtenSeconds.toFixed(1)} s |`,
      `| … then until the API serves each on every record of its version (${fmt(affected)} records) | ${visibleSeconds.toFixed(1)} s |`,
      `| full re-map of every record (batches of 1,000, nothing left to change) | ${fmt(walkRate)} records/s (${walkSeconds.toFixed(1)} s) |`,
      `| full re-map ÷ ingest | ${(walkRate / ingestRate).toFixed(2)} |`,
      '',
      `Reproduce: \`npm run build && npx tsc -p tsconfig.bench.json && node --max-old-space-size=8192 dist-bench/bench/remap.js --records ${options.records} --changed ${options.changed}\`.`,
      '',
    ].join('\n');
    fs.mkdirSync(options.out, { recursive: true });
    const out = path.join(options.out, `remap-sqlite-${options.records}.md`);
    fs.writeFileSync(out, report);
    say(`results: ${out}`);
  } finally {
    if (server) await stopServer(server);
    await storage.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
