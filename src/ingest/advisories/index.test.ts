import { describe, expect, it } from 'vitest';
import { contractProblems } from '../../../test/support/contract.js';
import { collect } from '../../../test/support/streams.js';
import { ADVISORY_ADAPTERS, BUILTIN_FEEDS } from './index.js';
import { fixture } from '../../../test/support/fixtures.js';

describe('advisory adapters and built-in feeds', () => {
  it('exposes the four adapters', () => {
    expect(Object.keys(ADVISORY_ADAPTERS).sort()).toEqual(['cisa-kev', 'mitre-cvelist-v5', 'nist-nvd2', 'osv']);
  });

  it('lists the six built-in feeds, each with an adapter and a description', () => {
    expect(BUILTIN_FEEDS.map((f) => [f.name, f.adapter])).toEqual([
      ['mitre-cvelist-v5', 'mitre-cvelist-v5'],
      ['nist-nvd2', 'nist-nvd2'],
      ['cisa-kev', 'cisa-kev'],
      ['go-vulndb', 'osv'],
      ['pypa', 'osv'],
      ['rustsec', 'osv'],
    ]);
    for (const feed of BUILTIN_FEEDS) {
      expect(ADVISORY_ADAPTERS[feed.adapter]).toBeTypeOf('function');
      expect(feed.description.length).toBeGreaterThan(20);
    }
  });

  it('every adapter reads its kind of input through the registry', async () => {
    const runs = {
      'mitre-cvelist-v5': fixture('cve5-examples/full-record-basic-example.json'),
      'nist-nvd2': fixture('nvd/CVE-2024-38476.json'),
      'cisa-kev': fixture('feeds/cisa_kev_known_exploited_vulnerabilities.json.gz'),
      osv: fixture('feeds/rustsec_advisory_db_osv.jsonl.gz'),
    } as const;
    const counts: Record<string, number> = {};
    for (const [name, source] of Object.entries(runs)) {
      const items = await collect(ADVISORY_ADAPTERS[name as keyof typeof runs](source));
      counts[name] = items.length;
      for (const item of items) if (item.kind === 'record') expect(contractProblems(item.record)).toEqual([]);
    }
    expect(counts).toEqual({ 'mitre-cvelist-v5': 1, 'nist-nvd2': 1, 'cisa-kev': 1404, osv: 1206 });
  });
});
