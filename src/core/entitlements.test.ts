import { describe, expect, it } from 'vitest';
import { coversAnyFeed, coversFeed, formatFeedEntitlement, parseFeedEntitlement } from './entitlements.js';

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
});
