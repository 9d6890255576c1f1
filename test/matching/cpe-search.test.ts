/**
 * GET /v3/search/cpe over the real sample data: the NVD CPE dictionary and match-criteria samples
 * (names) and the NVD records of test/fixtures/nvd (CVEs). Expected CVE lists derived by hand
 * from the records' configurations.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFeedSources } from '../../src/ingest/feeds/load.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { ingestCpeDictionary, readCpeDictionarySources } from '../../src/ingest/knowledge/dictionary.js';
import { startTestApp, type TestApp } from '../support/app.js';

import { validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';

const DICTIONARY = fixture('cpe/nvd_cpe_dictionary_api2_samples.jsonl');
const MATCHES = fixture('cpe/nvd_cpematch_api2_samples.jsonl');
const SCHEMA = 'render.ResponseWithMetadata-search_Responses-search_ResponseMetadata';

/** Every distinct name the samples list for a vendor:product (read straight from the files). */
function sampleNames(vendor: string, product: string): string[] {
  const names = new Set<string>();
  for (const file of [DICTIONARY, MATCHES]) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      const value = JSON.parse(line);
      const listed = value.cpe
        ? [value.cpe.cpeName]
        : (value.matchString?.matches ?? []).map((m: { cpeName: string }) => m.cpeName);
      for (const name of listed as string[])
        if (name.split(':')[3] === vendor && name.split(':')[4] === product) names.add(name.toLowerCase());
    }
  }
  return [...names].sort();
}

type Row = { cpe: string; cves: string[]; cpe_struct: Record<string, string> };

