import { formatFeedEntitlement, parseFeedEntitlement } from '../core/entitlements.js';
import { conflict } from '../core/errors.js';
import type { TokenRateLimit } from '../core/rate-limit.js';
import { generateToken, hashToken, type TokenInfo, type TokenOptions } from '../core/tokens.js';
import type { Database, Sql } from './database.js';

interface TokenRow {
  id: number;
  name: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  feeds: string | null;
  rate_limit: number | null;
  admin: number;
  parent_id: number | null;
  p_admin: number | null;
  p_created_at: number | null;
  p_last_used_at: number | null;
  p_revoked_at: number | null;
  p_feeds: string | null;
  p_rate_limit: number | null;
}

/** A token with its parent (the token that created it) as it stands, in one read. */
const SELECT = `SELECT t.id, t.name, t.created_at, t.last_used_at, t.revoked_at, t.feeds, t.rate_limit, t.admin, t.parent_id,
  p.admin AS p_admin, p.created_at AS p_created_at, p.last_used_at AS p_last_used_at, p.revoked_at AS p_revoked_at,
  p.feeds AS p_feeds, p.rate_limit AS p_rate_limit
  FROM tokens t LEFT JOIN tokens p ON p.id = t.parent_id`;
/** `rate_limit` column value meaning unlimited. */
const UNLIMITED = -1;

const rateLimitOf = (value: number): TokenRateLimit => (value === UNLIMITED ? 'unlimited' : value);

const toInfo = (row: TokenRow): TokenInfo => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
  ...(row.revoked_at !== null ? { revokedAt: row.revoked_at } : {}),
  ...(row.feeds !== null ? { feeds: parseFeedEntitlement(row.feeds) } : {}),
  ...(row.rate_limit !== null ? { rateLimit: rateLimitOf(row.rate_limit) } : {}),
  admin: Number(row.admin) === 1,
  ...(row.parent_id !== null ? { parentId: row.parent_id } : {}),
  ...(row.parent_id !== null && row.p_created_at !== null
    ? {
        parent: {
          id: row.parent_id,
          admin: Number(row.p_admin) === 1,
          createdAt: row.p_created_at,
          ...(row.p_last_used_at !== null ? { lastUsedAt: row.p_last_used_at } : {}),
          ...(row.p_revoked_at !== null ? { revokedAt: row.p_revoked_at } : {}),
          ...(row.p_feeds !== null ? { feeds: parseFeedEntitlement(row.p_feeds) } : {}),
          ...(row.p_rate_limit !== null ? { rateLimit: rateLimitOf(row.p_rate_limit) } : {}),
        },
      }
    : {}),
});

export class TokenRepository {
  constructor(private readonly db: Database) {}

  async create(name: string, options: TokenOptions = {}): Promise<{ token: string; info: TokenInfo }> {
    return this.insert(this.db, name, options);
  }

  /**
   * Creates a token whose parent is `parentId`, unless the parent already has `max` tokens that are
   * not revoked (409). Counting and inserting are one transaction, the parent's row locked on
   * PostgreSQL, so two requests at once cannot pass the bound together.
   */
  async createChild(
    parentId: number,
    name: string,
    options: Omit<TokenOptions, 'parentId' | 'admin'>,
    max: number,
  ): Promise<{ token: string; info: TokenInfo }> {
    return this.db.transaction(async (tx) => {
      if (tx.engine === 'postgres') await tx.run(`SELECT id FROM tokens WHERE id = ? FOR UPDATE`, [parentId]);
      const row = await tx.get<{ n: number | string }>(
        `SELECT COUNT(*) AS n FROM tokens WHERE parent_id = ? AND revoked_at IS NULL`,
        [parentId],
      );
      if (Number(row?.n ?? 0) >= max) {
        throw conflict(`token ${parentId} already has ${max} child tokens (the most); revoke one first`);
      }
      return this.insert(tx, name, { ...options, parentId });
    });
  }

  private async insert(sql: Sql, name: string, options: TokenOptions): Promise<{ token: string; info: TokenInfo }> {
    const token = generateToken();
    const rateLimit = options.rateLimit === 'unlimited' ? UNLIMITED : (options.rateLimit ?? null);
    const inserted = await sql.get<{ id: number }>(
      `INSERT INTO tokens (name, hash, created_at, feeds, rate_limit, admin, parent_id)
       VALUES (?, ?, ?, ?, CAST(? AS INTEGER), ?, CAST(? AS BIGINT)) RETURNING id`,
      [
        name,
        hashToken(token),
        Date.now(),
        options.feeds ? formatFeedEntitlement(options.feeds) : null,
        rateLimit,
        options.admin ? 1 : 0,
        options.parentId ?? null,
      ],
    );
    const row = await sql.get<TokenRow>(`${SELECT} WHERE t.id = ?`, [inserted!.id]);
    return { token, info: toInfo(row!) };
  }

  /** Every token, or those `parentId` created. */
  async list(filter: { parentId?: number } = {}): Promise<TokenInfo[]> {
    const rows =
      filter.parentId === undefined
        ? await this.db.all<TokenRow>(`${SELECT} ORDER BY t.id`)
        : await this.db.all<TokenRow>(`${SELECT} WHERE t.parent_id = ? ORDER BY t.id`, [filter.parentId]);
    return rows.map(toInfo);
  }

  async get(id: number): Promise<TokenInfo | undefined> {
    const row = await this.db.get<TokenRow>(`${SELECT} WHERE t.id = ?`, [id]);
    return row ? toInfo(row) : undefined;
  }

  /** The token with its parent's state, so a child of a revoked or expired parent is refused. */
  async findByToken(token: string): Promise<TokenInfo | undefined> {
    const row = await this.db.get<TokenRow>(`${SELECT} WHERE t.hash = ?`, [hashToken(token)]);
    return row ? toInfo(row) : undefined;
  }

  /** Revokes a token (and its children, see revokeCounting); false when no such token exists. */
  async revoke(id: number): Promise<boolean> {
    return (await this.revokeCounting(id)) !== undefined;
  }

  /**
   * Revokes a token and, when it is not an admin token, its children (they cannot outlive it; an
   * admin's tokens are tokens of their own). Undefined when no such token exists; else how many
   * children were revoked with it.
   */
  async revokeCounting(id: number): Promise<{ children: number } | undefined> {
    return this.db.transaction(async (tx) => {
      const now = Date.now();
      const target = await tx.get<{ admin: number }>(`SELECT admin FROM tokens WHERE id = ?`, [id]);
      if (!target) return undefined;
      await tx.run(`UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, [now, id]);
      if (Number(target.admin) === 1) return { children: 0 };
      const { changes } = await tx.run(`UPDATE tokens SET revoked_at = ? WHERE parent_id = ? AND revoked_at IS NULL`, [
        now,
        id,
      ]);
      return { children: changes };
    });
  }

  /** Writes last-use times gathered in memory; never moves a time backwards. */
  async recordLastUse(uses: Map<number, number>): Promise<void> {
    if (uses.size === 0) return;
    await this.db.transaction(async (tx) => {
      for (const [id, at] of uses) {
        await tx.run(`UPDATE tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`, [
          at,
          id,
          at,
        ]);
      }
    });
  }
}
