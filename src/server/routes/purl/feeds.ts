/**
 * The advisory feeds that can answer a purl: every CVE 5 feed (its records name packages of any
 * type) and the OSV feeds of the purl's ecosystem. A token that may read none of them gets a 402,
 * not an empty answer that would read as "no known vulnerabilities".
 */
import type { Config } from '../../../config.js';
import { coversAnyFeed, coversFeed } from '../../../core/entitlements.js';
import { paymentRequired } from '../../../core/errors.js';
import type { TokenInfo } from '../../../core/tokens.js';
import type { FeedRegistry } from '../../../services/feed-registry.js';
import { entitlementOf, type StoredFeeds } from '../../feed-access.js';

/** The purl type each built-in OSV feed holds; an OSV feed not named here may hold any type. */
const OSV_FEED_TYPES: Record<string, string> = { 'go-vulndb': 'golang', pypa: 'pypi', rustsec: 'cargo' };

const holdsType = (feed: string, adapter: string, type: string) =>
  adapter === 'mitre-cvelist-v5' ||
  (adapter === 'osv' && (Object.hasOwn(OSV_FEED_TYPES, feed) ? OSV_FEED_TYPES[feed] === type : true));

/** Answers, per purl type, the feeds the token reads for it (402 when it may read none). */
export type FeedsForType = (type: string) => string[];

export async function purlFeeds(
  token: TokenInfo,
  config: Config,
  registry: FeedRegistry,
  stored: StoredFeeds,
): Promise<FeedsForType> {
  const entitlement = entitlementOf(token, config);
  if (!coversAnyFeed(entitlement))
    throw paymentRequired(`payment required: token "${token.name}" is not entitled to any advisory feed`);
  const adapters = new Map<string, string>();
  for (const feed of registry.list()) adapters.set(feed.name, feed.adapter);
  for (const feed of await stored.feeds()) if (!adapters.has(feed.name)) adapters.set(feed.name, feed.adapter);
  const names = [...adapters.keys()].sort();
  return (type) => {
    const holding = names.filter((name) => holdsType(name, adapters.get(name)!, type));
    const readable = holding.filter((name) => coversFeed(entitlement, name));
    if (readable.length === 0) {
      throw paymentRequired(
        `payment required: token "${token.name}" may read none of the feeds that hold ${type} packages (${holding.join(', ')})`,
      );
    }
    return readable;
  };
}
