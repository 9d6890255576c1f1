/**
 * Per-token request budgets per endpoint group. A token's own limit (`token create --rate-limit`)
 * replaces the configured one; `unlimited` tokens are not counted at all. Every token has its own
 * counters, so one token spending its budget never affects another, except a child token (created
 * by a non-admin token), which spends its parent's budget.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../../config.js';
import { budgetFor, type Budget, type RateGroup } from '../../core/rate-limit.js';
import { budgetHolder, type TokenInfo } from '../../core/tokens.js';
import type { CountingMode, RateCounter } from './counter.js';
import { MemoryCounter } from './memory-counter.js';
import { RedisCounter } from './redis-counter.js';

export interface RateDecision {
  group: RateGroup;
  budget: Budget;
  remaining: number;
  resetAt: number;
  allowed: boolean;
}

/** Which budget a path spends. `/healthz` and `/openapi.json` are never limited (they need no token). */
export function rateGroupOf(path: string): RateGroup {
  if (path.startsWith('/v3/index')) return 'index';
  if (path.startsWith('/v4/advisory')) return 'advisory';
  if (path.startsWith('/v3/backup') || path.startsWith('/v4/backup')) return 'backup';
  if (path.startsWith('/v3/search')) return 'search';
  return 'other';
}

export class RateLimiter {
  constructor(
    private readonly limits: Config['rateLimits'],
    private readonly counter: RateCounter,
  ) {}

  /** Where the counts live right now (see CountingMode), for health reports. */
  mode(): CountingMode {
    return this.counter.mode();
  }

  /** Counts the request; `undefined` when the token is not limited in that group. */
  async check(token: TokenInfo, path: string, now = Date.now()): Promise<RateDecision | undefined> {
    const group = rateGroupOf(path);
    // A child token spends its parent's budget: counted under the parent's id, with its limit.
    const holder = budgetHolder(token);
    const budget = budgetFor(this.limits, group, holder.rateLimit);
    if (!budget) return undefined;
    const { count, resetAt } = await this.counter.hit(`${group}:${holder.id}`, budget.windowMs, now);
    return { group, budget, remaining: Math.max(0, budget.limit - count), resetAt, allowed: count <= budget.limit };
  }

  close(): Promise<void> {
    return this.counter.close();
  }
}

/**
 * Shared through Redis when VULNSCOPE_REDIS_URL is set (per instance while Redis is away; each
 * switch is reported once to `onModeChange`), else counted in this process.
 */
export async function createRateLimiter(
  config: Config,
  secret: string,
  onModeChange: (mode: CountingMode, cause?: unknown) => void = () => {},
): Promise<RateLimiter> {
  if (!config.redisUrl) return new RateLimiter(config.rateLimits, new MemoryCounter());
  // Instances of one deployment share the database, hence the secret; other deployments on the same Redis do not.
  const prefix = `vulnscope:rl:${createHash('sha256').update(secret).digest('hex').slice(0, 12)}`;
  const counter = await RedisCounter.connect(config.redisUrl, { prefix, onModeChange });
  return new RateLimiter(config.rateLimits, counter);
}
