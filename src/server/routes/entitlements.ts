import type { FastifyInstance } from 'fastify';
import { ENDPOINTS } from '../../core/api/index.js';
import { coversFeed } from '../../core/entitlements.js';
import { budgetFor, formatBudget, RATE_GROUPS } from '../../core/rate-limit.js';
import { FeedRegistry } from '../../services/feed-registry.js';
import type { AppContext } from '../context.js';
import { entitlementOf, knownFeeds } from '../feed-access.js';
import { routeSchema } from '../route-schema.js';

/** The calling token's entitlements: the feeds it may read (by name, `*` spelled out) and its budget per endpoint group. */
export function registerEntitlements(
  app: FastifyInstance,
  context: AppContext,
  registry = new FeedRegistry(context.config.feeds),
): void {
  app.get(ENDPOINTS.entitlements.path, { schema: routeSchema(ENDPOINTS.entitlements) }, async (request) => {
    const token = request.token!;
    const entitlement = entitlementOf(token, context.config);
    const feeds = (await knownFeeds(registry, context.storage.advisories))
      .filter((feed) => coversFeed(entitlement, feed.name))
      .map((feed) => feed.name);
    const rateLimit = RATE_GROUPS.map(
      (group) => `${group}=${formatBudget(budgetFor(context.config.rateLimits, group, token.rateLimit))}`,
    );
    return { entitlements: { feeds, rate_limit: rateLimit } };
  });
}
