/**
 * Token management, one implementation for the CLI (the operator on the server) and the HTTP
 * endpoints (`/v3/tokens`, acting as the calling token). The rules:
 *
 * - The operator may do anything, and only the operator grants admin (`token create --admin`).
 * - An admin token lists every token, creates tokens (name, feeds, rate limit; never admin) and
 *   revokes any token. The tokens it creates are tokens of their own; their parent id records it.
 * - Any other token may create up to MAX_CHILD_TOKENS child tokens (those not revoked count). A
 *   child spends its parent's budget, reads at most its parent's feeds, creates no tokens, and
 *   lives no longer than its parent. Such a token lists and revokes only the tokens it created;
 *   any other id is answered as if it did not exist.
 */
import type { Config } from '../config.js';
import { checkEntitledFeeds, type FeedEntitlement, feedsBeyond, formatFeedEntitlement } from '../core/entitlements.js';
import { badRequest, forbidden, notFound } from '../core/errors.js';
import { budgetFor, formatBudget, RATE_GROUPS, type TokenRateLimit } from '../core/rate-limit.js';
import {
  budgetHolder,
  effectiveFeeds,
  effectiveState,
  isChild,
  MAX_CHILD_TOKENS,
  type TokenInfo,
  type TokenState,
} from '../core/tokens.js';
import type { Storage } from '../storage/index.js';
import { FeedRegistry } from './feed-registry.js';

/** Who asks: the operator on the server (the CLI), or a token over HTTP. */
export type TokenActor = { kind: 'operator' } | { kind: 'token'; token: TokenInfo };

export const OPERATOR: TokenActor = { kind: 'operator' };

export interface NewToken {
  name: string;
  feeds?: FeedEntitlement;
  rateLimit?: TokenRateLimit;
  /** Refused unless the operator asks. */
  admin?: boolean;
}

/** A token as the API and `token list --json` show it (never its secret). */
export interface TokenView {
  id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
  /** When it expires unless used before (a child's is no later than its parent's). */
  expires_at: string;
  state: TokenState;
  /** The feeds it may read: names, `["*"]` for every feed, `[]` for none. */
  feeds: string[];
  /** Its own budget setting: requests per window, `unlimited`, or `default` (VULNSCOPE_RATE_LIMIT); a child's is its parent's. */
  rate_limit: number | 'unlimited' | 'default';
  /** The budget it spends per endpoint group, as `/v3/entitlements` writes it (`index=600/60s`). */
  budgets: string[];
  admin: boolean;
  /** The token that created it over HTTP; null for tokens made on the server. */
  parent_id: number | null;
  /** A child token: spends its parent's budget and lives no longer than it. */
  child: boolean;
}

export interface TokenAdminOptions {
  /** Last uses newer than storage's (a server's authenticator keeps them in memory a while). */
  pendingLastUse?: (id: number) => number | undefined;
  registry?: FeedRegistry;
}

export class TokenAdmin {
  private readonly registry: FeedRegistry;

  constructor(
    private readonly storage: Storage,
    private readonly config: Config,
    private readonly options: TokenAdminOptions = {},
  ) {
    this.registry = options.registry ?? new FeedRegistry(config.feeds);
  }

  /** The operator and admin tokens see every token; another token, the tokens it created. */
  async list(actor: TokenActor): Promise<TokenInfo[]> {
    if (actor.kind === 'operator' || actor.token.admin) return this.storage.tokens.list();
    return this.storage.tokens.list({ parentId: actor.token.id });
  }

  /** A token the actor may see, by id; 404 for any other, whether or not it exists. */
  async describe(actor: TokenActor, id: number): Promise<TokenInfo> {
    const info = await this.storage.tokens.get(id);
    const visible =
      actor.kind === 'operator' || actor.token.admin || id === actor.token.id || info?.parentId === actor.token.id;
    if (!info || !visible) throw missing(id);
    return info;
  }

