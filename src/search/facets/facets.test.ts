import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IndexEntry } from '../../core/host-record.js';
import type { Fingerprint } from '../../core/observation.js';
import { SeededRandom } from '../../ingest/demo/random.js';
import { parseHostQuery, typedFilters } from '../../server/routes/target-intel/query.js';
import { HostIndex } from '../host-index.js';
import { readHostIndexSnapshot, writeHostIndexSnapshot } from '../snapshot/host-index-file.js';
import { FACET_FIELDS, type FacetCounts, type FacetField, NUMERIC_FIELDS } from './fields.js';

const HOUR_MS = 3_600_000;
const FINGERPRINTS: Fingerprint[][] = [
  [],
  [{ vendor: 'nginx', product: 'nginx', version: '1.20.0' }],
  [
    {
      vendor: 'Apache',
      product: 'http_server',
      version: '2.4.49',
      cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
    },
  ],
  // Two fingerprints naming one CPE, one vendor twice in two cases, and a wildcard version.
  [
    { vendor: 'apache', product: 'http_server', cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*' },
    { vendor: 'APACHE', product: 'httpd', version: '*', cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*' },
  ],
  [
    { vendor: 'openbsd', product: 'openssh', version: '8.9p1' },
    { product: 'openssl', version: '-' },
  ],
];
const CVES = [[], ['CVE-2021-41773'], ['CVE-2021-41773', 'CVE-2021-42013'], ['CVE-2023-38408']];
const CLASSIFICATIONS = [[], ['c2:sliver'], ['c2:sliver', 'scanner'], ['honeypot:cowrie']];
const PLACES = [
  {},
  { asn: 'AS64500', asName: 'Example Net', countryCode: 'US', country: 'United States' },
  { asn: 'AS9', asName: 'Nine', countryCode: 'DE', country: 'Germany' },
  { asn: 'AS10', asName: 'Ten', countryCode: 'DE', country: 'germany' },
  { asn: 'AS10', asName: 'Ten (renamed)' },
];
/** Every field, and the fields the counts kept per slice answer (term fields and ports). */
const SLICE_FIELDS = FACET_FIELDS.filter((field) => field !== 'date_added' && field !== 'timestamp');
const FIELD_SETS: FacetField[][] = [[...FACET_FIELDS], SLICE_FIELDS];
const QUERIES: Array<Record<string, string>> = [
  {},
  { contains_cve: 'true' },
  { vendor: 'apache' },
  { port: '443' },
  { asn: 'AS10' },
  { cve: 'CVE-2023-38408', protocol: 'udp' },
  { classifications: 'c2' },
  { country_code: 'DE', contains_cve: 'false' },
  { cidr: '198.51.100.0/24' },
];

/** Where records lie: their ports, and their hours of observation from 20:00 on the first day. */
interface Spread {
  ports: number[];
  hours: number;
  /** Record ids drawn from 1…records, over `steps` changes; counts checked every `checkEvery` steps. */
  records: number;
  steps: number;
  checkEvery: number;
}

function randomEntry(random: SeededRandom, id: number, { ports, hours }: Spread): IndexEntry {
  const observedAt = (20 + random.int(0, hours)) * HOUR_MS + random.int(0, HOUR_MS - 1);
  const cves = random.pick(CVES);
  return {
    id,
    ip: `198.51.${random.int(99, 101)}.${random.int(0, 250)}`,
    port: random.pick(ports),
    protocol: random.pick(['tcp', 'tcp', 'udp']),
    hostname: '',
    observedAt,
    dateAdded: observedAt - random.int(0, hours) * HOUR_MS,
    ...random.pick(PLACES),
    fingerprintsJson: JSON.stringify(random.pick(FINGERPRINTS)),
    cvesJson: JSON.stringify(cves),
    confirmed: cves.length > 0 && random.next() < 0.5,
    classificationsJson: JSON.stringify(random.pick(CLASSIFICATIONS)),
  };
}

const WILDCARDS = new Set(['', '*', '-']);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A record's values of a field, as the facets document them (distinct; fingerprint parts case-folded). */
function valuesOf(entry: IndexEntry, field: FacetField): Array<string | number> {
  const fingerprints = JSON.parse(entry.fingerprintsJson) as Fingerprint[];
  const part = (name: 'vendor' | 'product' | 'version' | 'cpe') =>
    fingerprints.map((fp) => (fp[name] ?? '').toLowerCase()).filter((value) => !WILDCARDS.has(value));
  const values: Array<string | number | undefined> = {
    country: [entry.country?.toLowerCase()],
    country_code: [entry.countryCode],
    asn: [entry.asn],
    as_name: [entry.asName],
    port: [entry.port],
    protocol: [entry.protocol],
    vendor: part('vendor'),
    product: part('product'),
    version: part('version'),
    cpe: part('cpe'),
    cve: JSON.parse(entry.cvesJson) as string[],
    classifications: JSON.parse(entry.classificationsJson) as string[],
    date_added: [day(entry.dateAdded)],
    timestamp: [day(entry.observedAt)],
  }[field];
  return [...new Set(values.filter((value) => value !== undefined))];
}

/** One random change at `step`: a held record removed (with chance `removal`), or a record upserted. */
function change(
  random: SeededRandom,
  index: HostIndex,
  current: Map<number, IndexEntry>,
  spread: Spread,
  step: number,
  removal: number,
): void {
  const id = random.int(1, spread.records);
  if (current.has(id) && random.next() < removal) {
    index.remove(id, step);
    current.delete(id);
  } else {
    const entry = randomEntry(random, id, spread);
    index.upsert(entry, step);
    current.set(id, entry);
  }
}

function naive(entries: IndexEntry[], field: FacetField, top: number): FacetCounts {
  const counts = new Map<string | number, number>();
  let missing = 0;
  for (const entry of entries) {
    const values = valuesOf(entry, field);
    if (values.length === 0) missing++;
    for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  const number = (value: string | number) => (typeof value === 'number' ? value : Number(value.slice(2)));
  const byValue = (a: string | number, b: string | number) =>
    (NUMERIC_FIELDS.has(field) ? number(a) - number(b) : 0) || (a < b ? -1 : a > b ? 1 : 0);
  const values = [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || byValue(a.value, b.value))
    .slice(0, top);
  const shown = new Set(values.map(({ value }) => value));
  const other = entries.filter((entry) => valuesOf(entry, field).some((value) => !shown.has(value))).length;
  return { values, missing, other };
}

/** Thousands of matches per port and hour count from the buckets; fewer, from the columns. */
describe.each<[string, Spread]>([
  ['buckets', { ports: [443], hours: 0, records: 9000, steps: 12_000, checkEvery: 4000 }],
  [
    'columns',
    {
      ports: Array.from({ length: 3000 }, (_, i) => i + 1),
      hours: 24 * 9,
      records: 1500,
      steps: 4000,
      checkEvery: 250,
    },
  ],
])('facet counts from the %s equal counts over the matching records', (_, spread) => {
  it.each([1, 2, 3])('during and after churn (seed %i)', async (seed) => {
    const random = new SeededRandom(seed);
    const index = new HostIndex();
    const current = new Map<number, IndexEntry>();
    const expectNaiveCounts = async (params: Record<string, string>, fields = random.pick(FIELD_SETS)) => {
      const query = parseHostQuery(typedFilters(params));
      const ids = index.page(query, { sort: 'port', order: 'asc', offset: 0, limit: 1e6 }).ids;
      const entries = ids.map((id) => current.get(id)!);
      const top = random.int(1, 4);
      const result = await index.facets(
        query,
        fields.map((field) => ({ field, top })),
      );
      expect(result.total).toBe(entries.length);
      for (const field of fields) {
        expect(result.counts.get(field), `${field} of ${JSON.stringify(params)}`).toEqual(naive(entries, field, top));
      }
    };
    for (let step = 1; step <= spread.steps; step++) {
      change(random, index, current, spread, step, 0.1);
      // Counting between changes: a group id released and reused must not keep its old values.
      if (step % spread.checkEvery === 0) await expectNaiveCounts(random.pick(QUERIES));
    }
    for (const params of QUERIES) for (const fields of FIELD_SETS) await expectNaiveCounts(params, fields);
  });
});

describe('facet counts kept for every record and for the records with a CVE', () => {
  const spread: Spread = { ports: [22, 80, 443], hours: 48, records: 400, steps: 1500, checkEvery: 1500 };
  const expectSameCounts = async (index: HostIndex, entries: Map<number, IndexEntry>) => {
    for (const params of [{}, { contains_cve: 'true' }] as Array<Record<string, string>>) {
      const query = parseHostQuery(typedFilters(params));
      const ids = index.page(query, { sort: 'port', order: 'asc', offset: 0, limit: 1e6 }).ids;
      const matching = ids.map((id) => entries.get(id)!);
      for (const top of [1, 2, 1000]) {
        const result = await index.facets(
          query,
          SLICE_FIELDS.map((field) => ({ field, top })),
        );
        expect(result.total).toBe(matching.length);
        for (const field of SLICE_FIELDS) {
          expect(result.counts.get(field), `${field} of ${JSON.stringify(params)}`).toEqual(
            naive(matching, field, top),
          );
        }
      }
    }
  };
  const churned = (seed: number) => {
    const random = new SeededRandom(seed);
    const index = new HostIndex();
    const current = new Map<number, IndexEntry>();
    for (let step = 1; step <= spread.steps; step++) change(random, index, current, spread, step, 0.2);
    return { index, current };
  };

  it('follow upserts and removals', async () => {
    const { index, current } = churned(11);
    await expectSameCounts(index, current);
  });

  it('are counted afresh after a bulk load', async () => {
    const { current } = churned(12);
    const index = new HostIndex();
    index.beginBulk();
    for (const entry of current.values()) index.upsert(entry, 1);
    await index.endBulk();
    await expectSameCounts(index, current);
  });

  it('are counted afresh from a snapshot', async () => {
    const { index, current } = churned(13);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-slices-'));
    try {
      const file = path.join(dir, 'index.snapshot');
      const identity = { schema: 1, database: 'test' };
      await writeHostIndexSnapshot(file, index, identity, 1);
      const read = await readHostIndexSnapshot(file, identity);
      if (!('index' in read)) throw new Error(read.rejected);
      await expectSameCounts(read.index, current);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('facet counts', () => {
  it('leave the posting lists as they were', async () => {
    const random = new SeededRandom(7);
    const index = new HostIndex();
    for (let id = 1; id <= 500; id++)
      index.upsert(
        randomEntry(random, id, { ports: [80, 443], hours: 30, records: 500, steps: 500, checkEvery: 500 }),
        id,
      );
    const query = parseHostQuery(typedFilters({ vendor: 'apache', contains_cve: 'true' }));
    const before = [...index.evaluate(query)];
    await index.facets(query, [{ field: 'cve', top: 3 }]);
    await index.facets(parseHostQuery(typedFilters({})), [{ field: 'port', top: 3 }]);
    expect([...index.evaluate(query)]).toEqual(before);
    expect(index.size).toBe(500);
  });
});
