import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameLookupOf } from '../../src/core/applicability/index-keys.js';
import { parseCpe } from '../../src/core/cpe.js';
import { convertNvdCve } from '../../src/ingest/advisories/nvd.js';
import type { AdvisoryRecord } from '../../src/ingest/advisories/types.js';
import { loadFeedItems, loadFeedSources, recordsAsItems, type FeedLoadOptions } from '../../src/ingest/feeds/load.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { DERIVATION_VERSION, KNOWLEDGE_DERIVER } from '../../src/ingest/knowledge/derive.js';
import { rebuildKnowledge, refreshKnowledgeCves } from '../../src/ingest/knowledge/refresh.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { advisory } from './support.js';
import { fixtureHead } from '../support/fixtures.js';

import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';

type Match = { criteria: string; vulnerable?: boolean } & Partial<
  Record<'versionStartIncluding' | 'versionStartExcluding' | 'versionEndIncluding' | 'versionEndExcluding', string>
>;

/** An NVD CVE API 2.0 object converted as the nist-nvd2 adapter does. */
function nvd(id: string, matches: Match[], description = id): AdvisoryRecord {
  return convertNvdCve({
    id,
    sourceIdentifier: 'nvd@nist.gov',
    published: '2030-01-01T00:00:00.000',
    lastModified: '2030-01-02T00:00:00.000',
    vulnStatus: 'Analyzed',
    descriptions: [{ lang: 'en', value: description }],
    ...(matches.length > 0
      ? {
          configurations: [
            {
              nodes: [
                {
                  operator: 'OR',
                  negate: false,
                  cpeMatch: matches.map((m, i) => ({
                    vulnerable: true,
                    matchCriteriaId: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
                    ...m,
                  })),
                },
              ],
            },
          ],
        }
      : {}),
  });
}

/** A CVE 5 record whose CNA names CPEs. */
const cve5 = (id: string, cpes: string[], title = id) =>
  advisory(id, { title, affected: [{ vendor: 'v', product: 'p', cpes, defaultStatus: 'affected', versions: [] }] });

const HTTPD = 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*';
const name = (cpe: string) => nameLookupOf(parseCpe(cpe));

