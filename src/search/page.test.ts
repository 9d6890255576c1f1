import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../ingest/demo/random.js';
import { parseHostQuery, typedFilters } from '../server/routes/target-intel/query.js';
import type { IndexEntry } from '../core/host-record.js';
import type { PageRequest } from './host-query.js';
import { HostIndex } from './host-index.js';

const HOUR = 3_600_000;

/** 20,000 records in three hours, with many equal times (whole seconds), so buckets are large and tie often. */
function buildIndex(seed: number): { index: HostIndex; entries: IndexEntry[] } {
  const random = new SeededRandom(seed);
  const index = new HostIndex();
  const entries: IndexEntry[] = [];
  for (let id = 1; id <= 20_000; id++) {
    const observedAt = 100 * HOUR + Math.floor(random.next() * 3 * 3600) * 1000;
    const entry: IndexEntry = {
      id,
      ip: `10.${id >> 16}.${(id >> 8) & 255}.${id & 255}`,
      port: random.next() < 0.5 ? 443 : 80,
      protocol: 'tcp',
      hostname: '',
      observedAt,
      dateAdded: observedAt - Math.floor(random.next() * 2 * 3600) * 1000,
      fingerprintsJson: random.next() < 0.3 ? '[{"vendor":"apache","product":"http_server","version":"2.4.49"}]' : '[]',
      cvesJson: '[]',
      confirmed: false,
      classificationsJson: '[]',
    };
    index.upsert(entry, id);
    entries.push(entry);
  }
  return { index, entries };
}

describe('paging large buckets by time', () => {
  const { index, entries } = buildIndex(7);
  const cases: Array<{
    params: Record<string, string>;
    sort: 'timestamp' | 'date_added';
    order: 'asc' | 'desc';
    offset: number;
  }> = [];
  for (const params of [{}, { vendor: 'apache' }] as Array<Record<string, string>>)
    for (const sort of ['timestamp', 'date_added'] as const)
      for (const order of ['asc', 'desc'] as const)
        for (const offset of [0, 37, 950, 5000]) cases.push({ params, sort, order, offset });

  it.each(cases)('$sort $order from $offset of $params equals a full sort', ({ params, sort, order, offset }) => {
    const query = parseHostQuery(typedFilters(params));
    const matches = new Set(index.evaluate(query));
    const key = (e: IndexEntry) => (sort === 'timestamp' ? e.observedAt : e.dateAdded);
    const expected = entries
      .filter((e) => matches.has(e.id))
      .sort((a, b) => (order === 'asc' ? key(a) - key(b) || a.id - b.id : key(b) - key(a) || b.id - a.id))
      .map((e) => e.id);
    const request: PageRequest = { sort, order, offset, limit: 100 };
    expect(index.page(query, request).ids).toEqual(expected.slice(offset, offset + 100));
    // A cursor walk from the middle of a bucket: the page after the record at `offset`.
    const at = expected[offset]!;
    expect(index.page(query, { sort, order, offset: 0, limit: 100, after: index.positionOf(at, sort) }).ids).toEqual(
      expected.slice(offset + 1, offset + 101),
    );
  });
});
