import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdvisoryQuery, CpeSearchQuery, TargetIntelQuery } from '../../src/core/api/index.js';
import { engineCases } from '../support/engines.js';
import { FEED, loadFeed, startBackupApp, type BackupTestApp } from '../backup/support.js';

/**
 * Control characters (U+0000–U+001F, U+007F) in any text parameter, and malformed percent-encoding
 * or invalid UTF-8 anywhere in the query string, are a 400 naming the parameter on every endpoint
 * and both engines (a NUL byte in `vendor` was a 500 on PostgreSQL and a 200 on SQLite).
 */

/** Raw (already percent-encoded) bad values. */
const CONTROL_VALUES = ['%00', 'a%00b', 'a%01b', '%09', 'x%0Ay', '%0D', '%1F', '%7F', 'a%00'];
const MALFORMED_VALUES = ['%zz', '%', 'abc%', '%4', '%C0%AE', '%E2%82', '%ED%A0%80', '%FF', '%80'];
const BAD_VALUES = [...CONTROL_VALUES, ...MALFORMED_VALUES];

const DOWNLOAD = '/backup-files/v4/backup-feed/backup-feed-1.zip';

/** Endpoint × every query parameter it knows. */
const QUERY_CASES: Array<[string, string]> = [
  ...Object.keys(AdvisoryQuery.properties).map((name): [string, string] => ['/v4/advisory', name]),
  ['/v4/advisory/list', 'token'],
  ...Object.keys(TargetIntelQuery.properties).map((name): [string, string] => ['/v3/index/target-intel', name]),
  ...Object.keys(CpeSearchQuery.properties).map((name): [string, string] => ['/v3/search/cpe', name]),
  ['/v4/backup', 'token'],
  [`/v4/backup/${FEED}`, 'token'],
  ['/v3/backup', 'token'],
  ['/v3/backup/target-intel', 'token'],
  ['/v3/index', 'token'],
  ['/whoami', 'token'],
  [DOWNLOAD, 'expires'],
  [DOWNLOAD, 'signature'],
];

/** URL with a bad path parameter → the parameter the 400 must name. */
const PATH_CASES: Array<[string, string]> = [
  ['/v4/backup/%00', 'feed'],
  ['/v4/backup/backup%0Afeed', 'feed'],
  ['/v3/backup/%7F', 'index'],
  ['/v3/backup/target%1Fintel', 'index'],
  ['/backup-files/v4/%00/x.zip', 'name'],
  ['/backup-files/v4/backup-feed/x%09.zip', 'file'],
  ['/backup-files/%01/backup-feed/x.zip', 'kind'],
];

/** Bad parameter names → what the message must show. */
const NAME_CASES: Array<[string, string]> = [
  ['/v4/advisory?ven%00dor=apache', 'ven\\u0000dor'],
  ['/v4/advisory?%0A=1', '\\n'],
  ['/v4/advisory?%C0%AE=1', '%C0%AE'],
  ['/v3/index/target-intel?%zz=1', '%zz'],
  ['/v3/search/cpe?vendor%FF=apache', 'vendor%FF'],
  ['/v4/advisory?vendor=apache&%E2%82', '%E2%82'],
];

describe.each(engineCases())('control characters and malformed encoding ($name)', (engine) => {
  let t: BackupTestApp;
  beforeAll(async () => {
    t = await startBackupApp(engine);
    await loadFeed(t, 3);
  });
  afterAll(async () => t?.close());

  const expect400 = async (url: string, shownName: string) => {
    const response = await t.get(url);
    expect(response.status, `${url}: ${JSON.stringify(response.body)}`).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({ error: true, errors: [expect.any(String)] });
    expect(response.body.errors[0], url).toContain(`"${shownName}"`);
  };

  it.each(QUERY_CASES)('%s?%s=<control character or malformed encoding> → 400 naming it', async (path, name) => {
    for (const value of BAD_VALUES) await expect400(`${path}?${name}=${value}`, name);
    // The name percent-encoded is the same parameter.
    const encodedName = `%${name.charCodeAt(0).toString(16).toUpperCase()}${name.slice(1)}`;
    for (const value of ['%00', '%C0%AE']) await expect400(`${path}?${encodedName}=${value}`, name);
  });

  it.each(PATH_CASES)('%s → 400 naming %s', async (url, name) => {
    await expect400(url, name);
  });

  it.each(NAME_CASES)('%s → 400 showing the name %s', async (url, shownName) => {
    await expect400(url, shownName);
  });

  it('a NUL byte in every advisory text filter on a loaded feed is a 400, never a 500', async () => {
    for (const name of ['vendor', 'product', 'platform', 'package_name', 'purl', 'reference_url', 'reference_tag']) {
      await expect400(`/v4/advisory?name=${FEED}&${name}=%00`, name);
      await expect400(`/v4/advisory?name=${FEED}&${name}=apache%00`, name);
    }
  });

  it('well-formed text still passes: percent-encoded UTF-8, plus signs, spaces, tabs only as escapes', async () => {
    for (const url of [
      `/v4/advisory?name=${FEED}&vendor=%C3%BCber`,
      `/v4/advisory?name=${FEED}&vendor=apache+software`,
      `/v4/advisory?name=${FEED}&vendor=apache%20software`,
      `/v4/advisory?name=${FEED}&reference_url=https%3A%2F%2Fexample.com%2Fa%3Fb%3Dc`,
      '/v3/index/target-intel?hostname=%E4%BE%8B',
      '/v3/search/cpe?vendor=apache&product=http_server',
    ]) {
      const response = await t.get(url);
      expect(response.status, `${url}: ${JSON.stringify(response.body)}`).toBe(200);
    }
  });
});
