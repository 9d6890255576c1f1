import type { Database } from './database.js';

/**
 * Which token is running an export, shared by every process on the database: a lease its holder
 * renews while it streams and anyone may take once it has run out, so a process that died (kill -9
 * included) frees its tokens after at most the lease's length. One statement takes it, so two
 * processes never both succeed.
 */
export class ExportLeaseRepository {
  constructor(private readonly db: Database) {}

  /** Takes the token's lease for `holder` until `now + leaseMs`; false while another holds it. */
  async claim(tokenId: number, holder: string, leaseMs: number, now = Date.now()): Promise<boolean> {
    const { changes } = await this.db.run(
      `INSERT INTO export_leases (token_id, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (token_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE export_leases.expires_at < ?`,
      [tokenId, holder, now + leaseMs, now],
    );
    return changes === 1;
  }

  /** Extends the holder's lease; false when it was lost (ran out and taken by another). */
  async renew(tokenId: number, holder: string, leaseMs: number, now = Date.now()): Promise<boolean> {
    const { changes } = await this.db.run(`UPDATE export_leases SET expires_at = ? WHERE token_id = ? AND holder = ?`, [
      now + leaseMs,
      tokenId,
      holder,
    ]);
    return changes === 1;
  }

  async release(tokenId: number, holder: string): Promise<void> {
    await this.db.run(`DELETE FROM export_leases WHERE token_id = ? AND holder = ?`, [tokenId, holder]);
  }
}
