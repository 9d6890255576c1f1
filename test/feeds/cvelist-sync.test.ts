import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isReleaseApiUrl } from '../../src/ingest/feeds/cvelist-release.js';
import { FeedRegistry } from '../../src/services/feed-registry.js';
import { syncFeed } from '../../src/ingest/feeds/sync.js';
import { createStorage, type Storage } from '../../src/storage/index.js';

import { sqliteCase } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';

/**
 * `sync mitre-cvelist-v5` from a cvelistV5 release: the GitHub release description resolved to its
 * `…_all_CVEs_at_midnight.zip.zip` asset (a zip holding `cves.zip`), downloaded conditionally and
 * loaded in replace mode; a plain zip of CVE JSON files works the same way.
 */

const EXAMPLES = fixture('cve5-examples');
const RELEASE = '/repos/CVEProject/cvelistV5/releases/latest';
const ASSET = '/download/cve_2026-11-21_0000Z/2026-11-21_all_CVEs_at_midnight.zip.zip';

async function vulnrichmentRecords(count: number): Promise<Array<{ id: string; json: string }>> {
  const input = fs.createReadStream(fixture('cve5-vulnrichment.sample.ndjson.gz')).pipe(zlib.createGunzip());
  const reader = readline.createInterface({ input, crlfDelay: Infinity });
  const records: Array<{ id: string; json: string }> = [];
  for await (const line of reader) {
    if (line.trim() === '') continue;
    records.push({ id: (JSON.parse(line) as { cveMetadata: { cveId: string } }).cveMetadata.cveId, json: line });
    if (records.length >= count) break;
  }
  reader.close();
  input.destroy();
  return records;
}

function zipOf(entries: Array<[string, Buffer | string]>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of entries) zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** The cvelistV5 tree: `cves/<year>/<n>xxx/CVE-….json`, plus the delta files the adapter ignores. */
function treeEntries(records: Array<{ id: string; json: string }>): Array<[string, string]> {
  const entries: Array<[string, string]> = records.map(({ id, json }) => {
    const [, year, number] = /^CVE-(\d{4})-(\d+)$/.exec(id)!;
    return [`cves/${year}/${number!.slice(0, -3) || '0'}xxx/${id}.json`, json];
  });
  entries.push([
    'cves/delta.json',
    JSON.stringify({ fetchTime: '2026-11-21T00:00:00Z', numberOfChanges: 0, new: [], updated: [] }),
  ]);
  entries.push(['cves/deltaLog.json', '[]']);
  return entries;
}

let server: http.Server;
let base: string;
const files = new Map<string, Buffer>();
const requests: Array<{ url: string; conditional: boolean }> = [];
let releaseBody: unknown;
let ids: string[];

