import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../../core/errors.js';
import type { TokenInfo } from '../../core/tokens.js';
import type { TokenAuthenticator } from '../token-auth.js';
import { requireSameOrigin } from '../origin.js';

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

export function cookieValue(header: string | undefined, name: string): string | undefined {
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

/** Methods that change nothing: any token carrier is accepted, no Origin is asked for. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request protection, before authentication. A state-changing request (any method but
 * GET, HEAD, OPTIONS) never takes its token from the URL (400), and when the token cookie is what
 * authenticates it (no Authorization header), its `Origin` must be the server's public origin
 * (`publicOrigin`, else the origin the request was addressed to): a page of another site can make
 * a browser send the cookie, but not forge the Origin header. Missing or different: 403.
 */
export function guardStateChanging(request: FastifyRequest, publicOrigin: string | undefined): void {
  if (SAFE_METHODS.has(request.method)) return;
  const query = (request.query as Record<string, unknown> | undefined)?.token;
  if (query !== undefined) {
    throw badRequest(
      `a token in the URL (?token=) is not accepted for ${request.method} requests; send it in the Authorization header`,
    );
  }
  if (request.headers.authorization?.trim()) return;
  if (cookieValue(request.headers.cookie, 'token') === undefined) return;
  requireSameOrigin(request, publicOrigin, 'authenticated by the token cookie');
}

export function requireToken(tokens: TokenAuthenticator) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    request.token = await tokens.authenticate(tokenFrom(request));
  };
}

/** Query parameters whose values are credentials: the token, and a signed download's signature. */
const CREDENTIAL_NAMES = new Set(['token', 'signature']);
/** Enough rounds for any encoding a client might stack (`token%253D…` is two). */
const DECODE_ROUNDS = 5;

/** A query component decoded as the query parser decodes it, again and again until it no longer changes. */
function fullyDecoded(text: string): string {
  let current = text;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current.replace(/\+/g, ' '));
    } catch {
      return current;
    }
    if (next === current) break;
    current = next;
  }
  return current;
}

/** The credential a raw `name=value` pair carries, judged on its decoded text; undefined when none. */
function credentialOf(pair: string): string | undefined {
  // Decoded, the pair may hold further separators (`token%3DT` is `token=T`, `a%26token%3DT` is
  // `a&token=T`): any part whose name is a credential's makes the whole pair one.
  for (const part of fullyDecoded(pair).split('&')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (CREDENTIAL_NAMES.has(name)) return name;
  }
  return undefined;
}

/**
 * `token=` values, and download signatures, must never reach a log line. A parameter is judged by
 * its decoded name, however it was encoded: `%74oken=T` (the query parser reads it as `token`),
 * `token%3DT` and `token%253DT` (whose decoded text is `token=T`) are all written `token=REDACTED`.
 */
export function redactCredentials(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const hash = url.indexOf('#', question);
  const query = url.slice(question + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const credential = credentialOf(pair);
      return credential ? `${credential}=REDACTED` : pair;
    })
    .join('&');
  return `${url.slice(0, question + 1)}${redacted}${hash < 0 ? '' : url.slice(hash)}`;
}
