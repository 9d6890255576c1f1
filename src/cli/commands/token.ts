import type { Config } from '../../config.js';
import { type FeedEntitlement, formatFeedEntitlement } from '../../core/entitlements.js';
import { budgetFor, describeBudget, RATE_GROUPS, type TokenRateLimit } from '../../core/rate-limit.js';
import { budgetHolder, type TokenInfo } from '../../core/tokens.js';
import { OPERATOR, TokenAdmin } from '../../services/token-admin.js';
import { createStorage, type Storage } from '../../storage/index.js';
import { printTable } from '../output.js';

export interface CreateTokenOptions {
  feeds?: FeedEntitlement;
  rateLimit?: TokenRateLimit;
  /** May manage every token over HTTP (`/v3/tokens`); granted only here. */
  admin?: boolean;
}

/** The CLI's flags, as messages name them. */
const FLAGS = { name: '--name', feeds: '--feeds', rateLimit: '--rate-limit' };

async function withAdmin<T>(config: Config, fn: (admin: TokenAdmin, storage: Storage) => Promise<T>): Promise<T> {
  const storage = await createStorage(config.database);
  try {
    return await fn(new TokenAdmin(storage, config), storage);
  } finally {
    await storage.close();
  }
}

/**
 * Prints only the token on stdout, so scripts can capture it. Its feeds must be known: registered
 * (built in or in the feed registry file) or loaded.
 */
export async function createToken(config: Config, name: string, options: CreateTokenOptions = {}): Promise<void> {
  await withAdmin(config, async (admin) => {
    const { token, info } = await admin.create(
      OPERATOR,
      {
        name,
        ...(options.feeds ? { feeds: options.feeds } : {}),
        ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
        ...(options.admin ? { admin: true } : {}),
      },
      FLAGS,
    );
    process.stdout.write(`${token}\n`);
    process.stderr.write(
      `created ${info.admin ? 'admin ' : ''}token ${info.id} "${info.name}" (feeds ${formatFeedEntitlement(info.feeds!)}, rate limit ${describeRateLimit(info, config)}; shown once: store it now)\n`,
    );
  });
}

function describeFeeds(info: TokenInfo, config: Config): string {
  return info.feeds ? formatFeedEntitlement(info.feeds) : `default (${formatFeedEntitlement(config.defaultFeeds)})`;
}

/**
 * The token's budget in words, with its window: its own limit over each endpoint group's window
 * (`50 requests per 60 s`), or the server's default (`default (600 requests per 60 s)`); per group
 * when the groups differ. A child token spends its parent's (`parent's: …`).
 */
function describeRateLimit(info: TokenInfo, config: Config): string {
  const holder = budgetHolder(info);
  const shared = holder.id !== info.id ? `token ${holder.id}'s: ` : '';
  if (holder.rateLimit === 'unlimited') return `${shared}unlimited`;
  const budgets = RATE_GROUPS.map((group) => describeBudget(budgetFor(config.rateLimits, group, holder.rateLimit)));
  const described =
    new Set(budgets).size === 1 ? budgets[0]! : RATE_GROUPS.map((group, i) => `${group} ${budgets[i]}`).join(', ');
  return `${shared}${holder.rateLimit === undefined ? `default (${described})` : described}`;
}

export async function listTokens(config: Config, json: boolean): Promise<void> {
  await withAdmin(config, async (admin) => {
    const rows = (await admin.list(OPERATOR)).map((info) => {
      const view = admin.view(info);
      return {
        id: info.id,
        name: info.name,
        created: view.created_at,
        last_used: view.last_used_at ?? 'never',
        state: view.state,
        admin: info.admin,
        parent: info.parentId ?? null,
        feeds: describeFeeds(info, config),
        rate_limit: describeRateLimit(info, config),
      };
    });
    if (json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    printTable(
      rows.map((row) => ({ ...row, admin: row.admin ? 'yes' : 'no', parent: row.parent ?? '-' })),
      {
        id: 'ID',
        name: 'NAME',
        created: 'CREATED',
        last_used: 'LAST USED',
        state: 'STATE',
        admin: 'ADMIN',
        parent: 'PARENT',
        feeds: 'FEEDS',
        rate_limit: 'RATE LIMIT',
      },
    );
  });
}

export async function revokeToken(config: Config, id: number): Promise<void> {
  await withAdmin(config, async (admin) => {
    const { children } = await admin.revoke(OPERATOR, id);
    process.stderr.write(
      `revoked token ${id}${children > 0 ? ` and the ${children} child token${children === 1 ? '' : 's'} it created` : ''}\n`,
    );
  });
}
