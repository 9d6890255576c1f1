import type { Config } from '../../config.js';
import { checkEntitledFeeds, formatFeedEntitlement, type FeedEntitlement } from '../../core/entitlements.js';
import { notFound } from '../../core/errors.js';
import { budgetFor, describeBudget, RATE_GROUPS, type TokenRateLimit } from '../../core/rate-limit.js';
import { FeedRegistry } from '../../services/feed-registry.js';
import { createStorage } from '../../storage/index.js';
import { tokenState, type TokenInfo } from '../../core/tokens.js';
import { printTable } from '../output.js';

export interface CreateTokenOptions {
  feeds?: FeedEntitlement;
  rateLimit?: TokenRateLimit;
}

/**
 * Prints only the token on stdout, so scripts can capture it. Its feeds must be known: registered
 * (built in or in the feed registry file) or loaded.
 */
export async function createToken(config: Config, name: string, options: CreateTokenOptions = {}): Promise<void> {
  const storage = await createStorage(config.database);
  try {
    const feeds = options.feeds ?? config.defaultFeeds;
    const known = [
      ...new FeedRegistry(config.feeds).list().map((feed) => feed.name),
      ...(await storage.advisories.feeds()).map((feed) => feed.name),
    ];
    checkEntitledFeeds(feeds, known, options.feeds ? '--feeds' : 'VULNSCOPE_DEFAULT_FEEDS');
    const { token, info } = await storage.tokens.create(name, {
      feeds,
      ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
    });
    process.stdout.write(`${token}\n`);
    process.stderr.write(
      `created token ${info.id} "${info.name}" (feeds ${formatFeedEntitlement(info.feeds!)}, rate limit ${describeRateLimit(info, config)}; shown once: store it now)\n`,
    );
  } finally {
    await storage.close();
  }
}

function describeFeeds(info: TokenInfo, config: Config): string {
  return info.feeds ? formatFeedEntitlement(info.feeds) : `default (${formatFeedEntitlement(config.defaultFeeds)})`;
}

/**
 * The token's budget in words, with its window: its own limit over each endpoint group's window
 * (`50 requests per 60 s`), or the server's default (`default (600 requests per 60 s)`); per group
 * when the groups differ.
 */
function describeRateLimit(info: TokenInfo, config: Config): string {
  if (info.rateLimit === 'unlimited') return 'unlimited';
  const budgets = RATE_GROUPS.map((group) => describeBudget(budgetFor(config.rateLimits, group, info.rateLimit)));
  const described =
    new Set(budgets).size === 1 ? budgets[0]! : RATE_GROUPS.map((group, i) => `${group} ${budgets[i]}`).join(', ');
  return info.rateLimit === undefined ? `default (${described})` : described;
}

export async function listTokens(config: Config, json: boolean): Promise<void> {
  const storage = await createStorage(config.database);
  try {
    const rows = (await storage.tokens.list()).map((info) => ({
      id: info.id,
      name: info.name,
      created: new Date(info.createdAt).toISOString(),
      last_used: info.lastUsedAt ? new Date(info.lastUsedAt).toISOString() : 'never',
      state: tokenState(info, config.tokenIdleDays),
      feeds: describeFeeds(info, config),
      rate_limit: describeRateLimit(info, config),
    }));
    if (json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    printTable(rows, {
      id: 'ID',
      name: 'NAME',
      created: 'CREATED',
      last_used: 'LAST USED',
      state: 'STATE',
      feeds: 'FEEDS',
      rate_limit: 'RATE LIMIT',
    });
  } finally {
    await storage.close();
  }
}

export async function revokeToken(config: Config, id: number): Promise<void> {
  const storage = await createStorage(config.database);
  try {
    if (!(await storage.tokens.revoke(id))) throw notFound(`no token with id ${id}`);
    process.stderr.write(`revoked token ${id}\n`);
  } finally {
    await storage.close();
  }
}
