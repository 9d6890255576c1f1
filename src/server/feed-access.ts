/**
 * Which advisory feeds exist and which a token may read. A feed exists when it is registered
 * (built in, or in VULNSCOPE_FEEDS_FILE) or has been loaded. Every endpoint that reads feeds asks
 * here: an unknown feed is a 400, a feed the token is not entitled to a 402.
 */
import type { Config } from '../config.js';
import { coversAnyFeed, coversFeed, formatFeedEntitlement, type FeedEntitlement } from '../core/entitlements.js';
import { badRequest, paymentRequired } from '../core/errors.js';
import type { FeedRegistry } from '../services/feed-registry.js';
import type { StoredFeed } from '../storage/index.js';
import { effectiveFeeds, type TokenInfo } from '../core/tokens.js';

export interface KnownFeed {
  name: string;
  description: string;
}

/** Where the loaded feeds are listed: storage, or the advisory index's copy of that list. */
export interface StoredFeeds {
  feeds(): Promise<StoredFeed[]>;
}

/** The feeds a token may read: its own or the server default; a child's never more than its parent's. */
export function entitlementOf(token: TokenInfo, config: Config): FeedEntitlement {
  return effectiveFeeds(token, config.defaultFeeds);
}

export async function knownFeeds(registry: FeedRegistry, stored: StoredFeeds): Promise<KnownFeed[]> {
  const feeds = new Map<string, KnownFeed>();
  for (const feed of registry.list()) feeds.set(feed.name, { name: feed.name, description: feed.description });
  for (const feed of await stored.feeds()) {
    if (!feeds.has(feed.name)) feeds.set(feed.name, { name: feed.name, description: feed.description });
  }
  return [...feeds.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

function noEntitlement(token: TokenInfo): never {
  throw paymentRequired(`payment required: token "${token.name}" is not entitled to any advisory feed`);
}

/** The feeds a query reads: the one named (400 unknown, 402 not covered), or every covered one (402 if none). */
export async function feedsToRead(
  requested: string | undefined,
  token: TokenInfo,
  config: Config,
  registry: FeedRegistry,
  stored: StoredFeeds,
): Promise<KnownFeed[]> {
  const entitlement = entitlementOf(token, config);
  if (!coversAnyFeed(entitlement)) noEntitlement(token);
  const known = await knownFeeds(registry, stored);
  if (requested === undefined) return known.filter((feed) => coversFeed(entitlement, feed.name));
  const feed = known.find((candidate) => candidate.name === requested);
  if (!feed) throw badRequest(`parameter "name": unknown feed "${requested}" (GET /v4/advisory/list lists the feeds)`);
  if (!coversFeed(entitlement, feed.name)) {
    throw paymentRequired(
      `payment required: token "${token.name}" is not entitled to feed "${feed.name}" (it may read: ${formatFeedEntitlement(entitlement)})`,
    );
  }
  return [feed];
}

/** The feeds a token may list (402 when none). */
export async function listableFeeds(
  token: TokenInfo,
  config: Config,
  registry: FeedRegistry,
  stored: StoredFeeds,
): Promise<KnownFeed[]> {
  return feedsToRead(undefined, token, config, registry, stored);
}
