import { formatFeedEntitlement, parseFeedEntitlement } from '../core/entitlements.js';
import { generateToken, hashToken, type TokenInfo, type TokenOptions } from '../core/tokens.js';
import type { Database } from './database.js';

interface TokenRow {
  id: number;
  name: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  feeds: string | null;
  rate_limit: number | null;
}

const COLUMNS = 'id, name, created_at, last_used_at, revoked_at, feeds, rate_limit';
/** `rate_limit` column value meaning unlimited. */
const UNLIMITED = -1;

const toInfo = (row: TokenRow): TokenInfo => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
  ...(row.revoked_at !== null ? { revokedAt: row.revoked_at } : {}),
  ...(row.feeds !== null ? { feeds: parseFeedEntitlement(row.feeds) } : {}),
  ...(row.rate_limit !== null ? { rateLimit: row.rate_limit === UNLIMITED ? 'unlimited' : row.rate_limit } : {}),
});

export class TokenRepository {
  constructor(private readonly db: Database) {}

  async create(name: string, options: TokenOptions = {}): Promise<{ token: string; info: TokenInfo }> {
    const token = generateToken();
    const rateLimit = options.rateLimit === 'unlimited' ? UNLIMITED : (options.rateLimit ?? null);
    const row = await this.db.get<TokenRow>(
      `INSERT INTO tokens (name, hash, created_at, feeds, rate_limit) VALUES (?, ?, ?, ?, CAST(? AS INTEGER)) RETURNING ${COLUMNS}`,
      [name, hashToken(token), Date.now(), options.feeds ? formatFeedEntitlement(options.feeds) : null, rateLimit],
    );
    return { token, info: toInfo(row!) };
  }

  async list(): Promise<TokenInfo[]> {
    const rows = await this.db.all<TokenRow>(`SELECT ${COLUMNS} FROM tokens ORDER BY id`);
    return rows.map(toInfo);
  }

  async findByToken(token: string): Promise<TokenInfo | undefined> {
    const row = await this.db.get<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE hash = ?`, [hashToken(token)]);
    return row ? toInfo(row) : undefined;
  }

  /** Returns false when no such token exists. */
  async revoke(id: number): Promise<boolean> {
    const { changes } = await this.db.run(`UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, [
      Date.now(),
      id,
    ]);
    return changes > 0;
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
