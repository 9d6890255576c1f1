import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, tooManyRequests, unsupportedMediaType, VulnscopeError } from '../../core/errors.js';
import { PORTAL_ASSET_PREFIX, PORTAL_PAGES, PORTAL_SESSION_PATH, safeReturnPath } from '../../core/portal/pages.js';
import type { AppContext } from '../context.js';
import { requireSameOrigin } from '../origin.js';
import { cookieValue } from '../plugins/auth.js';
import { PortalAssets } from './assets.js';
import { clearedTokenCookie, TOKEN_COOKIE, tokenCookie } from './cookie.js';
import { setPageHeaders } from './headers.js';
import { shellHtml } from './shell.js';
import { SignInLimiter } from './sign-in-limiter.js';

const DAY_SECONDS = 86_400;
/** Longer than any token Vulnscope issues; a longer paste is not a token. */
const MAX_TOKEN_LENGTH = 512;

/** Why a cookie's token was refused, for the sign-in page's message. */
function refusalReason(error: VulnscopeError): 'revoked' | 'expired' | 'unknown' {
  if (/revoked/i.test(error.message)) return 'revoked';
  if (/expired/i.test(error.message)) return 'expired';
  return 'unknown';
}

/**
 * The web portal: its pages (one HTML shell whose script renders the page), its static files,
 * and signing in and out, which set and clear the `token` cookie the API also accepts.
 */
export function registerPortal(app: FastifyInstance, context: AppContext, assets = PortalAssets.load()): void {
  const { publicUrl, publicOrigin, tokenIdleDays } = context.config;
  const secure = new URL(publicUrl).protocol === 'https:';
  const limiter = new SignInLimiter();

  /** Whether the request's cookie holds a valid token: true, or why not (undefined: no cookie). */
  async function cookieState(request: FastifyRequest): Promise<true | undefined | ReturnType<typeof refusalReason>> {
    const token = cookieValue(request.headers.cookie, TOKEN_COOKIE);
    if (!token) return undefined;
    try {
      await context.tokens.authenticate(token);
      return true;
    } catch (error) {
      if (error instanceof VulnscopeError && error.status === 401) return refusalReason(error);
      throw error;
    }
  }

  async function page(request: FastifyRequest, reply: FastifyReply) {
    setPageHeaders(reply);
    if (!assets) {
      return reply.code(503).type('text/plain; charset=utf-8').send('The portal is not built on this server.\n');
    }
    const path = request.routeOptions.url;
    const state = await cookieState(request);
    if (state !== true && state !== undefined) reply.header('Set-Cookie', clearedTokenCookie(secure));
    if (path === PORTAL_PAGES.signIn) {
      if (state === true) {
        const next = new URL(request.url, 'http://portal').searchParams.get('next');
        return reply.redirect(safeReturnPath(next) ?? PORTAL_PAGES.exposure, 303);
      }
    } else if (state !== true) {
      const query = new URLSearchParams({ next: request.url });
      if (state !== undefined) query.set('reason', state);
      return reply.redirect(`${PORTAL_PAGES.signIn}?${query}`, 303);
    }
    return reply.type('text/html; charset=utf-8').send(shellHtml(assets));
  }

  for (const path of Object.values(PORTAL_PAGES)) app.get(path, page);

  app.get(`${PORTAL_ASSET_PREFIX}:name`, async (request, reply) => {
    const asset = assets?.get((request.params as { name: string }).name);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('not found\n');
    reply.header('Cache-Control', 'public, max-age=31536000, immutable');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Vary', 'Accept-Encoding');
    reply.type(asset.type);
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
      return reply.header('Content-Encoding', 'gzip').send(asset.gzipped);
    }
    return reply.send(asset.body);
  });

  app.post(PORTAL_SESSION_PATH, async (request, reply) => {
    requireSameOrigin(request, publicOrigin, 'signing in');
    const wait = limiter.retryAfterSeconds(request.ip);
    if (wait > 0) throw tooManyRequests(`too many failed sign-ins from this address; try again in ${wait} s`, wait);
    if (!/^application\/json\b/i.test(String(request.headers['content-type'] ?? ''))) {
      throw unsupportedMediaType('sign in with a JSON body: {"token": "…"} (Content-Type: application/json)');
    }
    const given = (request.body as { token?: unknown } | undefined)?.token;
    const token = typeof given === 'string' ? given.trim() : '';
    if (!token) throw badRequest('parameter "token" is required: paste an API token');
    if (token.length > MAX_TOKEN_LENGTH) throw badRequest('parameter "token" is not a Vulnscope token (too long)');
    let name: string;
    try {
      name = (await context.tokens.authenticate(token)).name;
    } catch (error) {
      if (error instanceof VulnscopeError && error.status === 401) limiter.recordFailure(request.ip);
      throw error;
    }
    reply.header('Set-Cookie', tokenCookie(token, { secure, maxAgeSeconds: tokenIdleDays * DAY_SECONDS }));
    reply.header('Cache-Control', 'no-store');
    return { name };
  });

  app.delete(PORTAL_SESSION_PATH, async (request, reply) => {
    requireSameOrigin(request, publicOrigin, 'signing out');
    reply.header('Set-Cookie', clearedTokenCookie(secure));
    return reply.code(204).send();
  });
}

/** The paths the portal answers itself, before the API's token check. */
export function isPortalPath(path: string): boolean {
  return path.startsWith(PORTAL_ASSET_PREFIX) || path === PORTAL_SESSION_PATH;
}
