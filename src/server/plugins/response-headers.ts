import type { FastifyInstance } from 'fastify';

/**
 * Headers on every response: `X-Content-Type-Options: nosniff`, so a browser never reads a JSON
 * body (which may quote a parameter) as anything else, and on JSON responses
 * `Cache-Control: no-store`, so no shared or browser cache keeps what a token was shown. A route
 * that sets its own `Cache-Control` (the archive download: `private, max-age=0` with an ETag)
 * keeps it.
 */
/** What a JSON error answered outside the hooks (before routing, or by the HTTP parser) carries. */
export const JSON_RESPONSE_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } as const;

export function registerResponseHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && /^application\/json\b/i.test(type) && !reply.hasHeader('cache-control')) {
      reply.header('Cache-Control', 'no-store');
    }
    return payload;
  });
}
