/**
 * `/v3/purl` and `/v3/purls` in process, A/B: the reference that reads and parses each matched
 * record (`lookupPurlByRecords`) against the route's `lookupPurl`, on a database the advisory
 * bench prepared (`--prepare-only --data DIR`). Checks both answer the same, then times them
 * interleaved (wall and CPU via process.cpuUsage), and reports the memory the kept CVE ids take.
 *
 *   node dist-bench/bench/purl-lookup.js [--data /tmp/vulnscope-bench] [--records 400000] [--runs 41]
 */
import { isDeepStrictEqual } from 'node:util';
import { AdvisoryIndex } from '../src/search/advisories/advisory-index.js';
import type { RecordCves } from '../src/search/advisories/record-cves.js';
import { lookupPurlByRecords } from '../src/server/routes/purl/by-records.js';
import { lookupPurl, RecordBudget } from '../src/server/routes/purl/lookup.js';
import { parsePurlQuestion, type PurlQuestion } from '../src/server/routes/purl/parse.js';
import { createStorage } from '../src/storage/index.js';
import { emptyStats, generateAdvisories, type AdvisoryProduct } from './advisory-dataset.js';
import { benchDatabase, DEFAULT_DATA_DIR, loadPreparedMeta } from './bench-data.js';
import { fail } from './common.js';
import { percentile } from './http-load.js';

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const records = Number(option('--records') ?? 400_000);
const runs = Number(option('--runs') ?? 41);
const data = { data: option('--data') ?? DEFAULT_DATA_DIR, engine: 'sqlite' as const, prepareOnly: false, reuse: true };
const name = `advisories-${records}`;
const { now } = loadPreparedMeta<{ now: number }>(data, name);
const FEEDS = ['mitre-cvelist-v5'];
const SEED = 7;

const stats = emptyStats(now, SEED);
for (const _ of generateAdvisories(records, { seed: SEED, now }, stats)) void _;
const purlOf = (product: AdvisoryProduct) =>
  `pkg:${product.package!.ecosystem}/${product.package!.name.replace('@', '%40')}@${product.versions[Math.floor(product.versions.length / 2)]!}`;
// As the advisory bench picks its purl class: the package closest to 0.3% of the records, at its middle version.
const packages = [...stats.productCounts]
  .map(([key, count]) => ({ product: stats.products[stats.productIndex.get(key)!]!, count }))
  .filter(({ product }) => product.package?.purl)
  .sort((a, b) => b.count - a.count || (a.product.product < b.product.product ? -1 : 1));
const target = Math.max(3, records * 0.003);
const classAt = packages.reduce(
  (best, entry, i) => (Math.abs(entry.count - target) < Math.abs(packages[best]!.count - target) ? i : best),
  0,
);
const classQuestion = parsePurlQuestion(purlOf(packages[classAt]!.product), 'purl');
// The batch: the 100 packages after the class's in size (under the 10,000-record bound of a request).
const batch = packages
  .slice(classAt + 1, classAt + 101)
  .map(({ product }) => parsePurlQuestion(purlOf(product), 'purl'));

const storage = await createStorage(benchDatabase(data, name, '', ''));
const index = new AdvisoryIndex(storage.advisories);
const built = performance.now();
await index.build();
console.log(
  `${records.toLocaleString('en')} advisories: index built in ${((performance.now() - built) / 1000).toFixed(1)} s`,
);

const single = {
  reference: () => lookupPurlByRecords(index, FEEDS, classQuestion),
  index: () => lookupPurl(index, FEEDS, classQuestion, new RecordBudget()),
};
const many = {
  reference: async () => {
    const out = [];
    for (const question of batch) out.push(await lookupPurlByRecords(index, FEEDS, question));
    return out;
  },
  index: async () => {
    const budget = new RecordBudget();
    const out = [];
    for (const question of batch) out.push(await lookupPurl(index, FEEDS, question, budget));
    return out;
  },
};

async function timed(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number; value: unknown }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000, value };
}

const keptCves = () => (index as unknown as { cves: RecordCves }).cves;
// Cold: the class read by the reference first (its texts then cached), the batch by the index first.
const coldSingle = { reference: await timed(single.reference), index: await timed(single.index) };
const coldMany = { index: await timed(many.index), reference: await timed(many.reference) };
const keptBytes = keptCves().byteLength;
const matched = (answers: unknown) =>
  (Array.isArray(answers) ? answers : [answers]).reduce(
    (sum: number, answer: { total: number }) => sum + answer.total,
    0,
  );
for (const [what, cold] of [
  ['class purl', coldSingle],
  ['batch', coldMany],
] as const) {
  if (!isDeepStrictEqual(cold.reference.value, cold.index.value)) fail(`${what}: the index answers differently`);
}
const heldRecords = keptCves().size;

async function compare(label: string, pair: { reference: () => Promise<unknown>; index: () => Promise<unknown> }) {
  const times = {
    reference: { wall: [] as number[], cpu: [] as number[] },
    index: { wall: [] as number[], cpu: [] as number[] },
  };
  for (let run = 0; run < runs; run++) {
    // Interleaved, alternating which goes first, so load from other work falls on both alike.
    const order = run % 2 === 0 ? (['reference', 'index'] as const) : (['index', 'reference'] as const);
    for (const which of order) {
      const { wall, cpu, value } = await timed(pair[which]);
      if (which === 'index' && run === 0 && !isDeepStrictEqual(value, await pair.reference()))
        fail(`${label}: differs`);
      times[which].wall.push(wall);
      times[which].cpu.push(cpu);
    }
  }
  const p50 = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      0.5,
    ).toFixed(2);
  for (const which of ['reference', 'index'] as const) {
    console.log(`| ${label} | ${which} | ${p50(times[which].wall)} | ${p50(times[which].cpu)} |`);
  }
}

const q = (question: PurlQuestion) => `${question.key}@${question.version}`;
console.log(
  `class purl ${q(classQuestion)}: ${matched(coldSingle.index.value)} advisories; batch of ${batch.length}: ${matched(coldMany.index.value)}`,
);
console.log(
  `first call ms (wall/CPU): class reference ${coldSingle.reference.wall.toFixed(1)}/${coldSingle.reference.cpu.toFixed(1)}, ` +
    `index ${coldSingle.index.wall.toFixed(1)}/${coldSingle.index.cpu.toFixed(1)}; batch index (records unread) ` +
    `${coldMany.index.wall.toFixed(1)}/${coldMany.index.cpu.toFixed(1)}, reference ${coldMany.reference.wall.toFixed(1)}/${coldMany.reference.cpu.toFixed(1)}`,
);
console.log(
  `kept CVE ids: ${keptBytes.toLocaleString('en')} bytes for ${heldRecords} records kept ` +
    `(${(keptBytes / Math.max(1, heldRecords)).toFixed(1)} B each; the per-slot columns span ${index.status().records.toLocaleString('en')} slots)`,
);
console.log(`${runs} runs each, interleaved; p50 ms`);
console.log('| lookup | path | wall p50 ms | CPU p50 ms |');
console.log('| --- | --- | ---: | ---: |');
await compare('GET /v3/purl (class)', single);
await compare('POST /v3/purls (100)', many);
await index.stop();
await storage.close();
