import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ENDPOINTS, type NewTokenBody, type TokenIdPath } from '../../core/api/index.js';
import { ALL_FEEDS, checkFeedName, type FeedEntitlement } from '../../core/entitlements.js';
import { badRequest, forbidden, VulnscopeError } from '../../core/errors.js';
import { TokenAdmin, type TokenActor } from '../../services/token-admin.js';
import type { AppContext } from '../context.js';
import { routeSchema } from '../route-schema.js';

/**
 * Token management over HTTP, as the calling token (the rules: services/token-admin.ts). A new
 * token's secret is in the creation's answer only.
 */
export function registerTokens(app: FastifyInstance, context: AppContext): void {
  const admin = new TokenAdmin(context.storage, context.config, {
    pendingLastUse: (id) => context.tokens.pendingLastUse(id),
  });
  const actor = (request: FastifyRequest): TokenActor => ({ kind: 'token', token: request.token! });

  app.get(ENDPOINTS.tokens.path, { schema: routeSchema(ENDPOINTS.tokens) }, async (request) => ({
    data: (await admin.list(actor(request))).map((info) => admin.view(info)),
  }));

  app.get(ENDPOINTS.tokenSelf.path, { schema: routeSchema(ENDPOINTS.tokenSelf) }, async (request) => {
    const self = request.token!;
    return admin.view(await admin.describe(actor(request), self.id));
  });

  app.post(
    ENDPOINTS.createToken.path,
    {
      schema: routeSchema(ENDPOINTS.createToken),
      bodyLimit: 64 * 1024,
      // Before the schema (which knows no `admin`), so the refusal says why.
      preValidation: async (request) => {
        const body = request.body as Record<string, unknown> | null;
        if (body && typeof body === 'object' && 'admin' in body) {
          throw forbidden(
            'forbidden: admin tokens are created only on the server, with "vulnscope token create --admin"; no HTTP request grants admin',
          );
        }
      },
    },
    async (request, reply) => {
      const body = request.body as NewTokenBody;
      const { token, info } = await admin.create(actor(request), {
        name: body.name,
        ...(body.feeds !== undefined ? { feeds: feedsOf(body.feeds) } : {}),
        ...(body.rate_limit !== undefined ? { rateLimit: body.rate_limit } : {}),
      });
      reply.code(201);
      return { token, ...admin.view(info) };
    },
  );

  app.delete(ENDPOINTS.revokeToken.path, { schema: routeSchema(ENDPOINTS.revokeToken) }, async (request) => {
    const { id } = request.params as TokenIdPath;
    const { info, children } = await admin.revoke(actor(request), id);
    // This process answers the revoked tokens' next requests with 401 at once (others within a second).
    context.tokens.forget();
    return { ...admin.view(info), children_revoked: children };
  });
}

/** `["*"]` every feed, `[]` none, else the names (each a valid feed name). */
function feedsOf(feeds: string[]): FeedEntitlement {
  if (feeds.includes('*')) return ALL_FEEDS;
  try {
    return { all: false, feeds: [...new Set(feeds.map((feed) => checkFeedName(feed.trim().toLowerCase())))].sort() };
  } catch (error) {
    if (error instanceof VulnscopeError) throw badRequest(`"feeds": ${error.message}`);
    throw error;
  }
}
