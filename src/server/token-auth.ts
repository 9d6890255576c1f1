import { unauthorized } from '../core/errors.js';
import { effectiveState, type TokenInfo } from '../core/tokens.js';
import type { TokenRepository } from '../storage/index.js';

const CACHE_MS = 1000;

/**
 * Verifies tokens. Last use is kept in memory and written in the background (no database write
 * per request); a short cache spares the database a lookup on every request while keeping a
 * revocation effective within a second.
 */
export class TokenAuthenticator {
  private readonly cache = new Map<string, { info: TokenInfo | undefined; at: number }>();
  private readonly lastUse = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repository: TokenRepository,
    private readonly idleDays: number,
  ) {}

  async authenticate(token: string | undefined): Promise<TokenInfo> {
    if (!token) throw unauthorized('unauthorized: no token given (use the Authorization header)');
    const now = Date.now();
    let cached = this.cache.get(token);
    if (!cached || now - cached.at > CACHE_MS) {
      cached = { info: await this.repository.findByToken(token), at: now };
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(token, cached);
    }
    const info = cached.info;
    if (!info) throw unauthorized('unauthorized: unknown token');
    const lastUsedAt = Math.max(info.lastUsedAt ?? 0, this.lastUse.get(info.id) ?? 0) || undefined;
    // A child lives no longer than its parent: the parent's state is read with the token.
    const parentLastUse = info.parent ? this.lastUse.get(info.parent.id) : undefined;
    const { state, reason } = effectiveState({ ...info, lastUsedAt }, this.idleDays, now, parentLastUse);
    if (reason === 'parent revoked') throw unauthorized('unauthorized: the token that created this token was revoked');
    if (reason === 'parent expired') {
      throw unauthorized(`unauthorized: the token that created this token expired after ${this.idleDays} days unused`);
    }
    if (state === 'revoked') throw unauthorized('unauthorized: token revoked');
    if (state === 'expired') throw unauthorized(`unauthorized: token expired after ${this.idleDays} days unused`);
    this.lastUse.set(info.id, now);
    return info;
  }

  /** The last use this process has seen but not yet written, if any (newer than storage's). */
  pendingLastUse(id: number): number | undefined {
    return this.lastUse.get(id);
  }

  /** Forgets cached lookups, so a change made by this process (a revocation) applies at once here. */
  forget(): void {
    this.cache.clear();
  }

  /** Writes gathered last-use times every `intervalMs`. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.timer = setInterval(() => this.flush().catch(onError), intervalMs);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.lastUse.size === 0) return;
    const uses = new Map(this.lastUse);
    this.lastUse.clear();
    try {
      await this.repository.recordLastUse(uses);
    } catch (error) {
      for (const [id, at] of uses) this.lastUse.set(id, Math.max(at, this.lastUse.get(id) ?? 0));
      throw error;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
