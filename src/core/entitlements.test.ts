import { describe, expect, it } from 'vitest';
import {
  checkEntitledFeeds,
  coversAnyFeed,
  coversFeed,
  formatFeedEntitlement,
  parseFeedEntitlement,
} from './entitlements.js';

describe('feed entitlements', () => {
  it.each([
    ['*', '*', ['a', 'zz'], []],
    ['a,b', 'a,b', ['a', 'b'], ['c']],
    [' B , a ,a', 'a,b', ['a', 'b'], ['c']],
    ['a,*', '*', ['x'], []],
    ['none', 'none', [], ['a']],
    ['', 'none', [], ['a']],
  ])('%j', (text, formatted, covered, notCovered) => {
    const entitlement = parseFeedEntitlement(text);
    expect(formatFeedEntitlement(entitlement)).toBe(formatted);
    for (const feed of covered) expect(coversFeed(entitlement, feed)).toBe(true);
    for (const feed of notCovered) expect(coversFeed(entitlement, feed)).toBe(false);
    expect(coversAnyFeed(entitlement)).toBe(formatted !== 'none');
  });

  it.each(['a b', '-x', 'a,b/c', 'x'.repeat(65)])('rejects the feed name in %j', (text) => {
    expect(() => parseFeedEntitlement(text)).toThrow(/feed name/);
  });

  it('refuses feeds that are not known, naming the known ones', () => {
    const known = ['nist-nvd2', 'cisa-kev'];
    for (const text of ['*', 'none', 'cisa-kev', 'cisa-kev,nist-nvd2'])
      expect(() => checkEntitledFeeds(parseFeedEntitlement(text), known, '--feeds')).not.toThrow();
    expect(() => checkEntitledFeeds(parseFeedEntitlement('kev,nvd,cisa-kev'), known, '--feeds')).toThrow(
      '--feeds: unknown feeds "kev", "nvd" (known feeds: cisa-kev, nist-nvd2; or * or none)',
    );
  });
});
