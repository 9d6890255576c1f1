import { describe, expect, it } from 'vitest';
import type { CpeSearchQuery } from '../../../core/api/index.js';
import { parseCpeSearch } from './query.js';

/** What the schema cannot say; types, ranges and enums are checked before (test/http/parameter-validation.test.ts). */
describe('CPE search parameters', () => {
  it.each<[CpeSearchQuery, object]>([
    [{}, { page: 1, limit: 100, order: 'asc', isVulnerable: false, versionPrefix: false }],
    [{ part: 'a' }, { part: 'a' }],
    [
      { vendor: 'Apache', product: 'HTTP_Server' },
      { vendor: 'apache', product: 'http_server' },
    ],
    [{ version: '2.4.49' }, { version: '2.4.49', versionPrefix: false }],
    [{ version: '2.4.*' }, { version: '2.4.', versionPrefix: true }],
    [{ version: '2.4*' }, { version: '2.4', versionPrefix: true }],
    [{ version: '*' }, { versionPrefix: false }],
    [{ isVulnerable: true }, { isVulnerable: true }],
    [
      { page: 100, limit: 100 },
      { page: 100, limit: 100 },
    ],
    [
      { page: 10000, limit: 1 },
      { page: 10000, limit: 1 },
    ],
    [{ sort: '_id', order: 'desc' }, { order: 'desc' }],
  ])('%j → %j', (raw, expected) => {
    expect(parseCpeSearch(raw)).toMatchObject(expected);
  });

  it.each<[CpeSearchQuery, string]>([
    [{ vendor: ' ' }, 'vendor'],
    [{ version: '2.*.1' }, 'version'],
  ])('%j is a 400 naming %s', (raw, name) => {
    expect(() => parseCpeSearch(raw)).toThrow(new RegExp(`"${name}"`));
  });

  it('names the failed composition, the window and what it received when page × limit passes 10000', () => {
    expect(() => parseCpeSearch({ page: 101, limit: 100 })).toThrow(
      /failed to compose the search query: invalid pagination parameters: .*maximum result window of 10000 \(received page=101, limit=100\)/,
    );
  });
});
