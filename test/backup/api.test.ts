import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBackup } from '../../src/backup/service.js';
import { feedSource, targetIntelSource } from '../../src/backup/sources.js';
import { BackupStore } from '../../src/backup/store.js';
import { signedDownloadUrl } from '../../src/backup/urls.js';
import { MANIFEST_NAME } from '../../src/backup/writer.js';
import { describeErrors, validateAgainst } from '../support/contract.js';
import { engineCases } from '../support/engines.js';
import {
  apiFeedRecords,
  apiTargetIntel,
  download,
  FEED,
  loadFeed,
  local,
  recordsOf,
  sha256,
  sortedJson,
  startBackupApp,
  unzip,
  type BackupTestApp,
} from './support.js';

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const HOSTS = Array.from({ length: 120 }, (_, i) => ({
  ip: `10.1.${Math.floor(i / 50)}.${(i % 50) + 1}`,
  port: 443,
  hostnames: [`h${i}.example`],
  cves: i % 3 === 0 ? ['CVE-2021-44228'] : [],
}));

describe.each(engineCases())('backups ($name)', (engine) => {
  let t: BackupTestApp;
  let store: BackupStore;

  beforeAll(async () => {
    t = await startBackupApp(engine);
    store = new BackupStore(t.backupDir);
    await loadFeed(t, 2345);
    await t.ingest(HOSTS);
  });
  afterAll(async () => t?.close());

  it('before any archive: feeds listed unavailable, a feed answers available:false, a v3 index 404s', async () => {
    const list = await t.get('/v4/backup');
    expect(list.status).toBe(200);
    const item = list.body.data.find((entry: { name: string }) => entry.name === FEED);
    expect(item).toEqual({ name: FEED, href: `https://vulnscope.example/v4/backup/${FEED}`, available: false });
    const one = await t.get(`/v4/backup/${FEED}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ feed: FEED, available: false });
    const v3 = await t.get('/v3/backup/target-intel');
    expect(v3.status).toBe(404);
    expect(v3.body).toEqual({
      error: true,
      errors: [expect.stringMatching(/no backup of index "target-intel" has been written yet/)],
    });
  });

  it('writes a feed archive whose served bytes match the advertised sha256 and whose records round-trip', async () => {
    const written = await writeBackup(store, feedSource(t.storage, FEED, 'test'), 3);
    expect(written.meta?.records).toBe(2345);

    const list = await t.get('/v4/backup');
    const item = list.body.data.find((entry: { name: string }) => entry.name === FEED);
    expect(item.available).toBe(true);
    expect(item.backup_written_at).toMatch(RFC3339_UTC);

    const info = await t.get(`/v4/backup/${FEED}`);
    expect(info.status).toBe(200);
    expect(info.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(info.body).sort()).toEqual(
      [
        'feed',
        'available',
        'sha256',
        'url_ttl_minutes',
        'url_expires',
        'url_mrap',
        'url_us-east-1',
        'url_eu-west-2',
        'url_ap-southeast-2',
      ].sort(),
    );
    expect(info.body).toMatchObject({ feed: FEED, available: true, url_ttl_minutes: 15, sha256: written.meta!.sha256 });
    expect(info.body.url_expires).toMatch(RFC3339_UTC);
    const expiresIn = Date.parse(info.body.url_expires) - Date.now();
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
    for (const field of ['url_us-east-1', 'url_eu-west-2', 'url_ap-southeast-2'])
      expect(info.body[field]).toBe(info.body.url_mrap);
    expect(info.body.url_mrap.startsWith('https://vulnscope.example/')).toBe(true);
    expect(new URL(info.body.url_mrap).pathname.endsWith('.zip')).toBe(true);

    // No token: downloads are fetched without auth.
    const file = await download(t, info.body.url_mrap);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/zip');
    expect(Number(file.headers['content-length'])).toBe(file.body.length);
    expect(file.headers.etag).toBe(`"${info.body.sha256}"`);
    expect(sha256(file.body)).toBe(info.body.sha256);

    const members = await unzip(file.body);
    const names = members.map((member) => member.name);
    expect(names).toContain(MANIFEST_NAME);
    expect(MANIFEST_NAME.endsWith('.json')).toBe(false);
    expect(names.filter((name) => name.endsWith('.json')).length).toBeGreaterThan(0);
    const manifest = members.find((member) => member.name === MANIFEST_NAME)!.text;
    expect(manifest).toMatch(new RegExp(`^feed: ${FEED}$`, 'm'));
    expect(manifest).toMatch(/^record_count: 2345$/m);
    expect(manifest).toMatch(/^format_version: 1$/m);
    expect(recordsOf(members)).toEqual(await apiFeedRecords(t));
  });

  it('writes the target-intel archive; /v3/backup, /v3/backup/target-intel and /v3/index follow the official CLI', async () => {
    const written = await writeBackup(store, targetIntelSource(t.storage), 3);
    expect(written.meta?.records).toBe(HOSTS.length);

    const list = await t.get('/v3/backup');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      _benchmark: expect.any(Number),
      data: [
        {
          name: 'target-intel',
          description: expect.any(String),
          href: 'https://vulnscope.example/v3/backup/target-intel',
        },
      ],
    });
    const indexes = await t.get('/v3/index');
    expect(indexes.status).toBe(200);
    expect(indexes.body.data.map((entry: { name: string }) => entry.name)).toContain('target-intel');

    const one = await t.get('/v3/backup/target-intel');
    expect(one.status).toBe(200);
    expect(one.body._meta).toEqual({ timestamp: expect.stringMatching(RFC3339_UTC), index: 'target-intel' });
    const first = one.body.data[0];
    expect(first.filename).toMatch(/^target-intel-\d+\.zip$/);
    expect(path.posix.basename(new URL(first.url).pathname)).toBe(first.filename);
    expect(first.date_added).toMatch(RFC3339_UTC);
    expect(first.url_ttl_minutes).toBe(15);
    for (const field of [
      'url_mrap',
      'url_us-east-1',
      'url_us-west-2',
      'url_eu-west-2',
      'url_ap-southeast-2',
      'url_il-central-1',
      'url_me-central-1',
    ]) {
      expect(first[field]).toBe(first.url);
    }
    const file = await download(t, first.url);
    expect(file.status).toBe(200);
    expect(Number(file.headers['content-length'])).toBeGreaterThan(0);
    expect(sha256(file.body)).toBe(first.sha256);
    const members = await unzip(file.body);
    expect(members.find((member) => member.name === MANIFEST_NAME)!.text).toMatch(/^index: target-intel$/m);
    expect(sortedJson(recordsOf(members))).toEqual(sortedJson(await apiTargetIntel(t)));
  });

  it('keeps the last N archives, newest first, with a date_added that changes with the zip', async () => {
    for (let i = 0; i < 3; i++) {
      await t.ingest([{ ip: `10.9.0.${i + 1}`, port: 80 }]);
      await writeBackup(store, targetIntelSource(t.storage), 3);
    }
    const kept = await store.list('v3', 'target-intel');
    expect(kept).toHaveLength(3);
    expect(fs.readdirSync(path.join(t.backupDir, 'v3', 'target-intel')).sort()).toEqual(
      kept.flatMap((meta) => [meta.file, `${meta.file}.meta`]).sort(),
    );
    const { body } = await t.get('/v3/backup/target-intel');
    expect(body.data.map((entry: { filename: string }) => entry.filename)).toEqual(kept.map((meta) => meta.file));
    const dates = body.data.map((entry: { date_added: string }) => Date.parse(entry.date_added));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);
    expect(new Set(dates).size).toBe(3);
    expect(new Set(body.data.map((entry: { sha256: string }) => entry.sha256)).size).toBe(3);
  });

  it('HEAD answers the headers of the download (Content-Length of the zip), no body', async () => {
    const url = (await t.get(`/v4/backup/${FEED}`)).body.url_mrap;
    const meta = (await store.latest('v4', FEED))!;
    const response = await t.app.inject({ method: 'HEAD', url: local(url) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-length']).toBe(String(meta.size));
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.rawPayload.length).toBe(0);
  });

  it.each([
    ['/v4/backup', 'backup.ListBackupsResponse'],
    [`/v4/backup/${FEED}`, 'backup.BackupResponse'],
    ['/v4/backup/cisa-kev', 'backup.BackupResponse'], // available: false
    ['/v3/backup', 'render.Response-array_params_IndexBackupList'],
    ['/v3/index', 'render.Response-array_params_IndexBackupList'],
    [
      '/v3/backup/target-intel',
      'render.ResponseWithMetadata-v3controllers_BackupResponseData-v3controllers_BackupResponseMetadata',
    ],
  ])('%s matches the contract schema %s (no nulls)', async (url, schema) => {
    const { status, body, headers } = await t.get(url);
    expect(status).toBe(200);
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(describeErrors(validateAgainst(schema, body))).toEqual([]);
    expect(JSON.stringify(body)).not.toContain('null');
  });

  describe('Range requests', () => {
    let url: string;
    let whole: Buffer;
    beforeAll(async () => {
      url = (await t.get(`/v4/backup/${FEED}`)).body.url_mrap;
      whole = (await download(t, url)).body;
    });
    const cases: Array<[string, (size: number) => string, number, ((size: number) => [number, number]) | undefined]> = [
      ['first bytes', () => 'bytes=0-9', 206, () => [0, 9]],
      ['a middle slice', () => 'bytes=100-199', 206, () => [100, 199]],
      ['an open end', (size) => `bytes=${size - 7}-`, 206, (size) => [size - 7, size - 1]],
      ['a suffix', () => 'bytes=-25', 206, (size) => [size - 25, size - 1]],
      [
        'an end past the size (clamped)',
        (size) => `bytes=${size - 3}-${size + 100}`,
        206,
        (size) => [size - 3, size - 1],
      ],
      ['a start at the size', (size) => `bytes=${size}-`, 416, undefined],
      ['a start past the size', (size) => `bytes=${size + 10}-${size + 20}`, 416, undefined],
      ['a zero suffix', () => 'bytes=-0', 416, undefined],
      ['a malformed header (ignored)', () => 'bytes=abc', 200, undefined],
      ['several ranges (ignored)', () => 'bytes=0-1,5-6', 200, undefined],
    ];
    it.each(cases)('%s', async (_label, header, status, expected) => {
      const size = whole.length;
      const response = await download(t, url, { range: header(size) });
      expect(response.status).toBe(status);
      if (status === 206) {
        const [start, end] = expected!(size);
        expect(response.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
        expect(Number(response.headers['content-length'])).toBe(end - start + 1);
        expect(response.body.equals(whole.subarray(start, end + 1))).toBe(true);
      } else if (status === 416) {
        expect(response.headers['content-range']).toBe(`bytes */${size}`);
        expect(JSON.parse(response.body.toString()).error).toBe(true);
      } else {
        expect(response.body.equals(whole)).toBe(true);
      }
    });
    it('ignores a Range whose If-Range does not match the ETag', async () => {
      const response = await download(t, url, { range: 'bytes=0-9', 'if-range': '"other"' });
      expect(response.status).toBe(200);
      expect(response.body.length).toBe(whole.length);
    });
  });

  describe('signed URLs', () => {
    const forbiddenCases: Array<[string, (url: URL) => string]> = [
      [
        'a tampered signature',
        (url) => `${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${'A'.repeat(43)}`,
      ],
      [
        'a moved expiry',
        (url) =>
          `${url.pathname}?expires=${Number(url.searchParams.get('expires')) + 3600}&signature=${url.searchParams.get('signature')}`,
      ],
      // Only the canonical decimal form of the signed expiry is accepted, not another spelling of it.
      [
        'a leading zero on the expiry',
        (url) =>
          `${url.pathname}?expires=0${url.searchParams.get('expires')}&signature=${url.searchParams.get('signature')}`,
      ],
      [
        'leading zeros on the expiry',
        (url) =>
          `${url.pathname}?expires=000${url.searchParams.get('expires')}&signature=${url.searchParams.get('signature')}`,
      ],
      [
        'a plus sign on the expiry',
        (url) =>
          `${url.pathname}?expires=%2B${url.searchParams.get('expires')}&signature=${url.searchParams.get('signature')}`,
      ],
      ['another file', (url) => `${url.pathname.replace(/\d+\.zip$/, '1.zip')}${url.search}`],
      ['another feed', (url) => `${url.pathname.replace(`/v4/${FEED}/`, '/v4/other/')}${url.search}`],
      ['no signature', (url) => url.pathname],
      ['a token instead of a signature', (url) => `${url.pathname}?token=whatever`],
    ];
    it.each(forbiddenCases)('refuses %s with 403 JSON', async (_label, mutate) => {
      const url = new URL((await t.get(`/v4/backup/${FEED}`)).body.url_mrap);
      const response = await t.app.inject({ method: 'GET', url: mutate(url) });
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual({ error: true, errors: [expect.stringMatching(/signature|forbidden/)] });
    });

    it('refuses an expired URL with 403 JSON', async () => {
      const meta = (await store.latest('v4', FEED))!;
      const expired = signedDownloadUrl(t.context.secret, t.config.publicUrl, meta, 15, Date.now() - 16 * 60_000);
      const response = await t.app.inject({ method: 'GET', url: local(expired.url) });
      expect(response.statusCode).toBe(403);
      expect(response.json().errors[0]).toMatch(/expired/);
      const fresh = signedDownloadUrl(t.context.secret, t.config.publicUrl, meta, 15, Date.now() - 14 * 60_000);
      expect((await t.app.inject({ method: 'GET', url: local(fresh.url) })).statusCode).toBe(200);
    });

    it('keeps download signatures out of the logs', async () => {
      const url = new URL((await t.get(`/v4/backup/${FEED}`)).body.url_mrap);
      const signature = url.searchParams.get('signature')!;
      await download(t, url.toString());
      const logged = t.logs.join('');
      expect(logged).toContain(url.pathname);
      expect(logged).not.toContain(signature);
      expect(logged).toContain('signature=REDACTED');
    });

    it('is not rate limited and needs no token, while the API still does', async () => {
      expect((await t.get(`/v4/backup/${FEED}`, null)).status).toBe(401);
      const url = (await t.get(`/v4/backup/${FEED}`)).body.url_mrap;
      const response = await download(t, url, { authorization: 'Bearer wrong-token' });
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-limit']).toBeUndefined();
    });
  });

  describe('errors', () => {
    it('404 JSON for an unknown feed or index', async () => {
      const cases: Array<[string, number]> = [
        ['/v4/backup/no-such-feed', 404],
        ['/v3/backup/no-such-index', 404],
        ['/v3/backup/cpecve', 404],
      ];
      for (const [url, status] of cases) {
        const response = await t.get(url);
        expect(response.status, url).toBe(status);
        expect(response.body.error, url).toBe(true);
      }
    });

    it('402 for a feed the token is not entitled to; the list shows only entitled feeds', async () => {
      const { token } = await t.storage.tokens.create('limited', { feeds: { all: false, feeds: ['cisa-kev'] } });
      const one = await t.get(`/v4/backup/${FEED}`, token);
      expect(one.status).toBe(402);
      expect(one.body.error).toBe(true);
      const list = await t.get('/v4/backup', token);
      expect(list.status).toBe(200);
      expect(list.body.data.map((entry: { name: string }) => entry.name)).toEqual(['cisa-kev']);
    });

    it('503 JSON (with Retry-After) while the backup directory is missing, back after it returns', async () => {
      const url = (await t.get(`/v4/backup/${FEED}`)).body.url_mrap;
      const moved = `${t.backupDir}.away`;
      fs.renameSync(t.backupDir, moved);
      try {
        for (const path of ['/v4/backup', `/v4/backup/${FEED}`, '/v3/backup', '/v3/backup/target-intel']) {
          const response = await t.get(path);
          expect(response.status, path).toBe(503);
          expect(response.body.error, path).toBe(true);
          expect(response.headers['retry-after'], path).toBeDefined();
        }
        expect((await download(t, url)).status).toBe(503);
      } finally {
        fs.renameSync(moved, t.backupDir);
      }
      expect((await t.get(`/v4/backup/${FEED}`)).status).toBe(200);
      expect((await download(t, url)).status).toBe(200);
    });
  });
});

describe('OpenAPI', () => {
  it('documents the backup routes; the download route needs no token', async () => {
    const [engine] = engineCases();
    const t = await startBackupApp(engine!);
    try {
      const doc = (await t.get('/openapi.json', null)).body;
      for (const route of ['/v4/backup', '/v4/backup/{feed}', '/v3/backup', '/v3/backup/{index}', '/v3/index']) {
        expect(doc.paths[route]?.get?.security, route).toContainEqual({ Bearer: [] });
      }
      const download = doc.paths['/backup-files/{kind}/{name}/{file}']?.get;
      expect(download).toBeDefined();
      expect(download.security).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
