/**
 * `/v3/cpe` lookups timed in process on the knowledge bench's synthetic dataset (SQLite): the
 * dataset is generated and loaded into `--db` when that file does not exist, then each lookup is
 * timed cold (first call) and warm (wall and CPU p50 over `--runs` after warm-up).
 *
 *   node dist-bench/bench/cpe-lookup.js --db FILE [--cves 40000] [--names 150000] [--runs 30]
 */
import fs from 'node:fs';
import { convertNvdCve } from '../src/ingest/advisories/nvd.js';
import type { AdvisoryItem } from '../src/ingest/advisories/types.js';
import { loadFeedItems } from '../src/ingest/feeds/load.js';
import { ingestCpeDictionary } from '../src/ingest/knowledge/dictionary.js';
import { CpeNameIndex } from '../src/search/cpe-names/index.js';
import { lookupCpe, unitedCves } from '../src/server/routes/cpe-lookup/lookup.js';
import { parseCpeLookup } from '../src/server/routes/cpe-lookup/query.js';
import { createStorage } from '../src/storage/index.js';
import { fail } from './common.js';
import { percentile } from './http-load.js';
import { buildKnowledgeModel, generateCves, generateDictionary } from './knowledge-dataset.js';

const SEED = 11;
const FEED = { name: 'nist-nvd2', description: 'Synthetic NVD (cpe lookup bench)', adapter: 'nist-nvd2' };

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const file = option('--db') ?? fail('--db FILE is required');
const cves = Number(option('--cves') ?? '40000');
const names = Number(option('--names') ?? '150000');
const runs = Number(option('--runs') ?? '30');
const exists = fs.existsSync(file);
const storage = await createStorage({ engine: 'sqlite', file });
if (!exists) {
  const model = buildKnowledgeModel(names, SEED);
  const now = Date.UTC(2026, 10, 1);
  async function* items(): AsyncIterable<AdvisoryItem> {
    for (const cve of generateCves(model, cves, { seed: SEED + 1, now })) {
      const record = convertNvdCve(cve);
      yield { kind: 'record', record, sourceId: record.cveMetadata.cveId };
    }
  }
  let started = performance.now();
  await loadFeedItems(storage, FEED, items(), { source: 'bench' });
  console.log(`loaded ${cves} CVEs in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  started = performance.now();
  await ingestCpeDictionary(storage, generateDictionary(model, now));
  console.log(`loaded ${names} names in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
const index = new CpeNameIndex(storage.knowledge);
await index.build();
console.log(`${index.size.toLocaleString('en')} names`);
const CPES: Array<[string, boolean]> = [
  ['cpe:2.3:o:linux:linux_kernel', false],
  ['cpe:2.3:o:linux:linux_kernel', true],
  ['cpe:2.3:a:apache:http_server', false],
  ['cpe:2.3:a:apache:http_server:2.4.49', false],
  ['cpe:2.3:*:linux:linux_kernel:*:*:*:*:*:*:x64', false],
];
const only = option('--only');
/** p50 wall and CPU (ms) of `runs` calls after 5 warm-up calls, the two paths alternating call by call. */
async function timePaths(paths: Array<() => Promise<unknown>>): Promise<Array<{ wall: number; cpu: number }>> {
  for (let run = 0; run < 5; run++) for (const path of paths) await path();
  const wall = paths.map((): number[] => []);
  const cpu = paths.map((): number[] => []);
  for (let run = 0; run < runs; run++)
    for (const [i, path] of paths.entries()) {
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      await path();
      wall[i]!.push(performance.now() - started);
      const used = process.cpuUsage(cpuStarted);
      cpu[i]!.push((used.user + used.system) / 1000);
    }
  const p50 = (values: number[]) =>
    percentile(
      values.sort((a, b) => a - b),
      0.5,
    );
  return paths.map((_, i) => ({ wall: p50(wall[i]!), cpu: p50(cpu[i]!) }));
}
console.log(
  '| cpe | isVulnerable | names | CVEs | first call ms | united afresh: wall / CPU p50 ms | kept: wall / CPU p50 ms |',
);
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
for (const [cpe, isVulnerable] of CPES) {
  if (only !== undefined && cpe !== only) continue;
  const lookup = parseCpeLookup({ cpe, isVulnerable });
  const total = (await index.search({ ...lookup.names, order: 'asc', offset: 0, limit: 1 })).total;
  const started = performance.now();
  const first = await lookupCpe(storage, index, lookup);
  const firstMs = performance.now() - started;
  const afresh = (await unitedCves(storage, index, lookup)).ids;
  if (JSON.stringify(afresh) !== JSON.stringify(first)) fail(`${cpe}: the kept answer differs from the united one`);
  const [old, kept] = await timePaths([
    () => unitedCves(storage, index, lookup),
    () => lookupCpe(storage, index, lookup),
  ]);
  console.log(
    `| ${cpe} | ${isVulnerable} | ${total} | ${first.length} | ${firstMs.toFixed(1)} | ${old!.wall.toFixed(2)} / ${old!.cpu.toFixed(2)} | ${kept!.wall.toFixed(2)} / ${kept!.cpu.toFixed(2)} |`,
  );
}
console.log(`heap used ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`);
if (process.argv.includes('--dump')) {
  const out = option('--dump')!;
  const answers: Record<string, readonly string[]> = {};
  for (const [cpe, isVulnerable] of CPES)
    answers[`${cpe} ${isVulnerable}`] = await lookupCpe(storage, index, parseCpeLookup({ cpe, isVulnerable }));
  fs.writeFileSync(out, JSON.stringify(answers));
}
await storage.close();
