/**
 * The feed registry: the built-in feeds (no configuration needed) plus those of
 * VULNSCOPE_FEEDS_FILE, which may also override a built-in one (e.g. to give it a download URL).
 */
import type { FeedDefinition } from '../config.js';
import { BUILTIN_FEEDS, checkAdapterName, type RegisteredFeed } from '../ingest/advisories/index.js';

export class FeedRegistry {
  private readonly feeds = new Map<string, RegisteredFeed>();

  constructor(configured: readonly FeedDefinition[] = []) {
    for (const feed of BUILTIN_FEEDS) this.feeds.set(feed.name, { ...feed });
    for (const feed of configured) {
      const adapter = checkAdapterName(feed.adapter, `feed "${feed.name}"`);
      const builtin = this.feeds.get(feed.name);
      this.feeds.set(feed.name, {
        name: feed.name,
        description: feed.description ?? builtin?.description ?? `${feed.name} (${adapter})`,
        adapter,
        ...(feed.source ? { source: feed.source } : {}),
      });
    }
  }

  get(name: string): RegisteredFeed | undefined {
    return this.feeds.get(name);
  }

  list(): RegisteredFeed[] {
    return [...this.feeds.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }
}
