import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../ingest/demo/random.js';
import { parseHostQuery, typedFilters } from '../server/routes/target-intel/query.js';
import type { IndexEntry } from '../core/host-record.js';
import { HostIndex } from './host-index.js';

const FINGERPRINTS = [
  '[]',
  '[{"vendor":"nginx","product":"nginx","version":"1.20.0"}]',
  '[{"vendor":"apache","product":"http_server","version":"2.4.49"}]',
];
const CVES = ['[]', '["CVE-2021-41773"]', '["CVE-2021-41773","CVE-2021-42013"]'];
const CLASSIFICATIONS = ['[]', '["c2:sliver"]'];
const QUERIES: Array<Record<string, string>> = [
  {},
  { vendor: 'nginx' },
  { vendor: 'apache', version: '2.4.49' },
  { cve: 'CVE-2021-42013' },
  { contains_cve: 'true' },
  { classifications: 'c2' },
  { asn: 'AS64501' },
  { country_code: 'FR' },
  { protocol: 'udp' },
  { port: '443' },
  { cidr: '198.51.100.0/24' },
  { cidr: '198.51.0.0/16' },
  { cidr: '2001:db8::/32' },
  { hostname: 'h1' },
  { lastModStartDate: new Date(40 * 3_600_000).toISOString() },
  { pubEndDate: new Date(20 * 3_600_000).toISOString() },
  { confirmed: 'true' },
];

function randomEntry(random: SeededRandom, id: number): IndexEntry {
  const pick = <T>(values: T[]) => values[Math.floor(random.next() * values.length)]!;
  const observedAt = Math.floor(random.next() * 72) * 3_600_000 + 17;
  return {
    id,
    ip:
      random.next() < 0.2
        ? `2001:db8::${Math.floor(random.next() * 50)}`
        : `198.51.${Math.floor(random.next() * 3) + 99}.${Math.floor(random.next() * 250)}`,
    port: pick([22, 80, 443]),
    protocol: pick(['tcp', 'tcp', 'udp']),
    hostname: random.next() < 0.5 ? `h${Math.floor(random.next() * 20)}.example` : '',
    observedAt,
    dateAdded: observedAt - Math.floor(random.next() * 24) * 3_600_000,
    asn: pick([undefined, 'AS64500', 'AS64501']),
    countryCode: pick([undefined, 'DE', 'FR']),
    country: undefined,
    fingerprintsJson: pick(FINGERPRINTS),
    cvesJson: pick(CVES),
    confirmed: random.next() < 0.3,
    classificationsJson: pick(CLASSIFICATIONS),
  };
}

const matching = (index: HostIndex, params: Record<string, string>) =>
  [...index.evaluate(parseHostQuery(typedFilters(params)))].sort((a, b) => a - b);

describe('HostIndex under churn (records hold group ids, families come from their columns)', () => {
  it.each([1, 2, 3, 4])('answers as an index built from the final state (seed %i)', (seed) => {
    const random = new SeededRandom(seed);
    const index = new HostIndex();
    const current = new Map<number, IndexEntry>();
    for (let step = 1; step <= 3000; step++) {
      const id = 1 + Math.floor(random.next() * 300);
      const held = current.get(id);
      if (held && random.next() < 0.3) {
        // Observed again with nothing else changed: only the time (and its hour posting) moves.
        const observedAt = Math.floor(random.next() * 72) * 3_600_000 + Math.floor(random.next() * 3_600_000);
        expect(index.retime(id, observedAt, step)).toBe(true);
        current.set(id, { ...held, observedAt });
      } else if (random.next() < 0.05) {
        // Expiry's batched removal: absent and repeated ids included.
        const ids = Array.from(
          { length: 1 + Math.floor(random.next() * 30) },
          () => 1 + Math.floor(random.next() * 300),
        );
        index.removeMany(
          ids,
          ids.map(() => step),
        );
        for (const removed of ids) current.delete(removed);
      } else if (random.next() < 0.25) {
        index.remove(id, step);
        current.delete(id);
      } else {
        const entry = randomEntry(random, id);
        index.upsert(entry, step);
        current.set(id, entry);
      }
    }
    const rebuilt = new HostIndex();
    for (const entry of current.values()) rebuilt.upsert(entry, 1);
    for (const params of QUERIES)
      expect(matching(index, params), JSON.stringify(params)).toEqual(matching(rebuilt, params));
    expect(index.size).toBe(current.size);
    expect(index.retime(100_000, 0, 3001)).toBe(false);
  });

  it('pages leave the posting lists as they were (a page frees only the bitmaps it made)', () => {
    const random = new SeededRandom(5);
    const index = new HostIndex();
    for (let id = 1; id <= 400; id++) index.upsert(randomEntry(random, id), id);
    const combined = [
      ...QUERIES,
      { vendor: 'nginx', country_code: 'FR' },
      { cve: 'CVE-2021-42013', port: '443' },
      { contains_cve: 'false', protocol: 'udp' },
    ];
    const before = combined.map((params) => matching(index, params));
    for (const params of combined) {
      for (const snapshotSeq of [undefined, 200]) {
        const page = index.page(parseHostQuery(typedFilters(params)), {
          sort: 'timestamp',
          order: 'desc',
          offset: 0,
          limit: 10,
          snapshotSeq,
        });
        if (snapshotSeq === undefined) expect(page.total, JSON.stringify(params)).toBe(matching(index, params).length);
      }
    }
    expect(combined.map((params) => matching(index, params))).toEqual(before);
    expect(index.size).toBe(400);
  });

  it('measures its memory a slice at a time to the same figure', async () => {
    const random = new SeededRandom(9);
    const index = new HostIndex();
    for (let id = 1; id <= 2000; id++) index.upsert(randomEntry(random, id), id);
    expect(await index.memoryBytesYielding()).toBe(index.memoryBytes());
    expect(index.memoryBytes()).toBeGreaterThan(0);
  });
});
