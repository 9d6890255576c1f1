import { createHash, randomBytes } from 'node:crypto';
import type { FeedEntitlement } from './entitlements.js';
import type { TokenRateLimit } from './rate-limit.js';

export interface TokenInfo {
  id: number;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
  revokedAt?: number;
  /** Advisory feeds it may read; absent: the server's default (VULNSCOPE_DEFAULT_FEEDS). */
  feeds?: FeedEntitlement;
  /** Its own request budget; absent: the server's (VULNSCOPE_RATE_LIMIT). */
  rateLimit?: TokenRateLimit;
}

export interface TokenOptions {
  feeds?: FeedEntitlement;
  rateLimit?: TokenRateLimit;
}

const DAY_MS = 86_400_000;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** 32 random bytes, prefixed so a leaked token is recognisable in a secret scan. */
export const generateToken = () => `vs_${randomBytes(32).toString('base64url')}`;

export function tokenState(info: TokenInfo, idleDays: number, now = Date.now()): 'active' | 'revoked' | 'expired' {
  if (info.revokedAt !== undefined) return 'revoked';
  return (info.lastUsedAt ?? info.createdAt) < now - idleDays * DAY_MS ? 'expired' : 'active';
}