beforeAll(async () => {
  const records = [
    { id: 'CVE-1900-1234', json: fs.readFileSync(path.join(EXAMPLES, 'full-record-advanced-example.json'), 'utf8') },
    ...(await vulnrichmentRecords(20)),
  ];
  ids = records.map((r) => r.id);
  const inner = await zipOf(treeEntries(records));
  files.set(ASSET, await zipOf([['cves.zip', inner]]));
  files.set('/flat/cvelistV5-main.zip', await zipOf(treeEntries(records.slice(0, 8))));
  files.set('/empty/cvelistV5-main.zip', await zipOf(treeEntries([])));
  server = http.createServer((request, response) => {
    const url = request.url ?? '';
    requests.push({ url, conditional: request.headers['if-none-match'] !== undefined });
    if (url === RELEASE) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(releaseBody));
      return;
    }
    const body = files.get(url);
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    const etag = `"${body.length}-${body.readUInt32LE(body.length - 6)}"`;
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/zip', 'content-length': body.length, etag }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let storage: Storage;
let drop: () => Promise<void>;
beforeEach(async () => {
  const fresh = await sqliteCase.fresh();
  drop = fresh.drop;
  storage = await createStorage(fresh.config);
  requests.length = 0;
  releaseBody = {
    tag_name: 'cve_2026-11-21_0000Z',
    assets: [
      { name: '2026-11-21_delta_CVEs_at_midnight.zip', browser_download_url: `${base}/download/delta.zip` },
      { name: '2026-11-21_all_CVEs_at_midnight.zip.zip', browser_download_url: `${base}${ASSET}` },
    ],
  };
});
afterEach(async () => {
  await storage.close();
  await drop();
});

describe('sync mitre-cvelist-v5 from a cvelistV5 release', () => {
  it('resolves the latest release to its complete-list asset, reads the nested cves.zip, and skips an unchanged asset', async () => {
    const registry = new FeedRegistry();
    const first = await syncFeed(storage, registry, 'mitre-cvelist-v5', { cvelistUrl: `${base}${RELEASE}` });
    expect(first).toMatchObject({
      feed: 'mitre-cvelist-v5',
      source: `${base}${ASSET}`,
      notModified: false,
      rejected: 0,
    });
    if (first.notModified) throw new Error('unreachable');
    expect(first.records).toBe(new Set(ids).size);
    expect(first.read).toBe(ids.length);
    const row = await storage.db.get<{ record: string }>(
      `SELECT record FROM advisories WHERE feed = 'mitre-cvelist-v5' AND record_id = ? AND gen_to IS NULL`,
      [ids[5]!],
    );
    expect(JSON.parse(row!.record).cveMetadata.cveId).toBe(ids[5]);
    expect(requests.map((r) => r.url)).toEqual([RELEASE, ASSET]);

    const again = await syncFeed(storage, registry, 'mitre-cvelist-v5', { cvelistUrl: `${base}${RELEASE}` });
    expect(again).toEqual({ feed: 'mitre-cvelist-v5', source: `${base}${ASSET}`, notModified: true });
    expect(requests.slice(2)).toEqual([
      { url: RELEASE, conditional: false },
      { url: ASSET, conditional: true },
    ]);
  });

  it('replaces the feed with a release zip of CVE JSON files (no inner zip) given as the source', async () => {
    const registry = new FeedRegistry([
      { name: 'mitre-cvelist-v5', adapter: 'mitre-cvelist-v5', source: `${base}${ASSET}` },
    ]);
    await syncFeed(storage, registry, 'mitre-cvelist-v5', {});
    const flat = new FeedRegistry([
      { name: 'mitre-cvelist-v5', adapter: 'mitre-cvelist-v5', source: `${base}/flat/cvelistV5-main.zip` },
    ]);
    const replaced = await syncFeed(storage, flat, 'mitre-cvelist-v5', { cvelistUrl: `${base}/never-used` });
    expect(replaced).toMatchObject({ notModified: false, read: 8, unchanged: 8, removed: ids.length - 8, records: 8 });
    expect(requests.map((r) => r.url)).toEqual([ASSET, '/flat/cvelistV5-main.zip']);
  });

  it('a download without records does not replace the feed (the load guard), and is not remembered as synced', async () => {
    const registry = new FeedRegistry([
      { name: 'mitre-cvelist-v5', adapter: 'mitre-cvelist-v5', source: `${base}${ASSET}` },
    ]);
    await syncFeed(storage, registry, 'mitre-cvelist-v5', {});
    const before = await storage.advisories.feed('mitre-cvelist-v5');
    const empty = new FeedRegistry([
      { name: 'mitre-cvelist-v5', adapter: 'mitre-cvelist-v5', source: `${base}/empty/cvelistV5-main.zip` },
    ]);
    await expect(syncFeed(storage, empty, 'mitre-cvelist-v5', {})).rejects.toMatchObject({
      code: 'load_refused',
      message: `feed mitre-cvelist-v5 not replaced: nothing was read from ${base}/empty/cvelistV5-main.zip; it keeps its ${new Set(ids).size} records`,
    });
    expect(await storage.advisories.feed('mitre-cvelist-v5')).toEqual(before);
    // Not remembered: the next sync downloads it again rather than skipping it as unchanged.
    await expect(syncFeed(storage, empty, 'mitre-cvelist-v5', {})).rejects.toMatchObject({ code: 'load_refused' });
    expect(requests.filter((r) => r.url.startsWith('/empty')).map((r) => r.conditional)).toEqual([false, false]);
    const allowed = await syncFeed(storage, empty, 'mitre-cvelist-v5', { guard: { allowEmpty: true } });
    expect(allowed).toMatchObject({ notModified: false, records: 0 });
  });

  it('says so when the release has no complete-list asset', async () => {
    releaseBody = {
      assets: [{ name: '2026-11-21_delta_CVEs_at_midnight.zip', browser_download_url: `${base}/download/delta.zip` }],
    };
    await expect(
      syncFeed(storage, new FeedRegistry(), 'mitre-cvelist-v5', { cvelistUrl: `${base}${RELEASE}` }),
    ).rejects.toThrow(/no "…_all_CVEs_at_midnight.zip" asset \(assets: 2026-11-21_delta_CVEs_at_midnight.zip\)/);
    expect(await storage.advisories.feed('mitre-cvelist-v5')).toBeUndefined();
  });

  it.each([
    ['https://api.github.com/repos/CVEProject/cvelistV5/releases/latest', true],
    ['https://api.github.com/repos/CVEProject/cvelistV5/releases/tags/cve_2026-11-21_0000Z', true],
    ['https://api.github.com/repos/CVEProject/cvelistV5/releases/12345', true],
    [
      'https://github.com/CVEProject/cvelistV5/releases/download/cve_2026-11-21_0000Z/2026-11-21_all_CVEs_at_midnight.zip.zip',
      false,
    ],
    ['https://github.com/CVEProject/cvelistV5/archive/refs/heads/main.zip', false],
  ])('%s is a release description: %s', (url, expected) => {
    expect(isReleaseApiUrl(url)).toBe(expected);
  });
});