  /** Creates a token; its secret is in the answer and nowhere else, ever. */
  async create(
    actor: TokenActor,
    request: NewToken,
    source = FIELD_NAMES,
  ): Promise<{ token: string; info: TokenInfo }> {
    const name = request.name.trim();
    if (name === '') throw badRequest(`${source.name} must not be empty`);
    if (request.admin && actor.kind !== 'operator') {
      throw forbidden('forbidden: admin tokens are created only on the server, with "vulnscope token create --admin"');
    }
    if (actor.kind === 'operator' || actor.token.admin) {
      const feeds = request.feeds ?? this.config.defaultFeeds;
      checkEntitledFeeds(feeds, await this.knownFeeds(), request.feeds ? source.feeds : 'VULNSCOPE_DEFAULT_FEEDS');
      return this.storage.tokens.create(name, {
        feeds,
        ...(request.rateLimit !== undefined ? { rateLimit: request.rateLimit } : {}),
        ...(request.admin ? { admin: true } : {}),
        ...(actor.kind === 'token' ? { parentId: actor.token.id } : {}),
      });
    }
    const parent = actor.token;
    if (isChild(parent)) {
      throw forbidden(`forbidden: token ${parent.id} is a child token, and child tokens cannot create tokens`);
    }
    if (request.rateLimit !== undefined) {
      throw badRequest(
        `${source.rateLimit}: a child token spends the budget of the token that creates it, so it takes no rate limit of its own`,
      );
    }
    const within = effectiveFeeds(parent, this.config.defaultFeeds);
    const feeds = request.feeds ?? within;
    const beyond = feedsBeyond(feeds, within);
    if (beyond.length > 0) {
      throw forbidden(
        `forbidden: ${source.feeds}: a child token may read only feeds its parent may read (${formatFeedEntitlement(within)}); not ${beyond.map((feed) => `"${feed}"`).join(', ')}`,
      );
    }
    checkEntitledFeeds(feeds, await this.knownFeeds(), source.feeds);
    return this.storage.tokens.createChild(parent.id, name, { feeds }, MAX_CHILD_TOKENS);
  }

  /**
   * Revokes a token the actor may revoke (the operator and admins: any; another token: those it
   * created), with its children when it has any. Answers the token as revoked.
   */
  async revoke(actor: TokenActor, id: number): Promise<{ info: TokenInfo; children: number }> {
    if (actor.kind === 'token' && !actor.token.admin && id === actor.token.id) {
      throw forbidden(
        `forbidden: token ${id} cannot revoke itself; the tokens it created are revoked by id, it is revoked by an admin or on the server`,
      );
    }
    await this.describe(actor, id);
    const revoked = await this.storage.tokens.revokeCounting(id);
    const info = await this.storage.tokens.get(id);
    if (!revoked || !info) throw missing(id);
    return { info, children: revoked.children };
  }

  /** The view of a token, its state and expiry counting its parent's and the last uses not yet written. */
  view(info: TokenInfo, now = Date.now()): TokenView {
    const pending = this.options.pendingLastUse;
    const lastUsedAt = Math.max(info.lastUsedAt ?? 0, pending?.(info.id) ?? 0) || undefined;
    const parentLastUse = info.parent ? pending?.(info.parent.id) : undefined;
    const { state, expiresAt } = effectiveState({ ...info, lastUsedAt }, this.config.tokenIdleDays, now, parentLastUse);
    const holder = budgetHolder(info);
    const feeds = effectiveFeeds(info, this.config.defaultFeeds);
    return {
      id: info.id,
      name: info.name,
      created_at: new Date(info.createdAt).toISOString(),
      last_used_at: lastUsedAt ? new Date(lastUsedAt).toISOString() : null,
      expires_at: new Date(expiresAt).toISOString(),
      state,
      feeds: feeds.all ? ['*'] : [...feeds.feeds],
      rate_limit: holder.rateLimit ?? 'default',
      budgets: RATE_GROUPS.map(
        (group) => `${group}=${formatBudget(budgetFor(this.config.rateLimits, group, holder.rateLimit))}`,
      ),
      admin: info.admin,
      parent_id: info.parentId ?? null,
      child: isChild(info),
    };
  }

  private async knownFeeds(): Promise<string[]> {
    return [
      ...this.registry.list().map((feed) => feed.name),
      ...(await this.storage.advisories.feeds()).map((feed) => feed.name),
    ];
  }
}

/** How the fields of a creation are named in messages: the API's body fields, or the CLI's options. */
export interface FieldNames {
  name: string;
  feeds: string;
  rateLimit: string;
}

export const FIELD_NAMES: FieldNames = { name: '"name"', feeds: '"feeds"', rateLimit: '"rate_limit"' };

const missing = (id: number) => notFound(`no token with id ${id}`);
