/**
 * The match index (version, cpe and same-entry filters of /v4/advisory) on the synthetic advisory
 * feed: `matching()` for the largest product group, answered linearly (recordMatches on every
 * candidate, what the index did before) and through the per-product structures; build time and
 * memory. With `--real FILE.ndjson.gz` (or a directory of NVD CVE API objects), counts how many entries and criteria of real CVE 5 records
 * the structures cannot place on positions (decided per query by the reference rules).
 *
 *   npx tsx bench/match-index.ts [--records 400000] [--real ../shared/data/cve5-vulnrichment.dev.ndjson.gz]
 */
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { advisoryFacts, type MatchData } from '../src/core/advisory/facts.js';
import type { AdvisoryFilters } from '../src/core/advisory/filters.js';
import { recordMatches } from '../src/core/advisory/match.js';
import { isCpe, parseCpeQuery, quoteWfnValue } from '../src/core/cpe.js';
import { isComparableVendorVersion } from '../src/core/version/vendor.js';
import { convertNvdCve } from '../src/ingest/advisories/nvd.js';
import { RoaringBitmap32, type Bitmap } from '../src/search/bitmap.js';
import { compileCriterion } from '../src/search/advisories/criterion-rule.js';
import { compileEntry } from '../src/search/advisories/entry-rule.js';
import { AdvisoryMatchIndex } from '../src/search/advisories/match-index.js';
import { emptyStats, generateAdvisories } from './advisory-dataset.js';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};

const gc = (globalThis as { gc?: () => void }).gc;
const memory = () => {
  gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;

async function time<T>(run: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now();
  const result = await run();
  return [result, performance.now() - start];
}

async function median(runs: number, run: () => Promise<unknown> | unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await time(run))[1]);
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}

function linear(datas: MatchData[], filters: AdvisoryFilters, candidates?: Bitmap): Bitmap {
  const out = new RoaringBitmap32();
  if (candidates) {
    for (const slot of candidates) if (recordMatches(datas[slot]!, filters)) out.add(slot);
  } else {
    for (const [slot, data] of datas.entries()) if (recordMatches(data, filters)) out.add(slot);
  }
  return out;
}

async function synthetic(records: number): Promise<void> {
  const stats = emptyStats(Date.UTC(2026, 0, 1));
  const datas: MatchData[] = [];
  for (const record of generateAdvisories(records, { now: stats.now }, stats))
    datas.push(advisoryFacts(record).matchData);
  const byCount = [...stats.productCounts].sort((a, b) => b[1] - a[1]);
  const [largest, count] = byCount[0]!;
  const [vendor, product] = largest.split(':') as [string, string];
  // CPE names carry no package path: the cpe classes ask for the largest product without a package.
  const [cpeProduct] = byCount.find(([key]) => !stats.products[stats.productIndex.get(key)!]!.package)!;
  const [cpeVendor, cpeName] = cpeProduct.split(':') as [string, string];
  const cpeVersions = stats.products[stats.productIndex.get(cpeProduct)!]!.versions;
  const cpeMiddle = cpeVersions[cpeVersions.length >> 1]!;
  const versions = stats.products[stats.productIndex.get(largest)!]!.versions;
  const candidates = new RoaringBitmap32(
    datas.flatMap((data, slot) =>
      data.entries.some((e) => e.vendor === vendor && e.product === product) ? [slot] : [],
    ),
  );
  console.log(`${records} records; largest product ${largest}: ${count} records, ${versions.length} versions`);

  const before = memory();
  const index = new AdvisoryMatchIndex();
  const [, setMs] = await time(() => {
    for (const [slot, data] of datas.entries()) index.set(slot, data);
  });
  const afterSet = memory();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const [, prepareMs] = await time(() => index.prepare());
  await new Promise((resolve) => setTimeout(resolve, 5));
  delay.disable();
  const afterPrepare = memory();
  console.log(
    `set ${records}: ${ms(setMs)}; prepare (every product structure): ${ms(prepareMs)}, longest event-loop delay ${ms(delay.max / 1e6)}`,
  );
  console.log(`memory: items and postings ${mb(afterSet - before)}, product structures ${mb(afterPrepare - afterSet)}`);
  console.log(JSON.stringify(index.stats()));

  const middle = versions[versions.length >> 1]!;
  const classes: Array<[string, AdvisoryFilters, Bitmap | undefined]> = [
    ['vendor+product+version', { vendor, product, version: middle }, candidates],
    [
      `cpe with version (${cpeProduct})`,
      { cpe: parseCpeQuery(`cpe:2.3:a:${cpeVendor}:${cpeName}:${cpeMiddle}`) },
      undefined,
    ],
    [`cpe without version (${cpeProduct})`, { cpe: parseCpeQuery(`cpe:2.3:a:${cpeVendor}:${cpeName}`) }, undefined],
    ['vendor+version', { vendor, version: middle }, undefined],
    ['version alone', { version: middle }, undefined],
  ];
  for (const [label, filters, given] of classes) {
    const expected = linear(datas, filters, given);
    await new Promise((resolve) => setImmediate(resolve));
    delay.reset();
    delay.enable();
    const [first, firstMs] = await time(() => index.matching(filters, given));
    await new Promise((resolve) => setTimeout(resolve, 5));
    delay.disable();
    const firstDelay = delay.max / 1e6;
    if (!first.isEqual(expected)) throw new Error(`${label}: the index and the reference disagree`);
    const steady = await median(21, () => index.matching(filters, given));
    const linearCandidates = given ? await median(5, () => linear(datas, filters, given)) : undefined;
    const linearAll = await median(3, () => linear(datas, filters));
    console.log(
      `${label}: ${first.size} matches; linear ${linearCandidates !== undefined ? `${ms(linearCandidates)} over the product's ${given!.size} records, ` : ''}${ms(linearAll)} over all; ` +
        `index first ${ms(firstMs)} (incl. any build; loop delay ≤ ${ms(firstDelay)}), then p50 ${ms(steady)}`,
    );
  }
  const versionsP50 = await median(versions.length, () => {
    const version = versions[Math.floor(Math.random() * versions.length)]!;
    return index.matching({ vendor, product, version }, candidates);
  });
  console.log(`vendor+product+version, any of the product's versions: p50 ${ms(versionsP50)}`);
  console.log(`memory after the queries (global structure built): ${mb(memory() - before)}`);
}

