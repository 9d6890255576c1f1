import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenInfo } from '../../core/tokens.js';
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

/**
 * `token=` values must never reach a log line. Parameter names are compared decoded, as the
 * query parser sees them (`%74oken=` is `token=` too).
 */
export function redactToken(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const hash = url.indexOf('#', question);
  const query = url.slice(question + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return decodedName(name).toLowerCase() === 'token' ? `${name}=REDACTED` : pair;
    })
    .join('&');
  return `${url.slice(0, question + 1)}${redacted}${hash < 0 ? '' : url.slice(hash)}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
