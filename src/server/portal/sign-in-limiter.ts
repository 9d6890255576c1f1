/**
 * Failed sign-ins per client address in a fixed window: beyond the limit, sign-in answers 429
 * until the window ends, so tokens cannot be guessed through the form at speed.
 */
export class SignInLimiter {
  private readonly failures = new Map<string, { count: number; until: number }>();

  constructor(
    private readonly limit = 10,
    private readonly windowMs = 15 * 60_000,
  ) {}

  /** Seconds until the address may try again, or 0 when it may now. */
  retryAfterSeconds(address: string, now = Date.now()): number {
    const entry = this.failures.get(address);
    if (!entry || entry.until <= now) return 0;
    return entry.count >= this.limit ? Math.ceil((entry.until - now) / 1000) : 0;
  }

  recordFailure(address: string, now = Date.now()): void {
    if (this.failures.size > 100_000) this.forgetExpired(now);
    const entry = this.failures.get(address);
    if (!entry || entry.until <= now) this.failures.set(address, { count: 1, until: now + this.windowMs });
    else entry.count++;
  }

  private forgetExpired(now: number): void {
    for (const [address, entry] of this.failures) if (entry.until <= now) this.failures.delete(address);
  }
}
