import type { Config } from '../../config.js';
import { formatFeedEntitlement, type FeedEntitlement } from '../../core/entitlements.js';
import { notFound } from '../../core/errors.js';
import { formatBudget, RATE_GROUPS, type TokenRateLimit } from '../../core/rate-limit.js';
import { createStorage } from '../../storage/index.js';
import { tokenState, type TokenInfo } from '../../core/tokens.js';
import { printTable } from '../output.js';

export interface CreateTokenOptions {
  feeds?: FeedEntitlement;
  rateLimit?: TokenRateLimit;
}

/** Prints only the token on stdout, so scripts can capture it. */
export async function createToken(config: Config, name: string, options: CreateTokenOptions = {}): Promise<void> {
  const storage = await createStorage(config.database);
  try {
    const { token, info } = await storage.tokens.create(name, {
      feeds: options.feeds ?? config.defaultFeeds,
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

/** The token's own budget, or the server's (per group when the groups differ). */
function describeRateLimit(info: TokenInfo, config: Config): string {
  if (info.rateLimit === 'unlimited') return 'unlimited';
  if (info.rateLimit !== undefined) return `${info.rateLimit} per window`;
  const budgets = new Set(RATE_GROUPS.map((group) => formatBudget(config.rateLimits[group])));
  return budgets.size === 1 ? `default (${[...budgets][0]})` : 'default (per group)';
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
