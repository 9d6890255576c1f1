import { randomUUID } from 'node:crypto';
import { tooManyRequests } from '../../core/errors.js';
import type { ExportLeaseRepository } from '../../storage/index.js';

/** How long a token's export lease lasts unrenewed: a process that died frees the token by then. */
const LEASE_MS = 60_000;
const RENEW_EVERY_MS = 20_000;
/** What a refused client is told to wait, in seconds. */
const RETRY_AFTER_SECONDS = 10;

/** A running export's hold on its slot and its token's lease; `release` frees both, once. */
export interface ExportTicket {
  /** Resolves once the token's lease is given back (errors go to the gate's `onError`). */
  release(): Promise<void>;
}

/**
 * Bounds exports: at most `perProcess` streaming in this process, and one per token across every
 * process on the database (a lease in storage, renewed while the export runs).
 */
export class ExportGate {
  private running = 0;
  private readonly holder = `${process.pid}:${randomUUID()}`;

  constructor(
    private readonly leases: ExportLeaseRepository,
    private readonly perProcess: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A ticket for the token's export, or a 429 with `Retry-After` when a bound is reached. */
  async admit(tokenId: number): Promise<ExportTicket> {
    if (this.running >= this.perProcess) {
      throw tooManyRequests(
        `too many exports running on this server (${this.perProcess}); try again shortly`,
        RETRY_AFTER_SECONDS,
      );
    }
    this.running++;
    let claimed = false;
    try {
      claimed = await this.leases.claim(tokenId, this.holder, LEASE_MS);
    } finally {
      if (!claimed) this.running--;
    }
    if (!claimed) {
      throw tooManyRequests(
        'this token already runs an export; wait for it to finish (one export per token at a time)',
        RETRY_AFTER_SECONDS,
      );
    }
    const renewal = setInterval(() => {
      this.leases.renew(tokenId, this.holder, LEASE_MS).catch(this.onError);
    }, RENEW_EVERY_MS);
    renewal.unref();
    let released: Promise<void> | undefined;
    return {
      release: () => {
        if (!released) {
          clearInterval(renewal);
          this.running--;
          released = this.leases.release(tokenId, this.holder).catch(this.onError);
        }
        return released;
      },
    };
  }
}