describe.each(engineCases())('GET /v3/search/cpe ($name)', (engine) => {
  let t: TestApp;
  const search = async (query: string) => t.get(`/v3/search/cpe?${query}`);
  const byCpe = (rows: Row[]) => Object.fromEntries(rows.map((row) => [row.cpe, row.cves]));

  beforeAll(async () => {
    t = await startTestApp(engine);
    await ingestCpeDictionary(t.storage, readCpeDictionarySources([DICTIONARY, MATCHES]));
    await loadFeedSources(t.storage, new FeedRegistry().get('nist-nvd2')!, [fixture('nvd')]);
  });
  afterAll(() => t?.close());

  it("lists a product's names in _id order with exact totals, names without CVEs included, valid against the contract", async () => {
    const { status, body } = await search('vendor=Apache&product=HTTP_Server');
    expect(status).toBe(200);
    expect(validateAgainst(SCHEMA, body)).toEqual([]);
    const expected = sampleNames('apache', 'http_server');
    expect(body._meta.total_documents).toBe(expected.length);
    expect(body.data.map((row: Row) => row.cpe.toLowerCase())).toEqual(expected);
    // No record in test/fixtures/nvd has an apache:http_server criterion.
    expect(body.data.every((row: Row) => row.cves.length === 0)).toBe(true);
    expect(body._meta).toMatchObject({
      limit: 100,
      sort: '_id',
      order: 'asc',
      page: 1,
      total_pages: 1,
      first_item: 1,
      last_item: expected.length,
    });
  });

  it('gives cpe_struct as WFN strings with quoted specials', async () => {
    const { body } = await search('vendor=apache&product=http_server&version=2.4.49');
    expect(body.data).toHaveLength(1);
    expect(body.data[0].cpe).toBe('cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*');
    expect(body.data[0].cpe_struct).toEqual({
      part: 'a',
      vendor: 'apache',
      product: 'http_server',
      version: '2\\.4\\.49',
      update: '*',
      edition: '*',
      language: '*',
      sw_edition: '*',
      target_sw: '*',
      target_hw: '*',
      other: '*',
    });
  });

  it.each([
    // CVE-2022-40684: [7.2.0, 7.2.2); CVE-2024-23113: [7.2.0, 7.2.6].
    ['7.2.0', ['CVE-2022-40684', 'CVE-2024-23113']],
    ['7.2.1', ['CVE-2022-40684', 'CVE-2024-23113']],
    ['7.2.2', ['CVE-2024-23113']],
    ['7.2.4', ['CVE-2024-23113']],
  ])('fortios %s → %j', async (version, cves) => {
    const { body } = await search(`part=o&vendor=fortinet&product=fortios&version=${version}`);
    expect(body.data.map((row: Row) => row.cves)).toEqual([cves]);
  });

  it('matches openssh names with the update folded (8.6p1 inside CVE-2021-41617 [6.2, 8.8))', async () => {
    const { body } = await search('vendor=openbsd&product=openssh&version=8.6');
    const cves = byCpe(body.data);
    expect(cves['cpe:2.3:a:openbsd:openssh:8.6:p1:*:*:*:*:*:*']).toEqual(['CVE-2021-41617']);
    expect(cves['cpe:2.3:a:openbsd:openssh:8.6:-:*:*:*:*:*:*']).toEqual(['CVE-2021-41617']);
    const newer = await search('vendor=openbsd&product=openssh&version=9.7');
    expect(newer.body.data.every((row: Row) => row.cves.length === 0)).toBe(true);
  });

  it('treats a trailing * in version as a prefix', async () => {
    const dotted = await search('vendor=fortinet&product=fortios&version=7.2.*');
    expect(dotted.body._meta.total_documents).toBe(5);
    const bare = await search('vendor=fortinet&product=fortios&version=7*');
    expect(bare.body._meta.total_documents).toBe(5);
    const none = await search('vendor=fortinet&product=fortios&version=7.3*');
    expect(none.body._meta.total_documents).toBe(0);
    expect(none.body.data).toEqual([]);
  });

  it('isVulnerable=true keeps only CVEs where the name is the vulnerable element, not a platform', async () => {
    // CVE-2021-41617: AND[ OR[h:netapp:aff_a250:- vulnerable:false], OR[o:netapp:aff_a250_firmware:- vulnerable:true] ].
    const any = await search('part=h&vendor=netapp&product=aff_a250');
    expect(any.body.data.map((row: Row) => [row.cpe, row.cves])).toEqual([
      ['cpe:2.3:h:netapp:aff_a250:-:*:*:*:*:*:*:*', ['CVE-2021-41617']],
    ]);
    const vulnerable = await search('part=h&vendor=netapp&product=aff_a250&isVulnerable=true');
    expect(vulnerable.body.data.map((row: Row) => row.cves)).toEqual([[]]);
    const firmware = await search('part=o&vendor=netapp&product=aff_a250_firmware&isVulnerable=true');
    expect(firmware.body.data.map((row: Row) => row.cves)).toEqual([['CVE-2021-41617']]);
  });

  it('walks pages in _id order without moving an item, both orders', async () => {
    const all = (await search('vendor=apache&product=http_server')).body.data.map((row: Row) => row.cpe);
    const walked: string[] = [];
    for (let page = 1; ; page++) {
      const { body } = await search(`vendor=apache&product=http_server&limit=7&page=${page}`);
      if (body.data.length === 0) break;
      expect(body._meta.total_pages).toBe(Math.ceil(all.length / 7));
      walked.push(...body.data.map((row: Row) => row.cpe));
    }
    expect(walked).toEqual(all);
    const desc = await search('vendor=apache&product=http_server&order=desc');
    expect(desc.body.data.map((row: Row) => row.cpe)).toEqual([...all].reverse());
  });

  it('counts every name even past the window', async () => {
    const { body } = await search('limit=1&page=10000');
    expect(body._meta.total_documents).toBeGreaterThan(100);
    expect(body.data).toEqual([]);
  });

  it.each([
    [
      'page=101&limit=100',
      /failed to compose the search query: invalid pagination parameters: .*maximum result window of 10000 \(received page=101, limit=100\)/,
    ],
    ['part=x', /"part"/],
    ['isVulnerable=maybe', /"isVulnerable"/],
    ['limit=500', /"limit"/],
    ['sort=cpe', /"sort"/],
    ['bogus=1', /bogus/],
  ])('%s → 400', async (query, message) => {
    const { status, body } = await search(query);
    expect(status).toBe(400);
    expect(body.error).toBe(true);
    expect(body.errors.join(' ')).toMatch(message);
  });

  it('needs a token', async () => {
    expect((await t.get('/v3/search/cpe?vendor=apache', null)).status).toBe(401);
  });
});
