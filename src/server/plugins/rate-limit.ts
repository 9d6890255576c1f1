import type { FastifyReply, FastifyRequest } from 'fastify';
import { tooManyRequests } from '../../core/errors.js';
import { formatBudget } from '../../core/rate-limit.js';
import type { RateLimiter } from '../rate-limit/limiter.js';

/**
 * Spends the calling token's budget (after authentication). Limited responses carry the IETF
 * draft headers `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) and
 * `RateLimit-Policy`; a spent budget is a 429 with `Retry-After`.
 */
export function enforceRateLimit(limiter: RateLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.token) return;
    const path = request.url.split('?')[0]!;
    const now = Date.now();
    const decision = await limiter.check(request.token, path, now);
    if (!decision) return;
    const resetSeconds = Math.max(1, Math.ceil((decision.resetAt - now) / 1000));
    reply.header('RateLimit-Limit', String(decision.budget.limit));
    reply.header('RateLimit-Remaining', String(decision.remaining));
    reply.header('RateLimit-Reset', String(resetSeconds));
    reply.header('RateLimit-Policy', `${decision.budget.limit};w=${Math.ceil(decision.budget.windowMs / 1000)}`);
    if (!decision.allowed) {
      throw tooManyRequests(
        `rate limit exceeded for ${decision.group} endpoints (${formatBudget(decision.budget)} per token); retry in ${resetSeconds} s`,
        resetSeconds,
      );
    }
  };
}
