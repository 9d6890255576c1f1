/**
 * GET /v3/cpe over the real sample data of the CPE search tests (NVD CPE dictionary and match
 * criteria samples, the NVD records of test/fixtures/nvd): the CVEs of the CPE itself and of the
 * names it matches, checked against the CPE search answers and against the official schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFeedSources } from '../../src/ingest/feeds/load.js';
import { ingestCpeDictionary, readCpeDictionarySources } from '../../src/ingest/knowledge/dictionary.js';
import { CpeNameIndex } from '../../src/search/cpe-names/index.js';
import { lookupCpe } from '../../src/server/routes/cpe-lookup/lookup.js';
import { parseCpeLookup } from '../../src/server/routes/cpe-lookup/query.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { contractOf } from '../support/contract-of.js';
import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';
import { type OpenApi, OpenApiValidator } from '../support/openapi-validator.js';

const DICTIONARY = fixture('cpe/nvd_cpe_dictionary_api2_samples.jsonl');
const MATCHES = fixture('cpe/nvd_cpematch_api2_samples.jsonl');
const FORTIOS_720 = ['CVE-2022-40684', 'CVE-2024-23113'];

describe.each(engineCases())('GET /v3/cpe ($name)', (engine) => {
  let t: TestApp;
  let served: OpenApiValidator;
  const lookup = async (cpe: string, extra = '') => t.get(`/v3/cpe?cpe=${encodeURIComponent(cpe)}${extra}`);
  const cvesOf = async (cpe: string, extra = '') => {
    const { status, body } = await lookup(cpe, extra);
    expect(status, JSON.stringify(body)).toBe(200);
    return body.data as string[];
  };
  /** Every CVE CPE search lists for the names of a search (all pages). */
  const searchUnion = async (query: string) => {
    const cves = new Set<string>();
    for (let page = 1; ; page++) {
      const { body } = await t.get(`/v3/search/cpe?${query}&page=${page}`);
      for (const row of body.data as Array<{ cves: string[] }>) for (const cve of row.cves) cves.add(cve);
      if (page >= body._meta.total_pages) return [...cves].sort();
    }
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    await ingestCpeDictionary(t.storage, readCpeDictionarySources([DICTIONARY, MATCHES]));
    await loadFeedSources(t.storage, new FeedRegistry().get('nist-nvd2')!, [fixture('nvd')]);
    served = new OpenApiValidator((await t.get('/openapi.json')).body as OpenApi, 'served');
  });
  afterAll(() => t?.close());

  it('answers a CPE 2.3 name in the official shape, valid against the official and the served schemas', async () => {
    const cpe = 'cpe:2.3:o:fortinet:fortios:7.2.0:*:*:*:*:*:*:*';
    const { status, body } = await lookup(cpe);
    expect(status).toBe(200);
    expect(contractOf('/v3/cpe')!(body)).toEqual([]);
    expect(served.responseProblems('/v3/cpe', 'get', 200, 'application/json', body)).toEqual([]);
    expect(body.data).toEqual(FORTIOS_720);
    expect(body._meta).toMatchObject({ cpe, total_documents: 2 });
    expect(body._meta.cpe_struct).toMatchObject({
      part: 'o',
      vendor: 'fortinet',
      product: 'fortios',
      version: '7\\.2\\.0',
    });
    expect(typeof body._benchmark).toBe('number');
  });

  it.each([
    // CVE-2022-40684: [7.2.0, 7.2.2); CVE-2024-23113: [7.2.0, 7.2.6].
    ['cpe:2.3:o:fortinet:fortios:7.2.1', FORTIOS_720],
    ['cpe:/o:fortinet:fortios:7.2.1', FORTIOS_720],
    ['CPE:2.3:O:Fortinet:FortiOS:7.2.1', FORTIOS_720],
    ['cpe:2.3:o:fortinet:fortios:7.2.2', ['CVE-2024-23113']],
    // Not a dictionary name: the CPE itself is evaluated against the ranges.
    ['cpe:2.3:o:fortinet:fortios:7.2.3', ['CVE-2024-23113']],
    ['cpe:2.3:o:fortinet:fortios:7.4.9', []],
    // No dictionary name has version 7.2; as a version it orders equal to 7.2.0.
    ['cpe:/o:fortinet:fortios:7.2', FORTIOS_720],
    // 8.6 with update ANY: itself ([6.2, 8.8)) and the names 8.6:p1, 8.6:- it matches.
    ['cpe:2.3:a:openbsd:openssh:8.6', ['CVE-2021-41617']],
    ['cpe:2.3:a:openbsd:openssh:9.7', []],
    ['cpe:2.3:a:no_such_vendor:no_such_product:1.0', []],
  ])('%s → %j', async (cpe, expected) => {
    expect(await cvesOf(cpe)).toEqual(expected);
  });

  it.each([
    ['cpe:2.3:o:fortinet:fortios', 'part=o&vendor=fortinet&product=fortios'],
    ['cpe:2.3:*:fortinet:fortios:*:*:*:*:*:*:*:*', 'vendor=fortinet&product=fortios'],
    ['cpe:/o:fortinet:fortios', 'part=o&vendor=fortinet&product=fortios'],
    ['cpe:2.3:o:fortinet:fortios:7.2.*', 'part=o&vendor=fortinet&product=fortios&version=7.2.*'],
    ['cpe:2.3:a:*:openssh', 'product=openssh'],
    ['cpe:2.3:a:openbsd', 'part=a&vendor=openbsd'],
  ])('%s unites the CVEs CPE search lists for %s', async (cpe, search) => {
    const union = await searchUnion(search);
    expect(await cvesOf(cpe)).toEqual(union);
    expect(union.length).toBeGreaterThan(0);
  });

  it('selects names by the attributes past the version too', async () => {
    const all = await cvesOf('cpe:2.3:a:openbsd:openssh:8.6');
    expect(await cvesOf('cpe:2.3:a:openbsd:openssh:8.6:p1')).toEqual(all);
    // No name of openssh 8.6 runs on windows, and the range criterion asks for any target_sw only of names.
    expect(await cvesOf('cpe:2.3:a:openbsd:openssh:8.6:p1:*:*:*:windows')).toEqual(all);
    expect(await cvesOf('cpe:2.3:a:openbsd:openssh:*:p1:*:*:*:*:*:*')).toEqual(
      await searchUnion('vendor=openbsd&product=openssh'),
    );
  });

  it('isVulnerable=true keeps only CVEs where the CPE is the vulnerable element', async () => {
    // CVE-2021-41617: AND[ OR[h:netapp:aff_a250:- vulnerable:false], OR[o:netapp:aff_a250_firmware:- vulnerable:true] ].
    expect(await cvesOf('cpe:2.3:h:netapp:aff_a250:-')).toEqual(['CVE-2021-41617']);
    expect(await cvesOf('cpe:2.3:h:netapp:aff_a250:-', '&isVulnerable=true')).toEqual([]);
    expect(await cvesOf('cpe:2.3:h:netapp:aff_a250:-', '&isVulnerable=FALSE')).toEqual(['CVE-2021-41617']);
    expect(await cvesOf('cpe:2.3:o:netapp:aff_a250_firmware:-', '&isVulnerable=true')).toEqual(['CVE-2021-41617']);
  });

  it('answers the official Python SDK: a bare Authorization header and its query encoding', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/v3/cpe?cpe=cpe%3A2.3%3Ao%3Afortinet%3Afortios%3A7.2.0%3A%2A%3A%2A%3A%2A%3A%2A%3A%2A%3A%2A%3A%2A&isVulnerable=true',
      headers: { authorization: t.token, 'user-agent': 'OpenAPI-Generator/1.0.0/python' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual(FORTIOS_720);
  });

  it('needs a token', async () => {
    const { status, body } = await lookup('cpe:2.3:o:fortinet:fortios:7.2.0', '&token=');
    expect(status).toBe(200);
    expect(body.data).toEqual(FORTIOS_720);
    const anonymous = await t.get('/v3/cpe?cpe=cpe:2.3:o:fortinet:fortios:7.2.0', null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: true, errors: [expect.any(String)] });
  });

  it.each([
    ['', /"cpe"/],
    ['cpe=', /"cpe"/],
    ['cpe=apache:http_server', /"cpe"/],
    ['cpe=cpe:2.3:a:*:*', /"cpe".*vendor or a product/],
    ['cpe=cpe:2.3:a', /"cpe".*vendor or a product/],
    ['cpe=cpe:2.3:a:apa*:http_server', /"cpe".*vendor/],
    ['cpe=cpe:2.3:a:apache:http_serv?r', /"cpe".*product/],
    ['cpe=cpe:2.3:a:-:http_server', /"cpe".*vendor/],
    ['cpe=cpe:2.3:-:apache:http_server', /"cpe".*part/],
    ['cpe=cpe:2.3:a:apache:http_server:2.*.1', /"cpe".*version/],
    ['cpe=cpe:2.3:a:apache:http_server:*2.4', /"cpe".*version/],
    ['cpe=cpe:2.3:x:apache:http_server', /"cpe"/],
    [`cpe=cpe:2.3:a:apache:${'a'.repeat(500)}`, /"cpe"/],
    ['cpe=cpe:2.3:a:apache:http_server&isVulnerable=maybe', /"isVulnerable"/],
    ['cpe=cpe:2.3:a:apache:http_server&limit=10', /"limit"/],
    ['cpe=cpe:2.3:a:apache:http_server&cpe=cpe:2.3:a:apache:tomcat', /"cpe"/],
  ])('?%s is a 400 naming the parameter', async (query, message) => {
    const { status, body } = await t.get(`/v3/cpe?${query}`);
    expect(status).toBe(400);
    expect(body.error).toBe(true);
    expect(body.errors.join(' ')).toMatch(message);
  });

  it('refuses a CPE matching more names than one lookup unites, saying how to narrow it', async () => {
    const names = new CpeNameIndex(t.storage.knowledge);
    const query = parseCpeLookup({ cpe: 'cpe:2.3:o:fortinet:fortios' });
    await expect(lookupCpe(t.storage, names, query, 4)).rejects.toThrow(
      /"cpe": "cpe:2.3:o:fortinet:fortios" matches \d+ CPE names, more than the 4 .*name a version/,
    );
    expect(await lookupCpe(t.storage, names, parseCpeLookup({ cpe: 'cpe:2.3:o:fortinet:fortios:7.2.0' }), 4)).toEqual(
      FORTIOS_720,
    );
  });
});
