import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenInfo } from '../../storage/tokens.js';
import type { TokenAuthenticator } from '../token-auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    token?: TokenInfo;
  }
}

/**
 * The token, from (in order) `Authorization: Bearer T`, a bare `Authorization: T` (the official
 * Python SDK sends that), `?token=T`, or the cookie `token=T`.
 */
export function tokenFrom(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization?.trim();
  if (header) return header.replace(/^Bearer\s+/i, '').trim() || undefined;
  const query = (request.query as Record<string, unknown> | undefined)?.token;
  if (typeof query === 'string' && query) return query;
  return cookieValue(request.headers.cookie, 'token');
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value) || undefined;
      } catch {
        return value || undefined;
      }
    }
  }
  return undefined;
}

export function requireToken(tokens: TokenAuthenticator) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    request.token = await tokens.authenticate(tokenFrom(request));
  };
}

/** `token=` values must never reach a log line. */
export function redactToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1REDACTED');
}