describe.each(engineCases())('knowledge derived from the advisory feeds ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  const changed: string[][] = [];
  const load = (feed: 'nist-nvd2' | 'mitre-cvelist-v5', records: AdvisoryRecord[], options: FeedLoadOptions = {}) =>
    loadFeedItems(storage, { name: feed, description: feed, adapter: feed }, recordsAsItems(records), {
      onKnowledgeChanged: async (products) => {
        changed.push(products);
      },
      ...options,
    });
  const stored = async (cveId: string) => (await storage.knowledge.applicability([cveId]))[0];
  const criteriaOf = async (cveId: string) =>
    storage.db.all<{ criterion: string; start_key: string | null; end_key: string | null }>(
      `SELECT criterion, start_key, end_key FROM knowledge_criteria WHERE cve_id = ? ORDER BY id`,
      [cveId],
    );

  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  it('takes NVD configurations over the CVE 5 record, and falls back to CVE 5 when NVD has none', async () => {
    const first = await load('mitre-cvelist-v5', [
      cve5('CVE-2030-0001', ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*']),
      cve5('CVE-2030-0002', ['cpe:2.3:a:f5:nginx:1.20.0:*:*:*:*:*:*:*']),
      cve5('CVE-2030-0003', ['cpe:2.3:a:openssl:openssl:3.0.0:*:*:*:*:*:*:*']),
    ]);
    expect(first.knowledge).toMatchObject({
      cvesChanged: 3,
      criteria: 3,
      touchedProducts: ['a:apache:http_server', 'a:f5:nginx', 'a:openssl:openssl'],
    });
    expect(changed.pop()).toEqual(['a:apache:http_server', 'a:f5:nginx', 'a:openssl:openssl']);
    expect((await stored('CVE-2030-0001'))?.origin).toBe('mitre-cvelist-v5');

    const second = await load('nist-nvd2', [
      nvd('CVE-2030-0001', [{ criteria: HTTPD, versionStartIncluding: '2.4.0', versionEndIncluding: '2.4.55' }]),
      nvd('CVE-2030-0002', []),
      nvd('CVE-2030-0004', [{ criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*', versionEndExcluding: '8.8' }]),
    ]);
    // 0001 switched to NVD; 0002 says the same as before (NVD has no configurations); 0004 is new.
    expect(second.knowledge).toMatchObject({
      cvesChanged: 2,
      criteria: 2,
      touchedProducts: ['a:apache:http_server', 'a:openbsd:openssh'],
    });
    const a1 = await stored('CVE-2030-0001');
    expect(a1).toMatchObject({ cveId: 'CVE-2030-0001', origin: 'nist-nvd2', statements: [{ source: 'nvd' }] });
    expect(await criteriaOf('CVE-2030-0001')).toHaveLength(1);
    expect(await stored('CVE-2030-0002')).toMatchObject({
      origin: 'mitre-cvelist-v5',
      statements: [{ source: 'cna' }],
    });
    expect((await stored('CVE-2030-0003'))?.origin).toBe('mitre-cvelist-v5');
    expect((await stored('CVE-2030-0004'))?.origin).toBe('nist-nvd2');

    expect(await storage.knowledge.candidateCves([name('cpe:2.3:a:apache:http_server:2.4.50:*:*:*:*:*:*:*')])).toEqual([
      'CVE-2030-0001',
    ]);
    expect(await storage.knowledge.candidateCves([name('cpe:2.3:a:apache:http_server:2.4.56:*:*:*:*:*:*:*')])).toEqual(
      [],
    );
    expect(await storage.knowledge.candidateCves([name('cpe:2.3:a:openbsd:openssh:8.7:p1:*:*:*:*:*:*')])).toEqual([
      'CVE-2030-0004',
    ]);
    // The CVE 5 name 2.4.49 is no criterion any more: it left the searchable names.
    expect(
      (await storage.knowledge.searchCpeNames({ product: 'http_server', order: 'asc', offset: 0, limit: 10 })).total,
    ).toBe(0);
    expect(
      (await storage.knowledge.searchCpeNames({ product: 'nginx', order: 'asc', offset: 0, limit: 10 })).names.map(
        (n) => n.id,
      ),
    ).toEqual(['cpe:2.3:a:f5:nginx:1.20.0:*:*:*:*:*:*:*']);
  });

  it('a load refreshes exactly the CVEs whose record it added, changed or removed, and reports their products', async () => {
    const before = await storage.db.get<{ updated_at: number }>(
      `SELECT updated_at FROM knowledge_cves WHERE cve_id = ?`,
      ['CVE-2030-0004'],
    );
    const generation = await storage.knowledge.generation();
    const summary = await load('nist-nvd2', [
      nvd('CVE-2030-0001', [{ criteria: HTTPD, versionStartIncluding: '2.4.0', versionEndExcluding: '2.4.52' }]), // changed range
      nvd('CVE-2030-0002', [], 'a new description, still no configurations'), // changed record, same knowledge
      nvd('CVE-2030-0004', [{ criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*', versionEndExcluding: '8.8' }]), // unchanged
      nvd('CVE-2030-0006', [{ criteria: 'cpe:2.3:a:jenkins:jenkins:2.441:*:*:*:*:*:*:*' }]), // new
    ]);
    expect(summary).toMatchObject({ added: 1, updated: 2, unchanged: 1, removed: 0 });
    expect(summary.knowledge).toMatchObject({
      cvesChanged: 2,
      criteria: 2,
      touchedProducts: ['a:apache:http_server', 'a:jenkins:jenkins'],
    });
    expect(changed.pop()).toEqual(['a:apache:http_server', 'a:jenkins:jenkins']);
    expect(await storage.knowledge.generation()).toBeGreaterThan(generation);
    const after = await storage.db.get<{ updated_at: number }>(
      `SELECT updated_at FROM knowledge_cves WHERE cve_id = ?`,
      ['CVE-2030-0004'],
    );
    expect(Number(after!.updated_at)).toBe(Number(before!.updated_at));
    expect(await storage.knowledge.candidateCves([name('cpe:2.3:a:apache:http_server:2.4.53:*:*:*:*:*:*:*')])).toEqual(
      [],
    );
    expect(
      (await storage.knowledge.searchCpeNames({ vendor: 'jenkins', order: 'asc', offset: 0, limit: 10 })).total,
    ).toBe(1);

    // The same content again: nothing to do.
    const again = await load('nist-nvd2', [
      nvd('CVE-2030-0001', [{ criteria: HTTPD, versionStartIncluding: '2.4.0', versionEndExcluding: '2.4.52' }]),
      nvd('CVE-2030-0002', [], 'a new description, still no configurations'),
      nvd('CVE-2030-0004', [{ criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*', versionEndExcluding: '8.8' }]),
      nvd('CVE-2030-0006', [{ criteria: 'cpe:2.3:a:jenkins:jenkins:2.441:*:*:*:*:*:*:*' }]),
    ]);
    expect(again.knowledge).toMatchObject({ cvesChanged: 0, criteria: 0, touchedProducts: [] });
  });

  it('removed records remove knowledge, or fall back to the CVE 5 record', async () => {
    const summary = await load('nist-nvd2', [
      nvd('CVE-2030-0004', [{ criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*', versionEndExcluding: '8.8' }]),
    ]);
    expect(summary).toMatchObject({ removed: 3, unchanged: 1 });
    // 0001 falls back to its CVE 5 record; 0006 (NVD only) is gone; 0002 says the same as before.
    expect(summary.knowledge).toMatchObject({
      cvesChanged: 2,
      touchedProducts: ['a:apache:http_server', 'a:jenkins:jenkins'],
    });
    expect((await stored('CVE-2030-0001'))?.origin).toBe('mitre-cvelist-v5');
    expect(await stored('CVE-2030-0006')).toBeUndefined();
    expect(await criteriaOf('CVE-2030-0006')).toEqual([]);
    expect(
      (await storage.knowledge.searchCpeNames({ vendor: 'jenkins', order: 'asc', offset: 0, limit: 10 })).total,
    ).toBe(0);
    expect(await storage.knowledge.candidateCves([name('cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*')])).toEqual([
      'CVE-2030-0001',
    ]);

    const cleared = await load('mitre-cvelist-v5', [
      cve5('CVE-2030-0003', ['cpe:2.3:a:openssl:openssl:3.0.0:*:*:*:*:*:*:*']),
    ]);
    expect(cleared.knowledge).toMatchObject({
      cvesChanged: 2,
      touchedProducts: ['a:apache:http_server', 'a:f5:nginx'],
    });
    // Neither feed has 0001 or 0002 any more.
    expect(await storage.knowledge.applicability(['CVE-2030-0001', 'CVE-2030-0002'])).toEqual([]);
    expect(
      (await storage.knowledge.searchCpeNames({ product: 'nginx', order: 'asc', offset: 0, limit: 10 })).total,
    ).toBe(0);
  });

  it('a load that skipped the refresh is caught up by the next one; rebuild restores and is idempotent', async () => {
    await load('nist-nvd2', [nvd('CVE-2030-0007', [{ criteria: 'cpe:2.3:a:gitlab:gitlab:16.0.0:*:*:*:*:*:*:*' }])], {
      refreshKnowledge: false,
    });
    expect(await stored('CVE-2030-0007')).toBeUndefined();
    const next = await load('nist-nvd2', [
      nvd('CVE-2030-0007', [{ criteria: 'cpe:2.3:a:gitlab:gitlab:16.0.0:*:*:*:*:*:*:*' }]),
    ]);
    expect(next).toMatchObject({ unchanged: 1, added: 0 });
    // Caught up: 0007 was added and 0004 removed by the load that did not refresh.
    expect(next.knowledge).toMatchObject({ cvesChanged: 2, touchedProducts: ['a:gitlab:gitlab', 'a:openbsd:openssh'] });
    expect((await stored('CVE-2030-0007'))?.origin).toBe('nist-nvd2');

    const snapshot = await storage.db.all(
      `SELECT cve_id, origin, content_hash, applicability FROM knowledge_cves ORDER BY cve_id`,
    );
    const criteria = await storage.db.all(
      `SELECT cve_id, criterion, exact_key, scan_key FROM knowledge_criteria ORDER BY cve_id, criterion`,
    );
    await storage.db.run(`DELETE FROM knowledge_criteria`);
    await storage.db.run(`DELETE FROM knowledge_cves`);
    await storage.db.run(
      `INSERT INTO knowledge_cves (cve_id, origin, content_hash, applicability, updated_at) VALUES ('CVE-2030-9999', 'nist-nvd2', 'x', '{}', 0)`,
    );
    const rebuilt = await rebuildKnowledge(storage);
    expect(rebuilt.cvesChanged).toBe(3); // 0003 and 0007 restored, the orphan removed
    expect(
      await storage.db.all(`SELECT cve_id, origin, content_hash, applicability FROM knowledge_cves ORDER BY cve_id`),
    ).toEqual(snapshot);
    expect(
      await storage.db.all(
        `SELECT cve_id, criterion, exact_key, scan_key FROM knowledge_criteria ORDER BY cve_id, criterion`,
      ),
    ).toEqual(criteria);
    expect((await rebuildKnowledge(storage)).cvesChanged).toBe(0);
    const forced = await rebuildKnowledge(storage, { force: true });
    expect(forced).toMatchObject({ cvesChanged: 2, touchedProducts: ['a:gitlab:gitlab', 'a:openssl:openssl'] });
    expect((await refreshKnowledgeCves(storage, ['CVE-2030-0007', 'CVE-2030-0404'])).cvesChanged).toBe(0);
  });

  it('a derivation that throws leaves that CVE as it was and reports it; the rest goes in', async () => {
    await load('mitre-cvelist-v5', [
      cve5('CVE-2030-0003', ['cpe:2.3:a:openssl:openssl:3.0.0:*:*:*:*:*:*:*']),
      cve5('CVE-2030-0008', ['cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*:*']),
      cve5('CVE-2030-0009', ['cpe:2.3:a:acme:gadget:1.0:*:*:*:*:*:*:*']),
    ]);
    const failing = {
      version: DERIVATION_VERSION,
      derive: (sources: Parameters<typeof KNOWLEDGE_DERIVER.derive>[0]) => {
        if (sources.cveId === 'CVE-2030-0008') throw new Error('odd record');
        return KNOWLEDGE_DERIVER.derive(sources);
      },
    };
    await storage.db.run(`DELETE FROM knowledge_criteria WHERE cve_id IN ('CVE-2030-0008', 'CVE-2030-0009')`);
    await storage.db.run(`DELETE FROM knowledge_cves WHERE cve_id IN ('CVE-2030-0008', 'CVE-2030-0009')`);
    const summary = await refreshKnowledgeCves(storage, ['CVE-2030-0008', 'CVE-2030-0009'], { deriver: failing });
    expect(summary).toMatchObject({ cvesChanged: 1, failed: [{ cveId: 'CVE-2030-0008', reason: 'odd record' }] });
    expect(await stored('CVE-2030-0008')).toBeUndefined();
    expect((await stored('CVE-2030-0009'))?.origin).toBe('mitre-cvelist-v5');
    // A rebuild retries it.
    expect((await rebuildKnowledge(storage)).cvesChanged).toBe(1);
    expect((await stored('CVE-2030-0008'))?.origin).toBe('mitre-cvelist-v5');
  });

  it('real records: NVD configurations (incl. AND and update components) and CVE 5 CPEs become criteria', async () => {
    const registry = new FeedRegistry();
    const nvdLoad = await loadFeedSources(storage, registry.get('nist-nvd2')!, [fixture('nvd')]);
    const cve5Load = await loadFeedSources(storage, registry.get('mitre-cvelist-v5')!, [
      await fixtureHead('cve5-vulnrichment.sample.ndjson.gz', 300),
    ]);
    expect(nvdLoad.knowledge!.cvesChanged).toBeGreaterThanOrEqual(28);
    expect(cve5Load.knowledge!.cvesChanged).toBeGreaterThan(100);
    expect((await stored('CVE-2021-41617'))?.origin).toBe('nist-nvd2');
    // No configurations in NVD and no CPEs in the CVE 5 subset: known, nothing to say.
    expect(await stored('CVE-2024-38476')).toEqual({ cveId: 'CVE-2024-38476', origin: 'nist-nvd2', statements: [] });
    expect((await stored('CVE-1999-0006'))?.origin).toBe('mitre-cvelist-v5');
    expect(await storage.knowledge.candidateCves([name('cpe:2.3:a:openbsd:openssh:8.7:*:*:*:*:*:*:*')])).toContain(
      'CVE-2021-41617',
    );
    expect(await storage.knowledge.candidateCves([name('cpe:2.3:a:openbsd:openssh:8.8:*:*:*:*:*:*:*')])).not.toContain(
      'CVE-2021-41617',
    );
    // The AND configuration's platform (Fedora) is indexed too, as not vulnerable.
    const fedora = await storage.db.all<{ vulnerable: number }>(
      `SELECT vulnerable FROM knowledge_criteria WHERE cve_id = ? AND vendor = ?`,
      ['CVE-2021-41617', 'fedoraproject'],
    );
    expect(fedora.length).toBeGreaterThan(0);
    // Rebuilding over real data changes nothing.
    expect((await rebuildKnowledge(storage)).cvesChanged).toBe(0);
  });
});
