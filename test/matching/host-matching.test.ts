/**
 * Fingerprints → CVEs through the real paths: NVD records loaded into the nist-nvd2 feed (knowledge
 * derived from them), observations ingested by the pipeline, records read through the API.
 * Expected CVE sets were derived by hand from test/fixtures/nvd/ (see each row).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertNvdCve } from '../../src/ingest/advisories/nvd.js';
import { loadFeedItems, loadFeedSources, recordsAsItems } from '../../src/ingest/feeds/load.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { ingestCpeDictionary } from '../../src/ingest/knowledge/dictionary.js';
import { remapChangedKnowledge } from '../../src/services/matching/knowledge-remap.js';
import { confirmingMatcher, knowledgeMatcher } from '../../src/services/matching/source.js';
import { productRenamesOf } from '../../src/services/matching/renames.js';
import { startTestApp, type TestApp } from '../support/app.js';

import { validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';
import fs from 'node:fs';
import { fixture } from '../support/fixtures.js';

const NVD = fixture('nvd');
const fp = (cpe: string) => ({ cpe });
const T0 = Date.UTC(2026, 10, 1);

/** One observation per row, on its own IP. */
const ROWS: Array<{
  name: string;
  cpes: string[];
  os?: string[];
  scanner?: string[];
  cves: string[];
  confirmed: boolean;
}> = [
  // CVE-2021-41617: openssh 6.2 <= v < 8.8 (update p1 folded: 8.5p1).
  {
    name: 'openssh 8.5p1',
    cpes: ['cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*'],
    cves: ['CVE-2021-41617'],
    confirmed: true,
  },
  // Just past versionEndExcluding 8.8.
  { name: 'openssh 8.8', cpes: ['cpe:2.3:a:openbsd:openssh:8.8:-:*:*:*:*:*:*'], cves: [], confirmed: false },
  // Below versionStartIncluding 6.2.
  { name: 'openssh 6.1p1', cpes: ['cpe:2.3:a:openbsd:openssh:6.1:p1:*:*:*:*:*:*'], cves: [], confirmed: false },
  // CVE-2021-23017 f5:nginx [0.6.18, 1.20.1); CVE-2013-2028 [1.3.9, 1.4.0] (endIncluding boundary).
  {
    name: 'nginx 1.4.0',
    cpes: ['cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*'],
    cves: ['CVE-2013-2028', 'CVE-2021-23017'],
    confirmed: true,
  },
  { name: 'nginx 1.4.1', cpes: ['cpe:2.3:a:f5:nginx:1.4.1:*:*:*:*:*:*:*'], cves: ['CVE-2021-23017'], confirmed: true },
  { name: 'nginx 1.20.1', cpes: ['cpe:2.3:a:f5:nginx:1.20.1:*:*:*:*:*:*:*'], cves: [], confirmed: false },
  // A version-less fingerprint is only a possible match: never confirmed.
  { name: 'nginx, no version', cpes: ['cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*'], cves: [], confirmed: false },
  // CVE-2021-41617's AND configuration: aff_a250_firmware (vulnerable) running on h:netapp:aff_a250.
  {
    name: 'aff_a250 firmware with its platform',
    cpes: ['cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*'],
    os: ['cpe:2.3:h:netapp:aff_a250:-:*:*:*:*:*:*:*'],
    cves: ['CVE-2021-41617'],
    confirmed: true,
  },
  {
    name: 'aff_a250 firmware without its platform',
    cpes: ['cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*'],
    cves: [],
    confirmed: false,
  },
  // Scanner-reported CVEs stay, united with confirmed ones, but do not make a record "confirmed".
  {
    name: 'scanner only',
    cpes: ['cpe:2.3:a:example:unknown:1.0:*:*:*:*:*:*:*'],
    scanner: ['CVE-2099-0001'],
    cves: ['CVE-2099-0001'],
    confirmed: false,
  },
  {
    name: 'scanner and knowledge',
    cpes: ['cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*'],
    scanner: ['CVE-2099-0002'],
    cves: ['CVE-2021-23017', 'CVE-2099-0002'],
    confirmed: true,
  },
];

const ipOf = (i: number) => `198.51.100.${i + 1}`;