/** CVE 5 records of an `.ndjson.gz`, or the NVD CVE API objects (`*.json`) of a directory converted. */
async function* realRecords(path: string): AsyncIterable<unknown> {
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).filter((file) => file.endsWith('.json'))) {
      yield convertNvdCve(JSON.parse(readFileSync(join(path, name), 'utf8')));
    }
    return;
  }
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim()) yield JSON.parse(line);
}

async function real(path: string): Promise<void> {
  const entries = new Map<string, number>();
  const criteria = new Map<string, number>();
  let records = 0;
  const datas: MatchData[] = [];
  for await (const record of realRecords(path)) {
    records++;
    const { matchData } = advisoryFacts(record);
    datas.push(matchData);
    for (const entry of matchData.entries) {
      const rule = compileEntry(entry);
      const kind = rule.kind === 'ordered' ? `ordered (${rule.cls})` : rule.kind;
      entries.set(kind, (entries.get(kind) ?? 0) + 1);
    }
    for (const criterion of matchData.criteria) {
      const kind = compileCriterion(criterion).version.kind;
      criteria.set(kind, (criteria.get(kind) ?? 0) + 1);
    }
  }
  const verified = await verifyOnRecords(datas);
  const show = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ');
  console.log(`${records} records`);
  console.log(`entries: ${show(entries)}`);
  console.log(`criteria: ${show(criteria)}`);
  console.log(verified);
}

/**
 * Random version and CPE queries drawn from the records' own products and bounds, answered by the
 * index and by the linear reference: the two must agree on real data too.
 */
async function verifyOnRecords(datas: MatchData[]): Promise<string> {
  const index = new AdvisoryMatchIndex();
  for (const [slot, data] of datas.entries()) index.set(slot, data);
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const queries: AdvisoryFilters[] = [];
  for (let attempt = 0; queries.length < 400 && attempt < 100_000; attempt++) {
    const entry = datas[random(datas.length)]?.entries[random(8)];
    const versions = (entry?.versions ?? [])
      .flatMap((item) => [item.version, item.lessThan, item.lessThanOrEqual, ...(item.changes ?? []).map((c) => c.at)])
      .filter((text): text is string => typeof text === 'string' && isComparableVendorVersion(text));
    if (!entry || versions.length === 0) continue;
    const version = versions[random(versions.length)]!.trim();
    const cpe = entry.cpes?.[random(entry.cpes.length)];
    const kind = random(5);
    if (kind === 0 && entry.vendor && entry.product)
      queries.push({ vendor: entry.vendor, product: entry.product, version });
    else if (kind === 1 && entry.vendor) queries.push({ vendor: entry.vendor, version });
    else if (kind === 2 && entry.product) queries.push({ product: entry.product, version });
    else if (kind === 3 && cpe && isCpe(cpe))
      queries.push({ cpe: { ...parseCpeQuery(cpe), version: quoteWfnValue(version) } });
    else if (kind === 4 && queries.filter((query) => Object.keys(query).length === 1).length < 15)
      queries.push({ version });
  }
  let matches = 0;
  let mismatches = 0;
  for (const query of queries) {
    const expected = linear(datas, query);
    matches += expected.size;
    if (!(await index.matching(query)).isEqual(expected)) mismatches++;
  }
  return `${queries.length} random queries: ${matches} matches in all, ${mismatches} answered differently by the index`;
}

const realPath = option('real');
if (realPath) await real(realPath);
else await synthetic(Number(option('records') ?? 400_000));
