import { describe, expect, it } from 'vitest';
import { contractProblems } from '../../../test/support/contract.js';
import { collect } from '../../../test/support/streams.js';
import { ADVISORY_ADAPTERS, BUILTIN_FEEDS } from './index.js';
import { fixture } from '../../../test/support/fixtures.js';
import { feedProvenance } from '../../core/advisory/provenance.js';
import { UUID_PATTERN } from '../../core/uuid.js';
import type { AdvisoryItem, JsonObject } from './types.js';

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
      const items = await collect(ADVISORY_ADAPTERS[name as keyof typeof runs](source, name));
      counts[name] = items.length;
      for (const item of items) if (item.kind === 'record') expect(contractProblems(item.record)).toEqual([]);
    }
    expect(counts).toEqual({ 'mitre-cvelist-v5': 1, 'nist-nvd2': 1, 'cisa-kev': 1404, osv: 1206 });
  });
});

const CNA_ORG_5_0 = 'f0158376-9dc2-43b6-827c-5f631a4d8d09'; // Apache's, named by its CVE 5 records

/**
 * Feed, source, the adapter → which provenance its records carry: the org the source names where
 * it names one (CVE 5 records, an NVD source identifier that is a UUID), else the feed's.
 */
const PROVENANCE: Array<[string, string, 'own' | 'feed', 'own' | 'feed']> = [
  // [feed, fixture, assignerOrgId from, providerMetadata from]
  ['cisa-kev', 'feeds/cisa_kev_known_exploited_vulnerabilities.json.gz', 'feed', 'feed'],
  ['go-vulndb', 'feeds/golang_vulndb_osv.jsonl.gz', 'feed', 'feed'],
  ['rustsec', 'feeds/rustsec_advisory_db_osv.jsonl.gz', 'feed', 'feed'],
  ['nist-nvd2', 'nvd/CVE-2021-44832.json', 'feed', 'feed'], // sourceIdentifier security@apache.org
  ['nist-nvd2', 'nvd/CVE-2025-0282.json', 'own', 'feed'], // sourceIdentifier 3c1d8aa1-…
  ['mitre-cvelist-v5', 'cve5-examples/full-record-basic-example.json', 'own', 'own'],
];

describe('provenance of every record', () => {
  const adapterOf = (feed: string) => BUILTIN_FEEDS.find((f) => f.name === feed)!.adapter;

  it.each(PROVENANCE)('%s (%s): assigner from %s, provider from %s', async (feed, file, assigner, provider) => {
    const items: AdvisoryItem[] = await collect(ADVISORY_ADAPTERS[adapterOf(feed)](fixture(file), feed));
    const own = feedProvenance(feed);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      if (item.kind !== 'record') throw new Error(`${item.sourceId}: ${item.reason}`);
      const { cveMetadata, containers } = item.record;
      const providerMetadata = containers.cna.providerMetadata as JsonObject;
      expect(cveMetadata.assignerOrgId).toMatch(UUID_PATTERN);
      expect(providerMetadata.orgId).toMatch(UUID_PATTERN);
      if (assigner === 'feed') expect(cveMetadata.assignerOrgId).toBe(own.orgId);
      else expect(cveMetadata.assignerOrgId).not.toBe(own.orgId);
      if (provider === 'feed') expect(providerMetadata).toMatchObject(own);
      else expect(providerMetadata.orgId).not.toBe(own.orgId);
    }
  });

  it('the Apache CNA file: 4.0 records get the feed, 5.x records keep their own', async () => {
    const own = feedProvenance('mitre-cvelist-v5');
    const items = await collect(
      ADVISORY_ADAPTERS['mitre-cvelist-v5'](fixture('vendor/apache_httpd_cna_cve_json.jsonl.gz'), 'mitre-cvelist-v5'),
    );
    const seen = new Set<string>();
    for (const item of items) {
      if (item.kind !== 'record') continue;
      const converted = item.record.x_dataVersion === '4.0';
      expect(item.record.cveMetadata.assignerOrgId).toBe(converted ? own.orgId : CNA_ORG_5_0);
      expect(item.record.containers.cna.providerMetadata).toMatchObject(converted ? own : { orgId: CNA_ORG_5_0 });
      seen.add(converted ? 'feed' : 'own');
    }
    expect([...seen].sort()).toEqual(['feed', 'own']);
  });
});
