/**
 * Which advisory feeds a token may read: `*` (all), a list of feed names, or none. Written as
 * text in configuration, on the command line and in storage: `*`, `a,b`, or `none` (also empty).
 */
import { invalidInput } from './errors.js';

export type FeedEntitlement = { all: true } | { all: false; feeds: readonly string[] };

export const ALL_FEEDS: FeedEntitlement = { all: true };
export const NO_FEEDS: FeedEntitlement = { all: false, feeds: [] };

/** Feed names: lower-case letters, digits, `.`, `_`, `-`; they appear in URLs and file names. */
export const FEED_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function checkFeedName(name: string): string {
  if (!FEED_NAME.test(name)) {
    throw invalidInput(
      `feed name must be 1-64 lower-case letters, digits, ".", "_" or "-" (starting with a letter or digit), got "${name}"`,
    );
  }
  return name;
}

export function parseFeedEntitlement(text: string): FeedEntitlement {
  const value = text.trim();
  if (value === '*') return ALL_FEEDS;
  if (value === '' || value.toLowerCase() === 'none') return NO_FEEDS;
  const feeds = [
    ...new Set(
      value
        .split(',')
        .map((part) => part.trim().toLowerCase())
        .filter((part) => part !== ''),
    ),
  ];
  if (feeds.includes('*')) return ALL_FEEDS;
  return { all: false, feeds: feeds.map(checkFeedName).sort() };
}

/**
 * Checks that an entitlement names only `known` feeds (a typo would otherwise give a token that can
 * read nothing, silently); `source` says where the list came from (`--feeds`).
 */
export function checkEntitledFeeds(entitlement: FeedEntitlement, known: Iterable<string>, source: string): void {
  if (entitlement.all) return;
  const names = new Set(known);
  const unknown = entitlement.feeds.filter((feed) => !names.has(feed));
  if (unknown.length === 0) return;
  throw invalidInput(
    `${source}: unknown feed${unknown.length === 1 ? '' : 's'} ${unknown.map((f) => `"${f}"`).join(', ')} (known feeds: ${[...names].sort().join(', ')}; or * or none)`,
  );
}

export function formatFeedEntitlement(entitlement: FeedEntitlement): string {
  if (entitlement.all) return '*';
  return entitlement.feeds.length === 0 ? 'none' : entitlement.feeds.join(',');
}

export function coversFeed(entitlement: FeedEntitlement, feed: string): boolean {
  return entitlement.all || entitlement.feeds.includes(feed);
}

export function coversAnyFeed(entitlement: FeedEntitlement): boolean {
  return entitlement.all || entitlement.feeds.length > 0;
}

/** The feeds both entitlements cover (a child token reads no more than its parent). */
export function intersectEntitlements(a: FeedEntitlement, b: FeedEntitlement): FeedEntitlement {
  if (a.all) return b;
  if (b.all) return a;
  return { all: false, feeds: a.feeds.filter((feed) => b.feeds.includes(feed)) };
}

/** The feeds `entitlement` names that `within` does not cover (`*` when it is all of them and `within` is not). */
export function feedsBeyond(entitlement: FeedEntitlement, within: FeedEntitlement): string[] {
  if (within.all) return [];
  if (entitlement.all) return ['*'];
  return entitlement.feeds.filter((feed) => !within.feeds.includes(feed));
}
