import { createHash, randomBytes } from 'node:crypto';
import { type FeedEntitlement, intersectEntitlements } from './entitlements.js';
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
  /** May list, create and revoke every token; granted only by `vulnscope token create --admin`. */
  admin: boolean;
  /** The token that created it over HTTP; absent for tokens made on the server (the CLI). */
  parentId?: number;
  /**
   * The creating token as it stands, when there is one (read with the token). A token created by
   * a non-admin token is its child: see `isChild`.
   */
  parent?: ParentInfo;
}

/** What a token's rules need of its parent. */
export interface ParentInfo {
  id: number;
  admin: boolean;
  createdAt: number;
  lastUsedAt?: number;
  revokedAt?: number;
  feeds?: FeedEntitlement;
  rateLimit?: TokenRateLimit;
}

export interface TokenOptions {
  feeds?: FeedEntitlement;
  rateLimit?: TokenRateLimit;
  /** Only the CLI grants it. */
  admin?: boolean;
  /** The token creating it, when created over HTTP. */
  parentId?: number;
}

/** Most child tokens (not revoked) one non-admin token may have. */
export const MAX_CHILD_TOKENS = 10;

export type TokenState = 'active' | 'revoked' | 'expired';

const DAY_MS = 86_400_000;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** 32 random bytes, prefixed so a leaked token is recognisable in a secret scan. */
export const generateToken = () => `vs_${randomBytes(32).toString('base64url')}`;

/**
 * A child token: created by a non-admin token. It spends its parent's request budget, reads at
 * most its parent's feeds, creates no tokens, and lives no longer than its parent. A token created
 * by an admin token is a token of its own (the parent id only records who made it).
 */
export function isChild(info: TokenInfo): info is TokenInfo & { parent: ParentInfo } {
  return info.parent !== undefined && !info.parent.admin;
}

/** The feeds a token may read: its own or the server default; a child's never more than its parent's. */
export function effectiveFeeds(info: TokenInfo, defaultFeeds: FeedEntitlement): FeedEntitlement {
  const own = info.feeds ?? defaultFeeds;
  return isChild(info) ? intersectEntitlements(own, info.parent.feeds ?? defaultFeeds) : own;
}

/** Whose budget a token's requests spend: its own, or a child's parent's. */
export function budgetHolder(info: TokenInfo): { id: number; rateLimit?: TokenRateLimit } {
  return isChild(info) ? info.parent : info;
}

/** When a token unused since then expires (last use, or creation, plus the idle days). */
export function expiresAt(info: { createdAt: number; lastUsedAt?: number }, idleDays: number): number {
  return (info.lastUsedAt ?? info.createdAt) + idleDays * DAY_MS;
}

/** A token's own state, its parent left aside. */
export function tokenState(
  info: { createdAt: number; lastUsedAt?: number; revokedAt?: number },
  idleDays: number,
  now = Date.now(),
): TokenState {
  if (info.revokedAt !== undefined) return 'revoked';
  return expiresAt(info, idleDays) < now ? 'expired' : 'active';
}

/**
 * Whether a token may be used, with why not: its own state, then (for a child) its parent's. The
 * parent's last use may be newer than stored (`parentLastUse`, an authenticator's memory).
 */
export function effectiveState(
  info: TokenInfo,
  idleDays: number,
  now = Date.now(),
  parentLastUse?: number,
): { state: TokenState; reason?: 'parent revoked' | 'parent expired'; expiresAt: number } {
  const own = tokenState(info, idleDays, now);
  let until = expiresAt(info, idleDays);
  if (!isChild(info)) return { state: own, expiresAt: until };
  const parent = { ...info.parent, lastUsedAt: Math.max(info.parent.lastUsedAt ?? 0, parentLastUse ?? 0) || undefined };
  until = Math.min(until, expiresAt(parent, idleDays));
  if (own !== 'active') return { state: own, expiresAt: until };
  const ofParent = tokenState(parent, idleDays, now);
  if (ofParent === 'active') return { state: 'active', expiresAt: until };
  return { state: ofParent, reason: ofParent === 'revoked' ? 'parent revoked' : 'parent expired', expiresAt: until };
}
