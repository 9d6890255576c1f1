import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactCredentials } from '../../src/server/plugins/auth.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

/**
 * A query value whose decoded name is `token` (or `signature`, a download's credential) never
 * reaches a log line, however its name was encoded: `?token%3D<token>` was written in full.
 */

/** Query strings carrying SECRET under an encoded credential name. */
const ENCODED_NAMES = [
  'token%3DSECRET', // the name and the separator encoded once: decoded, `token=SECRET`
  'token%253DSECRET', // encoded twice
  'token%25253DSECRET', // three times
  '%74oken%3DSECRET',
  '%74%6F%6B%65%6E=SECRET',
  'TOKEN%3dSECRET',
  'Token%3DSECRET',
  'token+%3DSECRET',
  '+token=SECRET',
  'limit=1&token%3DSECRET&page=1',
  'x%26token%3DSECRET',
  'x=1%26token%3DSECRET',
  'token%3D%3DSECRET',
  'token%3DSECRET%26limit%3D1',
];

describe.each(engineCases())('credentials in the request log ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  const leaksOf = (before: number, secret: string) => t.logs.slice(before).filter((line) => line.includes(secret));

  it.each(ENCODED_NAMES)('?%s: the token is not logged (with and without a header token)', async (query) => {
    for (const path of ['/v3/index/target-intel', '/v4/advisory', '/whoami', '/does-not-exist']) {
      const before = t.logs.length;
      const url = `${path}?${query.replace('SECRET', t.token)}`;
      await t.get(url); // authenticated by header; the query is a 400 or ignored
      await t.get(url, null); // no header: a 401
      expect(t.logs.length, 'the requests were logged').toBeGreaterThan(before);
      expect(leaksOf(before, t.token), url).toEqual([]);
      expect(t.logs.slice(before).join('')).toContain('REDACTED');
    }
  });

  it.each(['signature%3DSECRET', '%73ignature=SECRET', 'expires=1&signature%253DSECRET', 'SIGNATURE=SECRET'])(
    'a download URL with ?%s: the signature is not logged',
    async (query) => {
      const secret = 'sig-that-must-not-be-logged-0123456789';
      const before = t.logs.length;
      await t.app.inject({ method: 'GET', url: `/backup-files/v4/feed/feed-1.zip?${query.replace('SECRET', secret)}` });
      expect(t.logs.length).toBeGreaterThan(before);
      expect(leaksOf(before, secret)).toEqual([]);
    },
  );
});

describe('redactCredentials', () => {
  it.each([
    ['/a?token=T', '/a?token=REDACTED'],
    ['/a?token%3DT', '/a?token=REDACTED'],
    ['/a?token%253DT&limit=1', '/a?token=REDACTED&limit=1'],
    ['/a?%74oken=T', '/a?token=REDACTED'],
    ['/a?limit=1&signature%3DS#frag', '/a?limit=1&signature=REDACTED#frag'],
    ['/a?tokens=T&my_token=T&token_x=T', '/a?tokens=T&my_token=T&token_x=T'],
    ['/a?vendor=token', '/a?vendor=token'],
    ['/a?vendor=%zz&token=T', '/a?vendor=%zz&token=REDACTED'],
    ['/a', '/a'],
  ])('%s → %s', (url, expected) => {
    expect(redactCredentials(url)).toBe(expected);
  });
});
