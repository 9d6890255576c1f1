import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBackup } from '../../src/backup/service.js';
import { feedSource } from '../../src/backup/sources.js';
import { BackupStore } from '../../src/backup/store.js';
import { engineCases } from '../support/engines.js';
import { download, FEED, loadFeed, local, startBackupApp, type BackupTestApp } from '../backup/support.js';

/**
 * Authenticated JSON responses carry `Cache-Control: no-store` and `X-Content-Type-Options:
 * nosniff`; an archive download with a matching `If-None-Match` is a 304.
 */

const AUTHENTICATED_JSON = [
  '/v4/advisory',
  `/v4/advisory?name=${FEED}&limit=1`,
  '/v4/advisory/list',
  '/v3/index/target-intel?limit=1',
  '/v3/search/cpe?vendor=apache',
  '/v4/backup',
  `/v4/backup/${FEED}`,
  '/v3/backup',
  '/v3/index',
  '/whoami',
];

describe.each(engineCases())('response headers ($name)', (engine) => {
  let t: BackupTestApp;
  let url: string;
  let etag: string;

  beforeAll(async () => {
    t = await startBackupApp(engine);
    await loadFeed(t, 5);
    await writeBackup(new BackupStore(t.backupDir), feedSource(t.storage, FEED, 'test'), 3);
    url = (await t.get(`/v4/backup/${FEED}`)).body.url_mrap;
    etag = `"${(await t.get(`/v4/backup/${FEED}`)).body.sha256}"`;
  });
  afterAll(async () => t?.close());

  const expectJsonHeaders = (headers: Record<string, unknown>, what: string) => {
    expect(headers['content-type'], what).toMatch(/^application\/json/);
    expect(headers['cache-control'], what).toBe('no-store');
    expect(headers['x-content-type-options'], what).toBe('nosniff');
  };

  it.each(AUTHENTICATED_JSON)('%s: 200 JSON with no-store and nosniff', async (path) => {
    const response = await t.get(path);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expectJsonHeaders(response.headers, path);
  });

  it.each([
    ['/v4/advisory?bogus=1', 400],
    ['/v4/advisory?vendor=%00', 400],
    ['/v3/index/target-intel?port=0', 400],
    ['/v4/backup/no-such-feed', 404],
    ['/no-such-route', 404],
  ])('%s: a %i error with no-store and nosniff', async (path, status) => {
    const response = await t.get(path);
    expect(response.status).toBe(status);
    expectJsonHeaders(response.headers, path);
  });

  it('a 401 (no token) carries them too', async () => {
    const response = await t.get('/v4/advisory', null);
    expect(response.status).toBe(401);
    expectJsonHeaders(response.headers, '401');
  });

  it('a malformed path answered before routing carries them too', async () => {
    const response = await t.get('/v4/backup/%C0%AE');
    expect(response.status).toBe(400);
    expectJsonHeaders(response.headers, 'bad URL');
  });

  it('a download keeps its own Cache-Control and ETag and gets nosniff', async () => {
    const response = await download(t, url);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['cache-control']).toBe('private, max-age=0');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers.etag).toBe(etag);
  });

  it.each([
    ['the ETag', () => etag],
    ['the weak ETag', () => `W/${etag}`],
    ['a list holding the ETag', () => `"other", ${etag}`],
    ['*', () => '*'],
  ])('a download with If-None-Match: %s → 304 without a body', async (_label, header) => {
    for (const extra of [{}, { range: 'bytes=0-9' }] as Array<Record<string, string>>) {
      const response = await download(t, url, { 'if-none-match': header(), ...extra });
      expect(response.status).toBe(304);
      expect(response.body.length).toBe(0);
      expect(response.headers.etag).toBe(etag);
      expect(response.headers['cache-control']).toBe('private, max-age=0');
    }
    const head = await t.app.inject({ method: 'HEAD', url: local(url), headers: { 'if-none-match': header() } });
    expect(head.statusCode).toBe(304);
  });

  it('a download with a different If-None-Match gets the archive', async () => {
    const response = await download(t, url, { 'if-none-match': '"0000", W/"1111"' });
    expect(response.status).toBe(200);
    expect(response.body.length).toBeGreaterThan(0);
  });
});
