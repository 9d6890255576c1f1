/**
 * `GET /v3/tags/vulncheck-c2` and `GET /v3/pdns/vulncheck-c2`: the addresses and hostnames
 * classified c2 in the index (within the rolling window) and in the loaded classification lists,
 * each once, in order, with its families; text or JSON, valid against the official document and
 * the served one; requests shaped as the official CLI and Python SDK send them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClassificationList } from '../../src/ingest/classifications/apply.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';
import { type OpenApi, OpenApiValidator } from '../support/openapi-validator.js';

const TAGS = '/v3/tags/vulncheck-c2';
const PDNS = '/v3/pdns/vulncheck-c2';
const DAY_MS = 86_400_000;

const official = new OpenApiValidator(
  JSON.parse(fs.readFileSync(fixture('contract/vulncheck-openapi.lookups.json'), 'utf8')) as OpenApi,
  'c2-lists-official',
);

/** The index's records: two ports of one C2 address, an IPv6 one, one without a family, and records that must not be listed. */
const OBSERVATIONS = [
  { ip: '192.0.2.10', port: 443, hostnames: ['c2.example.net'], classifications: ['c2:cobalt_strike'] },
  { ip: '192.0.2.10', port: 8443, hostnames: ['c2.example.net'], classifications: ['c2:sliver'] },
  { ip: '192.0.2.20', port: 80, hostnames: ['beacon.example.org'], classifications: ['c2'] },
  { ip: '2001:db8::5', port: 443, hostnames: ['Mythic.Example.COM'], classifications: ['c2:mythic'] },
  { ip: '192.0.2.30', port: 9050, hostnames: ['relay.example.net'], classifications: ['proxy:tor'] },
  // Classified only by the tagged list below.
  { ip: '192.0.2.40', port: 80, hostnames: ['listed.example.net'] },
];

/** Observed before the 30-day window: the index holds it until the sweeper runs, the lists do not show it. */
const STALE = {
  ip: '192.0.2.50',
  port: 443,
  hostnames: ['stale.example.net'],
  classifications: ['c2:havoc'],
  timestamp: Date.now() - 40 * DAY_MS,
};

const TAGGED_LIST = [
  'ip,tag',
  '192.0.2.40,Sliver C2 IPs',
  '198.51.100.0/24,Cobalt Strike C2 IPs',
  '192.0.2.10,Cobalt Strike C2 IPs',
];
const PLAIN_LIST = ['# c2 addresses', '203.0.113.5', '198.51.100.0/24', '2001:db8:1::/48', '203.0.113.8/30'];

const EXPECTED_ADDRESSES = [
  { ip: '192.0.2.10', families: ['cobalt_strike', 'sliver'] },
  { ip: '192.0.2.20' },
  { ip: '192.0.2.40', families: ['sliver'] },
  { ip: '198.51.100.0/24', families: ['cobalt_strike'] },
  { ip: '203.0.113.5' },
  { ip: '203.0.113.8/30' },
  { ip: '2001:db8::5', families: ['mythic'] },
  { ip: '2001:db8:1::/48' },
];

const EXPECTED_HOSTNAMES = [
  { hostname: 'beacon.example.org' },
  { hostname: 'c2.example.net', families: ['cobalt_strike', 'sliver'] },
  { hostname: 'listed.example.net', families: ['sliver'] },
  { hostname: 'mythic.example.com', families: ['mythic'] },
];

