/**
 * The design figure of the per-product CVE structures of CPE search (docs/performance.md), in one
 * process on a SQLite database of the knowledge benchmark's synthetic data at a chosen scale:
 * for a page of linux_kernel names and one of apache http_server names, the first answer
 * (preparation included), the warm answer, JSON.stringify of the same response (the floor), the
 * per-name evaluation it replaces, the memory of the prepared products and the worst event-loop
 * delay seen while preparing.
 *
 *   node --expose-gc dist-bench/bench/cpe-cves-design.js [--cves 50000] [--dir /tmp/vulnscope-bench/cpe-cves] [--pages-only]
 */
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { convertNvdCve } from '../src/ingest/advisories/nvd.js';
import type { AdvisoryItem } from '../src/ingest/advisories/types.js';
import { loadFeedItems } from '../src/ingest/feeds/load.js';
import { ingestCpeDictionary } from '../src/ingest/knowledge/dictionary.js';
import { refreshKnowledgeAfterLoad } from '../src/ingest/knowledge/refresh.js';
import { FeedRegistry } from '../src/services/feed-registry.js';
import { CpeCveIndex } from '../src/search/cpe-cves/cpe-cve-index.js';
import { cpeCveIndexOf, cvesOfNames, cvesOfNamesByEvaluation } from '../src/services/matching/name-cves.js';
import { createStorage, type Storage } from '../src/storage/index.js';
import { buildKnowledgeModel, generateCves, generateDictionary, type KnowledgeModel } from './knowledge-dataset.js';

const SEED = 20260101;

function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const cves = Number(argValue('--cves', '50000'));
// The benchmark's ratio: 1.5M names for 400k CVEs.
const names = Math.round((cves * 1_500_000) / 400_000);
const dir = argValue('--dir', `/tmp/vulnscope-bench/cpe-cves-${cves}`);
const say = (text: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);

async function* cveItems(model: KnowledgeModel, now: number): AsyncIterable<AdvisoryItem> {
  for (const cve of generateCves(model, cves, { seed: SEED + 1, now })) {
    const record = convertNvdCve(cve);
    yield { kind: 'record', record, sourceId: record.cveMetadata.cveId };
  }
}

async function load(storage: Storage, model: KnowledgeModel): Promise<void> {
  const feed = new FeedRegistry().get('nist-nvd2')!;
  const now = Date.UTC(2026, 10, 1);
  say(`loading ${cves} CVEs`);
  const summary = await loadFeedItems(storage, feed, cveItems(model, now), { source: 'bench' });
  if (!summary.knowledge) await refreshKnowledgeAfterLoad(storage, feed.name);
  say(`loading ${names} dictionary names`);
  await ingestCpeDictionary(storage, generateDictionary(model, now));
  say('loaded');
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const memory = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(storage: Storage, vendor: string, product: string, page: number) {
  const found = await storage.knowledge.searchCpeNames({
    vendor,
    product,
    order: 'asc',
    offset: (page - 1) * 100,
    limit: 100,
  });
  const cpes = found.names.map((name) => name.cpe);
  const before = memory();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let t0 = performance.now();
  const first = await cvesOfNames(storage, cpes, false);
  const firstMs = performance.now() - t0;
  delay.disable();
  const heldBytes = memory() - before;
  const warm: number[] = [];
  for (let i = 0; i < 7; i++) {
    t0 = performance.now();
    await cvesOfNames(storage, cpes, false);
    warm.push(performance.now() - t0);
  }
  const response = { data: found.names.map((name, i) => ({ cpe: name.cpe, cves: first[i] })) };
  const stringify: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 7; i++) {
    t0 = performance.now();
    bytes = JSON.stringify(response).length;
    stringify.push(performance.now() - t0);
  }
  t0 = performance.now();
  const reference = await cvesOfNamesByEvaluation(storage, cpes, false);
  const referenceMs = performance.now() - t0;
  if (JSON.stringify(reference) !== JSON.stringify(first))
    throw new Error(`${product}: answers differ from the evaluation`);
  return {
    product: `${vendor}:${product}`,
    page,
    names: cpes.length,
    links: first.reduce((sum, list) => sum + list.length, 0),
    responseMiB: +(bytes / 2 ** 20).toFixed(1),
    firstMs: +firstMs.toFixed(1),
    warmMs: +median(warm).toFixed(1),
    stringifyMs: +median(stringify).toFixed(1),
    evaluationMs: +referenceMs.toFixed(1),
    preparedMiB: +(heldBytes / 2 ** 20).toFixed(1),
    worstLoopDelayMs: +(delay.max / 1e6).toFixed(1),
  };
}

async function main(): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'knowledge.db');
  const fresh = !fs.existsSync(file);
  const storage = await createStorage({ engine: 'sqlite', file });
  try {
    if (fresh) await load(storage, buildKnowledgeModel(names, SEED));
    const results = [];
    for (const [vendor, product, page] of [
      ['linux', 'linux_kernel', 1],
      ['linux', 'linux_kernel', 10],
      ['apache', 'http_server', 1],
    ] as const) {
      const result = await measure(storage, vendor, product, page);
      say(JSON.stringify(result));
      results.push(result);
    }
    // Every name once, as the cpecve backup does, with every product kept: the whole-index cost.
    if (process.argv.includes('--pages-only')) {
      process.stdout.write(`${JSON.stringify({ cves, names, results }, null, 2)}\n`);
      return;
    }
    const before = memory();
    const everything = new CpeCveIndex(storage.knowledge, { maxRows: Number.MAX_SAFE_INTEGER });
    const t0 = performance.now();
    let after: string | undefined;
    let answered = 0;
    let links = 0;
    for (;;) {
      const page = await storage.knowledge.cpeNamePage(after, 500);
      if (page.length === 0) break;
      for (const list of await everything.cvesOfNames(
        page.map((name) => name.cpe),
        false,
      ))
        links += list?.length ?? 0;
      answered += page.length;
      after = page[page.length - 1]!.id;
    }
    const allNames = {
      names: answered,
      links,
      seconds: +((performance.now() - t0) / 1000).toFixed(1),
      heldMiB: +((memory() - before) / 2 ** 20).toFixed(0),
      ...everything.stats(),
    };
    say(JSON.stringify({ allNames }));
    const counts = await storage.knowledge.counts();
    process.stdout.write(
      `${JSON.stringify({ cves, names, counts, index: cpeCveIndexOf(storage).stats(), results, allNames }, null, 2)}\n`,
    );
  } finally {
    await storage.close();
  }
}

await main();
