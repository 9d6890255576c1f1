import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advisoryFacts, termValue } from '../../src/core/advisory/facts.js';
import { needsMatchData, type AdvisoryFilters } from '../../src/core/advisory/filters.js';
import { recordMatches } from '../../src/core/advisory/match.js';
import { withProvenance } from '../../src/core/advisory/provenance.js';
import { cpeTerm, TERM, type TermKind } from '../../src/core/advisory/terms.js';
import { hasUnquotedWildcard, parseCpeQuery } from '../../src/core/cpe.js';
import type { AdvisoryItem, AdvisoryRecord } from '../../src/ingest/advisories/types.js';
import { loadFeedItems } from '../../src/ingest/feeds/load.js';
import { AdvisoryIndex } from '../../src/search/advisories/advisory-index.js';
import { createStorage, type AdvisoryPaging, type AdvisoryPosition, type Storage } from '../../src/storage/index.js';
import { engineCases } from '../support/engines.js';

/**
 * The advisory index against a straightforward reference: every record of the model filtered with
 * the term rules and `recordMatches`, sorted (feed, CVE id, record id) and sliced. Random records
 * over 2–3 feeds, loaded, replaced and merged between queries; random filters, offset pages,
 * deep pages and whole cursor walks.
 */

const DAY = 86_400_000;
const BASE = Date.parse('2024-01-01T00:00:00Z');
const VENDORS = ['acme', 'globex', 'initech'] as const;
const PRODUCTS = ['widget', 'gadget', 'tool'] as const;
const URLS = ['https://a.example/1', 'https://b.example/2', 'https://c.example/3', 'https://d.example/4'];
const TAGS = ['patch', 'exploit', 'vendor-advisory'];
const LANGS = ['en', 'en-US', 'es', 'ja'];
const VERSIONS = ['1.0.0', '1.2.0', '1.5.0', '2.0.0', '3.0.0'];

interface Spec {
  cve: number;
  suffix: string | null;
  entries: Array<{
    vendor: string;
    product: string;
    platform: string | null;
    pkg: string | null;
    cpe: boolean;
    from: number;
    to: number;
  }>;
  criterion: { vendor: string; product: string; below: string } | null;
  urls: string[];
  tags: string[];
  langs: string[];
  updated: number | null;
  noise: number;
}

const entryArb = fc.record({
  vendor: fc.constantFrom(...VENDORS),
  product: fc.constantFrom(...PRODUCTS),
  platform: fc.option(fc.constantFrom('Linux', 'Windows')),
  pkg: fc.option(fc.constantFrom('left-pad', 'lodash')),
  cpe: fc.boolean(),
  from: fc.integer({ min: 0, max: 2 }),
  to: fc.integer({ min: 2, max: 4 }),
});

const specArb: fc.Arbitrary<Spec> = fc.record({
  cve: fc.integer({ min: 1000, max: 1015 }),
  suffix: fc.option(fc.constantFrom('A', 'B'), { freq: 3 }),
  entries: fc.array(entryArb, { minLength: 0, maxLength: 2 }),
  criterion: fc.option(
    fc.record({
      vendor: fc.constantFrom(...VENDORS),
      product: fc.constantFrom(...PRODUCTS),
      below: fc.constantFrom(...VERSIONS),
    }),
  ),
  urls: fc.subarray(URLS),
  tags: fc.subarray(TAGS),
  langs: fc.subarray(LANGS),
  updated: fc.option(fc.integer({ min: 0, max: 20 }), { freq: 4 }),
  noise: fc.integer({ min: 0, max: 3 }),
});

const cveOf = (spec: Spec) => `CVE-2024-${spec.cve}`;
const recordIdOf = (spec: Spec) => (spec.suffix ? `OSV-2024-${spec.cve}-${spec.suffix}` : cveOf(spec));

function recordOf(spec: Spec): AdvisoryRecord {
  const cveId = cveOf(spec);
  return {
    dataType: 'CVE_RECORD',
    dataVersion: '5.0',
    cveMetadata: {
      cveId,
      state: 'PUBLISHED',
      ...(spec.updated !== null ? { dateUpdated: new Date(BASE + spec.updated * DAY).toISOString() } : {}),
    },
    containers: {
      cna: {
        title: `noise ${spec.noise}`,
        descriptions: spec.langs.map((lang) => ({ lang, value: `${cveId} in ${lang}` })),
        affected: spec.entries.map((entry) => ({
          vendor: entry.vendor,
          product: entry.product,
          ...(entry.platform ? { platforms: [entry.platform] } : {}),
          ...(entry.pkg ? { collectionURL: 'https://registry.npmjs.org', packageName: entry.pkg } : {}),
          ...(entry.cpe ? { cpes: [`cpe:2.3:a:${entry.vendor}:${entry.product}:*:*:*:*:*:*:*:*`] } : {}),
          versions: [
            {
              version: VERSIONS[entry.from]!,
              lessThan: VERSIONS[entry.to]!,
              status: 'affected',
              versionType: 'semver',
            },
          ],
          defaultStatus: 'unaffected',
        })),
        ...(spec.criterion
          ? {
              cpeApplicability: [
                {
                  nodes: [
                    {
                      operator: 'OR',
                      negate: false,
                      cpeMatch: [
                        {
                          vulnerable: true,
                          criteria: `cpe:2.3:a:${spec.criterion.vendor}:${spec.criterion.product}:*:*:*:*:*:*:*:*`,
                          versionEndExcluding: spec.criterion.below,
                        },
                      ],
                    },
                  ],
                },
              ],
            }
          : {}),
        references: spec.urls.map((url, i) => {
          const tag = spec.tags[i];
          return tag ? { url, tags: [tag] } : { url };
        }),
      },
    },
  } as AdvisoryRecord;
}