describe.each(engineCases())('the C2 lists on $name', (engine) => {
  let t: TestApp;
  let served: OpenApiValidator;
  let dir: string;

  const writeList = (name: string, lines: string[]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  const loadTagged = (lines: string[]) =>
    loadClassificationList(t.storage, writeList('c2-tracker.csv', lines), {
      ipColumn: 'ip',
      tagColumn: 'tag',
      as: 'c2',
    });
  const loadPlain = (lines: string[]) => loadClassificationList(t.storage, writeList('c2.txt', lines), { as: 'c2' });

  const get = async (url: string, headers: Record<string, string> = { authorization: `Bearer ${t.token}` }) => {
    const response = await t.app.inject({ method: 'GET', url, headers });
    return {
      status: response.statusCode,
      media: String(response.headers['content-type'] ?? '').split(';')[0]!,
      text: response.body,
    };
  };
  /** The list's lines, after checking the text answer against both documents. */
  const linesOf = async (url: string, headers?: Record<string, string>) => {
    const answer = await get(url, headers);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.media).toBe('text/plain');
    const path = url.split('?')[0]!;
    expect(served.responseProblems(path, 'get', 200, 'text/plain', answer.text)).toEqual([]);
    expect(official.responseProblems(path, 'get', 200, 'application/json', answer.text)).toEqual([]);
    return answer.text === '' ? [] : answer.text.split('\n');
  };
  const jsonOf = async (url: string, headers?: Record<string, string>) => {
    const answer = await get(url, headers);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.media).toBe('application/json');
    const body = JSON.parse(answer.text) as unknown;
    expect(served.responseProblems(url.split('?')[0]!, 'get', 200, 'application/json', body)).toEqual([]);
    return body;
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { VULNSCOPE_RETENTION_DAYS: '30' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vulnscope-c2-lists-'));
    await t.ingest(OBSERVATIONS);
    // Ingest drops what is already past the window; the record stands for one that has aged out since.
    await t.ingest([STALE], { retentionDays: 0 });
    await loadTagged(TAGGED_LIST);
    await loadPlain(PLAIN_LIST);
    await t.context.hostIndex.refresh();
    served = new OpenApiValidator((await t.get('/openapi.json', null)).body as OpenApi, `c2-lists-${engine.name}`);
  });
  afterAll(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('tags: the addresses of the index and of the lists, each once, in address order, as text by default', async () => {
    const expected = EXPECTED_ADDRESSES.map((entry) => entry.ip);
    expect(await linesOf(TAGS)).toEqual(expected);
    expect(await linesOf(`${TAGS}?format=text`)).toEqual(expected);
    expect(await linesOf(`${TAGS}?format=txt`)).toEqual(expected);
  });

  it('tags as JSON: each address with its families', async () => {
    expect(await jsonOf(`${TAGS}?format=json`)).toEqual(EXPECTED_ADDRESSES);
    expect(await jsonOf(`${TAGS}?format=JSON`)).toEqual(EXPECTED_ADDRESSES);
  });

  it('pdns: the hostnames of the classified records, lists included, in order, as text or JSON', async () => {
    expect(await linesOf(PDNS)).toEqual(EXPECTED_HOSTNAMES.map((entry) => entry.hostname));
    expect(await linesOf(`${PDNS}?format=txt`)).toEqual(EXPECTED_HOSTNAMES.map((entry) => entry.hostname));
    expect(await jsonOf(`${PDNS}?format=json`)).toEqual(EXPECTED_HOSTNAMES);
  });

  it('the record past the window is still indexed, but listed nowhere', async () => {
    const indexed = await t.get('/v3/index/target-intel?classifications=c2:havoc');
    expect(indexed.body._meta.total_documents).toBe(1);
    expect(await linesOf(TAGS)).not.toContain(STALE.ip);
    expect(await linesOf(PDNS)).not.toContain('stale.example.net');
  });

  it('as the official CLI asks (Accept: application/json, no format): text, one entry per line', async () => {
    const headers = { authorization: `Bearer ${t.token}`, accept: 'application/json' };
    expect(await linesOf(TAGS, headers)).toEqual(EXPECTED_ADDRESSES.map((entry) => entry.ip));
    expect(await linesOf(PDNS, headers)).toEqual(EXPECTED_HOSTNAMES.map((entry) => entry.hostname));
  });

  it('as the official Python SDK asks (the bare token, its own query encoding)', async () => {
    const headers = {
      authorization: t.token,
      accept: 'application/json',
      'user-agent': 'OpenAPI-Generator/0.0.51/python',
    };
    expect(await linesOf(`${TAGS}?format=text`, headers)).toEqual(EXPECTED_ADDRESSES.map((entry) => entry.ip));
    expect(await jsonOf(`${PDNS}?format=json`, headers)).toEqual(EXPECTED_HOSTNAMES);
  });

  it.each([
    [`${TAGS}?format=csv`, 'format'],
    [`${PDNS}?format=xml`, 'format'],
    [`${TAGS}?format=json&format=text`, 'format'],
    [`${PDNS}?limit=10`, 'limit'],
  ])('400 for %s, naming the parameter', async (url, parameter) => {
    const answer = await get(url);
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.text) as { error: boolean; errors: string[] };
    expect(body.error).toBe(true);
    expect(body.errors.join(' ')).toContain(parameter);
    expect(served.responseProblems(url.split('?')[0]!, 'get', 400, 'application/json', body)).toEqual([]);
  });

  it.each([TAGS, PDNS])('401 without a token or with an unknown one: %s', async (url) => {
    expect((await get(url, {})).status).toBe(401);
    expect((await get(url, { authorization: 'Bearer not-a-token' })).status).toBe(401);
  });

  it('other list names are not served (404 in the error shape)', async () => {
    const answer = await get('/v3/tags/vulncheck-honeypot');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toMatchObject({ error: true });
  });

  describe('what stops being c2 leaves the lists', () => {
    afterAll(async () => {
      await loadTagged(TAGGED_LIST);
      await loadPlain(PLAIN_LIST);
    });

    it('a record whose newer observation has no classification', async () => {
      await t.ingest([{ ip: '192.0.2.20', port: 80, hostnames: ['beacon.example.org'], timestamp: Date.now() + 1000 }]);
      expect(await linesOf(TAGS)).not.toContain('192.0.2.20');
      expect(await linesOf(PDNS)).not.toContain('beacon.example.org');
    });

    it('an address a replaced list no longer has, and the hostname it classified', async () => {
      await loadTagged(TAGGED_LIST.filter((line) => !line.startsWith('192.0.2.40')));
      await loadPlain(PLAIN_LIST.filter((line) => line !== '203.0.113.5'));
      await t.context.hostIndex.refresh();
      const addresses = await linesOf(TAGS);
      expect(addresses).not.toContain('192.0.2.40');
      expect(addresses).not.toContain('203.0.113.5');
      expect(addresses).toContain('198.51.100.0/24');
      expect(await linesOf(PDNS)).not.toContain('listed.example.net');
    });

    it('everything: the lists are empty bodies, text and JSON', async () => {
      await t.ingest(
        OBSERVATIONS.map((observation) => ({ ...observation, classifications: [], timestamp: Date.now() + 2000 })),
      );
      await loadClassificationList(t.storage, writeList('c2-tracker.csv', ['ip,tag']), {
        ipColumn: 'ip',
        tagColumn: 'tag',
        as: 'c2',
        guard: { allowEmpty: true },
      });
      await loadClassificationList(t.storage, writeList('c2.txt', ['# none']), {
        as: 'c2',
        guard: { allowEmpty: true },
      });
      await t.context.hostIndex.refresh();
      expect(await linesOf(TAGS)).toEqual([]);
      expect(await linesOf(PDNS)).toEqual([]);
      expect(await jsonOf(`${TAGS}?format=json`)).toEqual([]);
      expect(await jsonOf(`${PDNS}?format=json`)).toEqual([]);
    });
  });
});
