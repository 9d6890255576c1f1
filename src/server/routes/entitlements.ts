import type { FastifyInstance } from 'fastify';
import { ENDPOINTS } from '../../core/api/index.js';
import { coversFeed } from '../../core/entitlements.js';
import { budgetFor, formatBudget, RATE_GROUPS } from '../../core/rate-limit.js';
import { budgetHolder } from '../../core/tokens.js';
import { FeedRegistry } from '../../services/feed-registry.js';
import type { AppContext } from '../context.js';
import { entitlementOf, knownFeeds } from '../feed-access.js';
import { routeSchema } from '../route-schema.js';

/** The calling token's entitlements: the feeds it may read (by name, `*` spelled out), its budget per endpoint group, whether it is an admin token. */
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
    // A child token spends its parent's budget.
    const { rateLimit: own } = budgetHolder(token);
    const rateLimit = RATE_GROUPS.map(
      (group) => `${group}=${formatBudget(budgetFor(context.config.rateLimits, group, own))}`,
    );
    return { entitlements: { feeds, rate_limit: rateLimit, admin: [String(token.admin)] } };
  });
}
