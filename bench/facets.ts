/**
 * Facet counts in process, on a dataset `npm run bench -- --prepare-only --work-dir DIR` left:
 * builds the index from a copy of the product database and times `HostIndex.facets` (wall and CPU)
 * for the bench's facets class, each of its fields alone, and other shapes; then the index-backed
 * lookups (bench/index-lookups.ts) on the same index. The index is kept in DIR as a snapshot, which
 * later runs read instead of building it.
 *
 *   node dist-bench/bench/facets.js --work-dir DIR [--runs 15]
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IndexSync } from '../src/search/index-sync.js';
import type { SnapshotSettings } from '../src/search/index-sync.js';
import { parseFacetFields } from '../src/server/routes/target-intel/facet-fields.js';
import { parseHostQuery, typedFilters } from '../src/server/routes/target-intel/query.js';
import { createStorage, SCHEMA_VERSION } from '../src/storage/index.js';
import { fail } from './common.js';
import { percentile } from './http-load.js';
import { loadPrepared, PRISTINE } from './prepared.js';
import { FACET_CLASS_FIELDS } from './queries.js';
import { printIndexLookups } from './index-lookups.js';

const byNumber = (a: number, b: number) => a - b;

interface Shape {
  name: string;
  filters: Record<string, string>;
  fields: string;
}

const SHAPES: Shape[] = [
  { name: 'the class', filters: { contains_cve: 'true' }, fields: FACET_CLASS_FIELDS },
  ...FACET_CLASS_FIELDS.split(',').map((field) => ({
    name: `${field} alone`,
    filters: { contains_cve: 'true' },
    fields: field,
  })),
  { name: 'the class, no filter', filters: {}, fields: FACET_CLASS_FIELDS },
  { name: 'port,product on country_code=US', filters: { country_code: 'US' }, fields: 'port,product' },
  { name: 'map: country_code:250', filters: { contains_cve: 'true' }, fields: 'country_code:250' },
];

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const work = option('--work-dir') ?? fail('--work-dir DIR is required (a dataset prepared with --prepare-only)');
const runs = Number(option('--runs') ?? '15');
const prepared = loadPrepared(work) ?? fail(`${work} holds no prepared dataset`);
const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-facets-')), 'product.db');
fs.copyFileSync(path.join(work, PRISTINE), copy);
const storage = await createStorage({ engine: 'sqlite', file: copy });
// The index is kept as a snapshot in the work directory (a 10M index takes minutes to build), under
// the prepared dataset's identity: each copy of the database makes a secret of its own.
const snapshot: SnapshotSettings = {
  file: path.join(work, 'facets-index.snapshot'),
  identity: async () => ({
    schema: SCHEMA_VERSION,
    database: createHash('sha256').update(`${prepared.measuredAt}\n${prepared.records}`).digest('hex'),
  }),
};
const engine = new IndexSync(storage.hosts, snapshot);
const built = performance.now();
await engine.build();
const loaded = engine.status().snapshot?.start?.loaded === true;
console.log(
  `${prepared.records.toLocaleString('en')} records: index ${loaded ? 'read from its snapshot' : 'built'} in ${((performance.now() - built) / 1000).toFixed(1)} s`,
);
if (!loaded) await engine.saveSnapshot();
console.log('| shape | matches | first ms | wall p50 ms | CPU p50 ms |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const shape of SHAPES) {
  const query = parseHostQuery(typedFilters(shape.filters));
  const requests = parseFacetFields(shape.fields);
  const count = () => engine.readStill((index) => index.facets(query, requests));
  let started = performance.now();
  const first = await count();
  const firstMs = performance.now() - started;
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < runs; run++) {
    const cpuStarted = process.cpuUsage();
    started = performance.now();
    await count();
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuStarted);
    cpu.push((used.user + used.system) / 1000);
  }
  console.log(
    `| ${shape.name} | ${first.total.toLocaleString('en')} | ${firstMs.toFixed(1)} | ${percentile(wall.sort(byNumber), 0.5).toFixed(2)} | ${percentile(cpu.sort(byNumber), 0.5).toFixed(2)} |`,
  );
}
await printIndexLookups(storage, engine, runs);
await storage.close();
fs.rmSync(path.dirname(copy), { recursive: true, force: true });