const FILTER_VALUES = {
  cveId: fc.constantFrom('CVE-2024-1003', 'CVE-2024-1007', 'CVE-2024-1012'),
  vendor: fc.constantFrom(...VENDORS, 'nobody'),
  product: fc.constantFrom(...PRODUCTS),
  platform: fc.constantFrom('linux', 'windows'),
  packageName: fc.constantFrom('left-pad', 'lodash'),
  packageKey: fc.constantFrom('npm:left-pad', 'npm:lodash'),
  version: fc.constantFrom('1.1.0', '1.6.0', '2.5.0', '9.0.0'),
  cpe: fc.constantFrom(
    'cpe:2.3:a:acme:widget:*',
    'cpe:2.3:a:acme:*',
    'cpe:2.3:a:globex:gadget:1.1.0',
    'cpe:2.3:a:*:tool',
  ),
  referenceUrl: fc.constantFrom(...URLS),
  referenceTag: fc.constantFrom(...TAGS),
  descriptionLang: fc.constantFrom('en', 'en-us', 'es', 'ja', 'fr'),
  updatedAfter: fc.integer({ min: -1, max: 20 }),
  updatedBefore: fc.integer({ min: 0, max: 21 }),
};

/** Zero to three filters at once: more would leave nothing to page through. */
const filtersArb: fc.Arbitrary<AdvisoryFilters> = fc
  .subarray(Object.keys(FILTER_VALUES) as Array<keyof typeof FILTER_VALUES>, { maxLength: 3 })
  .chain((keys) =>
    fc.record(
      Object.fromEntries(keys.map((key) => [key, FILTER_VALUES[key]])) as Record<string, fc.Arbitrary<unknown>>,
    ),
  )
  .map((raw) => {
    const filters: AdvisoryFilters = {};
    for (const [key, value] of Object.entries(raw)) {
      if (value === undefined) continue;
      if (key === 'cpe') filters.cpe = parseCpeQuery(value as string);
      else if (key === 'updatedAfter' || key === 'updatedBefore') filters[key] = BASE + (value as number) * DAY;
      else (filters as Record<string, unknown>)[key] = value;
    }
    return filters;
  });

type Model = Map<string, Map<string, AdvisoryRecord>>;

interface Expected extends AdvisoryPosition {
  record: AdvisoryRecord;
}

function referenceMatches(record: AdvisoryRecord, filters: AdvisoryFilters, cveId: string): boolean {
  const facts = advisoryFacts(record);
  const has = (kind: TermKind, test: (value: string) => boolean) =>
    facts.terms.some(([k, value]) => k === kind && test(value));
  const exact = (kind: TermKind, value: string | undefined) =>
    value === undefined || has(kind, (stored) => stored === termValue(value));
  if (filters.cveId !== undefined && cveId !== filters.cveId) return false;
  const time = facts.updatedAt;
  if (filters.updatedAfter !== undefined && !(time !== undefined && time > filters.updatedAfter)) return false;
  if (filters.updatedBefore !== undefined && !(time !== undefined && time < filters.updatedBefore)) return false;
  if (!exact(TERM.vendor, filters.vendor) || !exact(TERM.product, filters.product)) return false;
  if (!exact(TERM.platform, filters.platform) || !exact(TERM.packageName, filters.packageName)) return false;
  if (!exact(TERM.package, filters.packageKey) || !exact(TERM.referenceUrl, filters.referenceUrl)) return false;
  if (!exact(TERM.referenceTag, filters.referenceTag)) return false;
  const lang = filters.descriptionLang;
  if (lang !== undefined && !has(TERM.descriptionLang, (v) => v === lang || v.startsWith(`${lang}-`))) return false;
  const cpe = filters.cpe;
  if (cpe && !hasUnquotedWildcard(cpe.vendor)) {
    if (!hasUnquotedWildcard(cpe.product)) {
      if (!exact(TERM.cpe, cpeTerm(cpe))) return false;
    } else if (!has(TERM.cpe, (v) => v.startsWith(cpeTerm({ ...cpe, product: '' })))) return false;
  }
  return !needsMatchData(filters) || recordMatches(facts.matchData, filters);
}

