/**
 * The in-memory CPE name index (src/search/cpe-names) against a reference evaluation: every row of
 * cpe_names filtered, sorted by id and sliced. Names come and go through the storage functions
 * (dictionary upserts, criteria written and removed) between searches.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANY, CPE_ATTRIBUTES, formatCpe23, NA, quoteWfnValue, type Wfn } from '../../src/core/cpe.js';
import { CpeNameIndex } from '../../src/search/cpe-names/index.js';
import {
  createStorage,
  type CpeNameEntry,
  type CpeNameRow,
  type CpeNameSearch,
  type Storage,
} from '../../src/storage/index.js';
import { engineCases } from '../support/engines.js';

const PARTS = ['a', 'o', 'h'] as const;
const VENDORS = ['apache', 'at&t', 'a-b', 'x.y', 'micro_soft', 'a', 'ab', 'b!ng', 'z'];
const PRODUCTS = ['http_server', 'server', 'a', 'ab', 'c++', 'x.y', 'a-b'];
/** `lit-` is a literal hyphen (quoted), which the version column holds as `-` like NA. */
const VERSIONS = ['-', 'lit-', '1', '1.0', '1.0.1', '1.1', '10', '2.4.49', '2.4.5', 'a1', '1.0-rc1', '1.0~a'];
const UPDATES = ['*', '-', 'p1'];
const VERSION_QUERIES = ['-', '1', '1.', '1.0', '1.0.1', '2', '2.4', '2.4.49', 'a', 'a1', '10', '3', '1.0-rc1', ''];

interface NameSpec {
  part: (typeof PARTS)[number];
  vendor: string;
  product: string;
  version: string;
  update: string;
  upper: boolean;
}

const nameSpec: fc.Arbitrary<NameSpec> = fc.record({
  part: fc.constantFrom(...PARTS),
  vendor: fc.constantFrom(...VENDORS),
  product: fc.constantFrom(...PRODUCTS),
  version: fc.constantFrom(...VERSIONS),
  update: fc.constantFrom(...UPDATES),
  upper: fc.boolean(),
});

/** The name as published: sometimes in upper case (the id is always lower case). */
function cpeOf(spec: NameSpec): string {
  const wfn = Object.fromEntries(CPE_ATTRIBUTES.map((attribute) => [attribute, ANY])) as Wfn;
  wfn.part = spec.part;
  wfn.vendor = quoteWfnValue(spec.vendor);
  wfn.product = quoteWfnValue(spec.product);
  wfn.version = spec.version === '-' ? NA : quoteWfnValue(spec.version === 'lit-' ? '-' : spec.version);
  wfn.update = spec.update === '*' ? ANY : spec.update === '-' ? NA : quoteWfnValue(spec.update);
  const cpe = formatCpe23(wfn);
  return spec.upper ? cpe.toUpperCase() : cpe;
}

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 2 });

const searchArbitrary: fc.Arbitrary<CpeNameSearch> = fc
  .record({
    part: maybe(fc.constantFrom<string>(...PARTS, 'A')),
    vendor: maybe(fc.constantFrom(...VENDORS, 'Apache', ' x.y ', 'none')),
    product: maybe(fc.constantFrom(...PRODUCTS, 'HTTP_Server', 'none')),
    version: maybe(fc.constantFrom(...VERSION_QUERIES)),
    versionPrefix: fc.boolean(),
    order: fc.constantFrom('asc' as const, 'desc' as const),
    offset: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 3 }) }, fc.integer({ min: 0, max: 60 })),
    limit: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 100 })),
  })
  .map(
    (search) =>
      Object.fromEntries(Object.entries(search).filter(([, value]) => value !== undefined)) as unknown as CpeNameSearch,
  );

/** Filter, sort and slice every row, as the SQL search did. */
function reference(
  rows: CpeNameRow[],
  search: CpeNameSearch,
): { total: number; names: Array<{ id: string; cpe: string }> } {
  const lower = (value: string | undefined) => value?.trim().toLowerCase();
  const version = lower(search.version);
  const matches = rows
    .filter(
      (row) =>
        (search.part === undefined || row.part === search.part.toLowerCase()) &&
        (search.vendor === undefined || row.vendor === lower(search.vendor)) &&
        (search.product === undefined || row.product === lower(search.product)) &&
        (version === undefined ||
          (search.versionPrefix ? version === '' || row.version.startsWith(version) : row.version === version)),
    )
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (search.order === 'desc') matches.reverse();
  return {
    total: matches.length,
    names: matches.slice(search.offset, search.offset + search.limit).map((row) => ({ id: row.id, cpe: row.cpe })),
  };
}

type Step =
  | { kind: 'dictionary'; names: NameSpec[] }
  | { kind: 'criteria'; cve: number; names: NameSpec[] }
  | { kind: 'remove'; cve: number }
  | { kind: 'search'; search: CpeNameSearch };

