import type { FastifyReply } from 'fastify';

/** No inline script or style, nothing from elsewhere, no framing, forms post only here. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/**
 * The headers of every portal page: signed URLs and filters sit in URLs, so no referrer leaves;
 * a signed-in page is never stored by a cache.
 */
export function setPageHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Cache-Control', 'no-store');
}