function reference(model: Model, feeds: string[], filters: AdvisoryFilters): { total: number; hits: Expected[] } {
  const hits: Expected[] = [];
  let total = 0;
  for (const feed of [...feeds].sort()) {
    const records = model.get(feed) ?? new Map();
    total += records.size;
    const feedHits: Expected[] = [];
    for (const [recordId, record] of records) {
      const cveId = advisoryFacts(record).cveId || recordId.toUpperCase();
      if (referenceMatches(record, filters, cveId)) feedHits.push({ feed, cveId, recordId, record });
    }
    feedHits.sort((a, b) =>
      a.cveId !== b.cveId
        ? a.cveId < b.cveId
          ? -1
          : 1
        : a.recordId < b.recordId
          ? -1
          : a.recordId > b.recordId
            ? 1
            : 0,
    );
    hits.push(...feedHits);
  }
  return { total, hits };
}

const positions = (hits: AdvisoryPosition[]) => hits.map((hit) => `${hit.feed}/${hit.cveId}/${hit.recordId}`);

interface Step {
  feed: number;
  mode: 'replace' | 'merge';
  specs: Spec[];
  /** Replace: how many of the feed's current records the new load keeps unchanged. */
  keep: number;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  feed: fc.integer({ min: 0, max: 2 }),
  mode: fc.constantFrom('replace', 'merge'),
  specs: fc.array(specArb, { minLength: 0, maxLength: 12 }),
  keep: fc.integer({ min: 0, max: 12 }),
});

interface Query {
  filters: AdvisoryFilters;
  feeds: number[];
  limit: number;
  page: number;
}

const queryArb: fc.Arbitrary<Query> = fc.record({
  filters: filtersArb,
  feeds: fc.subarray([0, 1, 2], { minLength: 1 }),
  limit: fc.integer({ min: 1, max: 7 }),
  page: fc.integer({ min: 1, max: 6 }),
});

describe.each(engineCases())('advisory index = reference evaluation ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  let index: AdvisoryIndex;
  let run = 0;

  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
    index = new AdvisoryIndex(storage.advisories);
    await index.build();
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  async function load(model: Model, feed: string, step: Step): Promise<void> {
    const current = model.get(feed) ?? new Map<string, AdvisoryRecord>();
    const next = new Map(step.mode === 'replace' ? [...current].slice(0, step.keep) : current);
    const items: AdvisoryItem[] = [...next].map(([recordId, record]) => ({
      kind: 'record',
      record,
      sourceId: recordId,
    }));
    for (const spec of step.specs) {
      // As the feed serves it: a load gives a record the feed's provenance.
      const record = withProvenance(recordOf(spec), feed);
      next.set(recordIdOf(spec), record);
      items.push({ kind: 'record', record, sourceId: recordIdOf(spec) });
    }
    if (step.mode === 'merge') items.splice(0, current.size);
    await loadFeedItems(storage, { name: feed, description: feed, adapter: 'osv' }, items, {
      mode: step.mode,
      guard: { allowEmpty: true, maxRejected: 1 },
    });
    model.set(feed, next);
  }

  async function check(model: Model, feeds: string[], query: Query): Promise<void> {
    const { filters, limit, page } = query;
    const expected = reference(model, feeds, filters);
    const label = JSON.stringify(filters);
    const pages: AdvisoryPaging[] = [
      { mode: 'offset', offset: 0, limit },
      { mode: 'offset', offset: (page - 1) * limit, limit },
      { mode: 'offset', offset: Math.max(0, expected.hits.length - 1), limit },
    ];
    for (const paging of pages) {
      const result = await index.search(feeds, filters, paging);
      expect(result.total, label).toBe(expected.total);
      expect(result.filtered, label).toBe(expected.hits.length);
      const offset = paging.mode === 'offset' ? paging.offset : 0;
      const want = expected.hits.slice(offset, offset + limit);
      expect(positions(result.records), label).toEqual(positions(want));
      expect(
        result.records.map((hit) => JSON.parse(Buffer.from(hit.json).toString())),
        label,
      ).toEqual(want.map((hit) => hit.record));
    }
    const walked: AdvisoryPosition[] = [];
    let after: AdvisoryPosition | undefined;
    for (let guard = 0; guard < 200; guard++) {
      const result = await index.search(feeds, filters, { mode: 'after', limit, ...(after ? { after } : {}) });
      expect(result.filtered, label).toBe(expected.hits.length);
      walked.push(...result.records);
      if (!result.more) break;
      after = result.records[result.records.length - 1]!;
    }
    expect(positions(walked), label).toEqual(positions(expected.hits));
  }

  it('totals, pages and cursor walks, while feeds are replaced and merged', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 2, maxLength: 5 }),
        fc.array(queryArb, { minLength: 2, maxLength: 4 }),
        async (steps, queries) => {
          run++;
          const names = [0, 1, 2].map((i) => `r${run}-feed${i}`);
          const model: Model = new Map();
          for (const step of steps) {
            await load(model, names[step.feed]!, step);
            for (const query of queries) {
              await check(
                model,
                query.feeds.map((i) => names[i]!),
                query,
              );
            }
          }
        },
      ),
      { numRuns: engine.name === 'sqlite' ? 120 : 40 },
    );
  }, 600_000);
});