describe.each(engineCases())('fingerprint → CVE matching ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    const registry = new FeedRegistry();
    await loadFeedSources(t.storage, registry.get('nist-nvd2')!, [NVD]);
    await t.ingest(
      ROWS.map((row, i) => ({
        ip: ipOf(i),
        port: 443,
        timestamp: T0,
        fingerprints: row.cpes.map(fp),
        osCpes: row.os ?? [],
        cves: row.scanner ?? [],
      })),
    );
  });
  afterAll(() => t?.close());

  it.each(ROWS.map((row, i) => [row.name, i] as const))('%s', async (_name, i) => {
    const row = ROWS[i]!;
    const { status, body } = await t.get(`/v3/index/target-intel?cidr=${ipOf(i)}`);
    expect(status).toBe(200);
    expect(body.data).toHaveLength(1);
    expect(body.data[0].cve).toEqual(row.cves.length > 0 ? row.cves : null);
    expect(body.data[0].contains_cve).toBe(row.cves.length > 0);
    expect(body.data[0]).not.toHaveProperty('cve_evidence');
    const confirmed = await t.get(`/v3/index/target-intel?cidr=${ipOf(i)}&confirmed=true`);
    expect(confirmed.body._meta.total_documents).toBe(row.confirmed ? 1 : 0);
  });

  it('cve= finds only confirmed or scanner-reported records', async () => {
    const { body } = await t.get('/v3/index/target-intel?cve=CVE-2021-23017&sort=ip&order=asc');
    expect(body.data.map((r: { ip: string }) => r.ip)).toEqual([ipOf(3), ipOf(4), ipOf(10)]);
    const unconfirmed = await t.get('/v3/index/target-intel?confirmed=false&contains_cve=true');
    expect(unconfirmed.body.data.map((r: { ip: string }) => r.ip)).toEqual([ipOf(9)]);
  });

  it('explain=true adds cve_evidence naming the criterion, range, kind, source and confidence', async () => {
    const { status, body } = await t.get(`/v3/index/target-intel?cidr=${ipOf(0)}&explain=true`);
    expect(status).toBe(200);
    expect(validateAgainst('render.ResponseWithMetadata-array_api_TargetIntel-paginate_Pagination', body)).toEqual([]);
    expect(body.data[0].cve_evidence).toEqual([
      {
        cve: 'CVE-2021-41617',
        source: 'nvd',
        kind: 'version_range',
        confirmed: true,
        confidence: 'high',
        cpe: 'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*',
        criterion: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*',
        range: expect.stringMatching(/>= 6\.2.*< 8\.8/),
        vulnerable: true,
        configuration: 'satisfied',
      },
    ]);
  });

  it('explain=true lists weaker matches as unconfirmed evidence, and scanner claims as such', async () => {
    const versionless = await t.get(`/v3/index/target-intel?cidr=${ipOf(6)}&explain=true`);
    const kinds = versionless.body.data[0].cve_evidence.map((e: { cve: string; kind: string; confirmed: boolean }) => [
      e.cve,
      e.kind,
      e.confirmed,
    ]);
    expect(kinds).toContainEqual(['CVE-2021-23017', 'version_unknown', false]);
    expect(kinds).toContainEqual(['CVE-2013-2028', 'version_unknown', false]);
    const conditional = await t.get(`/v3/index/target-intel?cidr=${ipOf(8)}&explain=true`);
    expect(conditional.body.data[0].cve_evidence).toContainEqual(
      expect.objectContaining({ cve: 'CVE-2021-41617', configuration: 'conditional', confirmed: false }),
    );
    const scanner = await t.get(`/v3/index/target-intel?cidr=${ipOf(9)}&explain=true`);
    expect(scanner.body.data[0].cve_evidence).toEqual([
      { cve: 'CVE-2099-0001', source: 'scanner', kind: 'scanner_reported', confirmed: false, confidence: 'medium' },
    ]);
  });

  it('rejects a bad explain value naming the parameter', async () => {
    const { status, body } = await t.get('/v3/index/target-intel?explain=maybe');
    expect(status).toBe(400);
    expect(body.errors.join(' ')).toMatch(/"explain"/);
  });

  it('follows renames from the CPE dictionary: a fingerprint under an old vendor name finds the CVEs of the new one', async () => {
    // igor_sysoev:nginx → nginx:nginx (real sample) → f5:nginx (a deprecation in NVD's shape).
    const dictionary = [
      ...fs
        .readFileSync(fixture('cpe/nvd_cpe_dictionary_api2_samples.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
      {
        cpe: {
          cpeName: 'cpe:2.3:a:nginx:nginx:1.18.0:*:*:*:*:*:*:*',
          cpeNameId: '00000000-0000-4000-8000-000000000001',
          deprecated: true,
          deprecatedBy: [
            { cpeName: 'cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*', cpeNameId: '00000000-0000-4000-8000-000000000002' },
          ],
          lastModified: '2024-01-01T00:00:00.000',
          titles: [{ title: 'Nginx 1.18.0', lang: 'en' }],
        },
      },
    ];
    await ingestCpeDictionary(
      t.storage,
      dictionary.map((value, i) => ({ at: `dictionary:${i + 1}`, value })),
    );
    await t.ingest([
      {
        ip: '203.0.113.9',
        port: 80,
        timestamp: T0,
        fingerprints: [fp('cpe:2.3:a:igor_sysoev:nginx:1.18.0:*:*:*:*:*:*:*')],
      },
    ]);
    const { body } = await t.get('/v3/index/target-intel?cidr=203.0.113.9&explain=true');
    expect(body.data[0].cve).toEqual(['CVE-2021-23017']);
    // Filters follow the renames too: the igor_sysoev:nginx record is nginx's and f5's.
    await productRenamesOf(t.storage, performance.now() + 60_000);
    const ipsOf = async (query: string) =>
      (await t.get(`/v3/index/target-intel?${query}&limit=100`)).body.data.map((r: { ip: string }) => r.ip).sort();
    const f5 = ROWS.flatMap((row, i) => (row.cpes.some((cpe) => cpe.includes(':f5:nginx:')) ? [ipOf(i)] : []));
    expect(await ipsOf('vendor=nginx')).toEqual([...f5, '203.0.113.9'].sort());
    expect(await ipsOf('vendor=f5&product=nginx')).toEqual([...f5, '203.0.113.9'].sort());
    expect(await ipsOf('vendor=igor_sysoev')).toEqual([...f5, '203.0.113.9'].sort());
    expect((await t.get('/v3/index/target-intel?vendor=f5&product=nginx')).body._meta.total_documents).toBe(
      f5.length + 1,
    );
    expect(body.data[0].cve_evidence).toContainEqual(
      expect.objectContaining({
        cve: 'CVE-2021-23017',
        cpe: 'cpe:2.3:a:igor_sysoev:nginx:1.18.0:*:*:*:*:*:*:*',
        alias: 'cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*',
        confirmed: true,
      }),
    );
  });

  it('the ingest matcher confirms what the explaining one does, without keeping evidence', async () => {
    const contexts = ROWS.map((row) => ({ fingerprintCpes: row.cpes, osCpes: row.os ?? [] }));
    const explained = await knowledgeMatcher(t.storage).matchAll(contexts);
    const confirmedOnly = await confirmingMatcher(t.storage).matchAll(contexts);
    expect(confirmingMatcher(t.storage)).not.toBe(knowledgeMatcher(t.storage));
    expect(confirmedOnly.map((m) => m.confirmed)).toEqual(explained.map((m) => m.confirmed));
    expect(confirmedOnly.every((m) => m.evidence.length === 0)).toBe(true);
    expect(explained.some((m) => m.evidence.length > 0)).toBe(true);
  });

  it('re-maps stored records retroactively when a feed update changes applicability', async () => {
    const cve = JSON.parse(fs.readFileSync(path.join(NVD, 'CVE-2021-23017.json'), 'utf8'));
    // NVD narrows the range to end at 1.4.1: the 1.18.0 records lose the CVE, 1.4.0 keeps it.
    cve.configurations[0].nodes[0].cpeMatch[0].versionEndExcluding = '1.4.1';
    cve.lastModified = '2026-11-01T00:00:00.000';
    const registry = new FeedRegistry();
    const matcher = knowledgeMatcher(t.storage);
    const index = t.context.hostIndex.index;
    // The knowledge loaded so far: every record was matched against it on ingest.
    expect((await remapChangedKnowledge(t.storage, index, matcher))?.changed).toBe(0);
    expect(await remapChangedKnowledge(t.storage, index, matcher)).toBeUndefined();
    await loadFeedItems(t.storage, registry.get('nist-nvd2')!, recordsAsItems([convertNvdCve(cve)]), { mode: 'merge' });
    const remap = await remapChangedKnowledge(t.storage, index, matcher);
    expect(remap).toMatchObject({ generation: await t.storage.knowledge.generation(), fullWalk: false });
    // Found through the index: the records running f5:nginx (or a name renamed to it) — 1.4.0, 1.4.1,
    // 1.20.1, no version, 1.18.0 + scanner, igor_sysoev 1.18.0 — and no other.
    expect(remap!.examined).toBe(6);
    // 1.4.1, 1.18.0 (scanner row) and igor_sysoev 1.18.0 lose CVE-2021-23017.
    expect(remap!.changed).toBe(3);
    expect(await remapChangedKnowledge(t.storage, index, matcher)).toBeUndefined();
    await t.context.hostIndex.refresh();
    const { body } = await t.get('/v3/index/target-intel?cve=CVE-2021-23017');
    expect(body.data.map((r: { ip: string }) => r.ip)).toEqual([ipOf(3)]);
    const scannerRow = await t.get(`/v3/index/target-intel?cidr=${ipOf(10)}`);
    expect(scannerRow.body.data[0].cve).toEqual(['CVE-2099-0002']);
  });

  it("puts no CVE of the host's OS guess on a service; the same CPE reported by the service counts", async () => {
    // Fedora 34 is a vulnerable criterion of CVE-2021-44832 in the fixture's NVD configurations.
    const fedora = 'cpe:2.3:o:fedoraproject:fedora:34:*:*:*:*:*:*:*';
    await t.ingest([
      {
        ip: '203.0.113.20',
        port: 3306,
        timestamp: T0,
        fingerprints: [fp('cpe:2.3:a:f5:nginx:1.4.0:*:*:*:*:*:*:*')],
        osCpes: [fedora],
      },
      { ip: '203.0.113.21', port: 8080, timestamp: T0, fingerprints: [], osCpes: [fedora] },
      { ip: '203.0.113.22', port: 443, timestamp: T0, fingerprints: [fp(fedora)] },
    ]);
    const cves = async (ip: string) => (await t.get(`/v3/index/target-intel?cidr=${ip}`)).body.data[0].cve;
    expect(await cves('203.0.113.20')).toEqual(['CVE-2013-2028', 'CVE-2021-23017']);
    expect(await cves('203.0.113.21')).toBeNull();
    expect(await cves('203.0.113.22')).toContain('CVE-2021-44832');
  });
});
