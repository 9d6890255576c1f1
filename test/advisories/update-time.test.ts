import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AdvisoryRecord } from '../../src/ingest/advisories/types.js';
import { AdvisoryIndex } from '../../src/search/advisories/advisory-index.js';
import { parseAdvisoryFilters } from '../../src/server/routes/advisory/filters.js';
import { createStorage, migrate } from '../../src/storage/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { ADVISORY, advisory, cveIds, loadRecords } from './support.js';

/**
 * `updatedAfter`/`updatedBefore` filter on a record's update time: `dateUpdated`, else
 * `datePublished`, else `dateReserved`. Records without `dateUpdated` were left out of every such
 * query (`updatedAfter=1970-01-01T00:00:00Z` returned 1,685 of 5,724 records).
 */

/** A record with exactly these metadata dates. */
function dated(cveId: string, dates: { dateUpdated?: string; datePublished?: string; dateReserved?: string }) {
  const record = advisory(cveId) as AdvisoryRecord & { cveMetadata: Record<string, unknown> };
  Object.assign(record.cveMetadata, dates);
  return record;
}

const RECORDS = [
  // dateUpdated wins over the others.
  dated('CVE-2024-0001', {
    dateUpdated: '2024-06-01T00:00:00Z',
    datePublished: '2020-01-01T00:00:00Z',
    dateReserved: '2019-01-01T00:00:00Z',
  }),
  // Never updated since published: datePublished, not the older dateReserved.
  dated('CVE-2024-0002', { datePublished: '2022-03-01T12:00:00Z', dateReserved: '2021-01-01T00:00:00Z' }),
  // Reserved only (a reserved or rejected record).
  dated('CVE-2024-0003', { dateReserved: '2023-05-05T00:00:00Z' }),
  dated('CVE-2024-0004', { datePublished: '2023-01-01T00:00:00.500Z' }),
  // No readable date: matches no update-time query.
  dated('CVE-2024-0005', {}),
  dated('CVE-2024-0006', { dateUpdated: 'not a date' }),
];

const idOf = (record: unknown) => (record as { cveMetadata: { cveId: string } }).cveMetadata.cveId;

/** Query → the records it must return. */
const CASES: Array<[string, string[]]> = [
  ['updatedAfter=1970-01-01T00:00:00Z', ['CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003', 'CVE-2024-0004']],
  ['updatedBefore=2100-01-01', ['CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003', 'CVE-2024-0004']],
  ['updatedBefore=2021-06-01', []],
  ['updatedAfter=2022-01-01&updatedBefore=2022-12-31', ['CVE-2024-0002']],
  ['updatedAfter=2023-01-01T00:00:00Z&updatedBefore=2023-01-01T00:00:01Z', ['CVE-2024-0004']],
  ['updatedAfter=2023-01-02&updatedBefore=2024-01-01', ['CVE-2024-0003']],
  ['updatedAfter=2024-01-01', ['CVE-2024-0001']],
  ['updatedBefore=2023-06-01', ['CVE-2024-0002', 'CVE-2024-0003', 'CVE-2024-0004']],
];

describe.each(engineCases())('advisory update time ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadRecords(t.storage, 'times', RECORDS);
  });
  afterAll(async () => t?.close());

  it.each(CASES)('%s', async (query, expected) => {
    const response = await t.get(`${ADVISORY}?name=times&limit=100&${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(cveIds(response.body)).toEqual(expected);
    expect(response.body._meta.filtered).toBe(expected.length);
  });
});

describe.each(engineCases())('migration 7: update times of stored advisories ($name)', (engine) => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await drop?.();
    drop = undefined;
  });

  it('fills the update time of rows a version-6 server stored without one', async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    const old = await createStorage(fresh.config, { migrate: false });
    await migrate(old.db, { through: 6 });
    await loadRecords(old, 'times', RECORDS);
    // As a version-6 server stored them: the time of cveMetadata.dateUpdated only.
    await old.db.run(`UPDATE advisories SET date_updated = NULL WHERE cve_id <> ?`, ['CVE-2024-0001']);
    const stored = await old.db.all<{ cve_id: string }>(
      `SELECT cve_id FROM advisories WHERE date_updated IS NOT NULL ORDER BY cve_id`,
    );
    expect(stored.map((row) => row.cve_id)).toEqual(['CVE-2024-0001']);
    await old.close();

    const storage = await createStorage(fresh.config);
    const index = new AdvisoryIndex(storage.advisories);
    try {
      for (const [query, expected] of CASES) {
        const { filters } = parseAdvisoryFilters(Object.fromEntries(new URLSearchParams(query)));
        const result = await index.search(['times'], filters, { mode: 'offset', offset: 0, limit: 100 });
        expect(
          result.records.map((hit) => idOf(JSON.parse(Buffer.from(hit.json).toString()))),
          query,
        ).toEqual(expected);
      }
      const times = await storage.db.all<{ cve_id: string; date_updated: number | string | null }>(
        `SELECT cve_id, date_updated FROM advisories ORDER BY cve_id`,
      );
      expect(times.map((row) => [row.cve_id, row.date_updated === null ? null : Number(row.date_updated)])).toEqual([
        ['CVE-2024-0001', Date.parse('2024-06-01T00:00:00Z')],
        ['CVE-2024-0002', Date.parse('2022-03-01T12:00:00Z')],
        ['CVE-2024-0003', Date.parse('2023-05-05T00:00:00Z')],
        ['CVE-2024-0004', Date.parse('2023-01-01T00:00:00.500Z')],
        ['CVE-2024-0005', null],
        ['CVE-2024-0006', null],
      ]);
    } finally {
      await index.stop();
      await storage.close();
    }
  });
});
