import type { FastifyRequest } from 'fastify';
import { forbidden } from '../core/errors.js';

/**
 * Refuses a request whose `Origin` is not this server's: the public origin (VULNSCOPE_PUBLIC_URL),
 * else the origin the request was addressed to. A page of another site can make a browser send
 * the token cookie, but not forge the Origin header, which browsers send on every POST and DELETE.
 */
export function requireSameOrigin(request: FastifyRequest, publicOrigin: string | undefined, what: string): void {
  const expected = publicOrigin ?? normalisedOrigin(`${request.protocol}://${request.host}`);
  const origin = request.headers.origin;
  if (origin === undefined || origin === '') {
    throw forbidden(
      `forbidden: a ${request.method} request ${what} must carry an Origin header naming this server (${expected}); it has none`,
    );
  }
  if (normalisedOrigin(origin) !== expected) {
    throw forbidden(
      `forbidden: a ${request.method} request ${what} must come from this server's origin (${expected}), not ${JSON.stringify(origin.slice(0, 200))}`,
    );
  }
}

/** An Origin header as URL origins compare (lower-case, default port left out); itself when it is none. */
function normalisedOrigin(origin: string): string {
  try {
    const parsed = new URL(origin);
    return parsed.origin === 'null' ? origin : parsed.origin;
  } catch {
    return origin;
  }
}