/** Few distinct names, so that writes and removals meet the same names often. */
const fewNames: fc.Arbitrary<NameSpec> = fc.record({
  part: fc.constantFrom<NameSpec['part']>('a', 'o'),
  vendor: fc.constantFrom('apache', 'at&t', 'x.y'),
  product: fc.constantFrom('server', 'c++'),
  version: fc.constantFrom('-', 'lit-', '1.0', '1.0.1', '10'),
  update: fc.constantFrom('*', 'p1'),
  upper: fc.boolean(),
});

const stepArbitrary = (names: fc.Arbitrary<NameSpec>): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('dictionary' as const), names: fc.array(names, { maxLength: 6 }) }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('criteria' as const),
        cve: fc.integer({ min: 1, max: 8 }),
        names: fc.array(names, { maxLength: 8 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), cve: fc.integer({ min: 1, max: 8 }) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('search' as const), search: searchArbitrary }) },
  );

describe.each(engineCases())('CPE name index ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  // One index kept current from the log across every run, one rebuilding at the slightest change.
  let tailing: CpeNameIndex;
  let eager: CpeNameIndex;

  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
    tailing = new CpeNameIndex(storage.knowledge);
    eager = new CpeNameIndex(storage.knowledge, { rebuildAt: 3, replayAtMost: 10, sliceMs: 0 });
    await tailing.build();
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  const allRows = () => storage.db.all<CpeNameRow>(`SELECT id, cpe, part, vendor, product, version FROM cpe_names`);

  async function apply(step: Step): Promise<void> {
    if (step.kind === 'dictionary') {
      const entries: CpeNameEntry[] = step.names.map((spec) => ({ cpe: cpeOf(spec), kind: 'product' }));
      await storage.knowledge.upsertCpeNames(entries);
    } else if (step.kind === 'criteria') {
      const cveId = `CVE-2024-${String(step.cve).padStart(4, '0')}`;
      await storage.knowledge.replace([
        {
          applicability: { cveId, origin: 'nist-nvd2', statements: [] },
          criteria: step.names.map((spec) => ({
            part: spec.part,
            vendor: spec.vendor,
            product: spec.product,
            vulnerable: true,
            source: 'nvd',
            criterion: cpeOf(spec),
          })),
          contentHash: `test:${cveId}`,
        },
      ]);
    } else if (step.kind === 'remove') {
      await storage.knowledge.remove([`CVE-2024-${String(step.cve).padStart(4, '0')}`]);
    }
  }

  it('answers every search as the reference does while names are added and removed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArbitrary(fc.oneof(fewNames, nameSpec)), { minLength: 5, maxLength: 30 }),
        async (steps) => {
          // Built over what earlier runs left, so this run's removals hit built names too.
          const built = new CpeNameIndex(storage.knowledge);
          await built.build();
          for (const step of steps) {
            await apply(step);
            if (step.kind !== 'search') continue;
            const expected = reference(await allRows(), step.search);
            expect(await tailing.search(step.search)).toEqual(expected);
            expect(await eager.search(step.search)).toEqual(expected);
            expect(await built.search(step.search)).toEqual(expected);
          }
        },
      ),
      { numRuns: engine.name === 'sqlite' ? 80 : 30 },
    );
  });

  it('lists every name in id order, and a fresh index built from the table agrees', async () => {
    const rows = (await allRows()).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const fresh = new CpeNameIndex(storage.knowledge);
    await fresh.build();
    await tailing.catchUp();
    for (const index of [tailing, fresh]) {
      expect(index.size).toBe(rows.length);
      expect([...index.names()]).toEqual(rows.map((row) => ({ id: row.id, cpe: row.cpe })));
      expect(index.memoryBytes()).toBeGreaterThan(0);
    }
  });

  it('pages through a larger set up to the 10,000 window, both orders, every filter alone and combined', async () => {
    const names: NameSpec[] = [];
    for (const part of PARTS)
      for (const vendor of VENDORS)
        for (const product of PRODUCTS)
          for (const version of VERSIONS)
            for (const update of UPDATES) names.push({ part, vendor, product, version, update, upper: false });
    await storage.knowledge.upsertCpeNames(names.map((spec) => ({ cpe: cpeOf(spec), kind: 'match' })));
    const rows = await allRows();
    // Held beside the snapshot in one index, built into it in the other.
    const built = new CpeNameIndex(storage.knowledge);
    await built.build();
    await fc.assert(
      fc.asyncProperty(searchArbitrary, fc.integer({ min: 0, max: 9_999 }), async (search, offset) => {
        const deep = { ...search, offset: Math.min(offset, 10_000 - search.limit) };
        const expected = reference(rows, deep);
        expect(await tailing.search(deep)).toEqual(expected);
        expect(await built.search(deep)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
