import type { ListenHandlers, Listening } from '../storage/index.js';

/** Subscribes to a storage channel that announces commits; undefined where storage announces none (SQLite). */
export type Watch = (handlers: ListenHandlers) => Promise<Listening | undefined>;

/**
 * Whether an index has to read storage before a query: always, unless storage announces commits
 * (PostgreSQL LISTEN) and none was announced since the last read began. A lost connection makes
 * every query read again until listening resumes.
 */
export class Announcements {
  private listening: Listening | undefined;
  private wanted = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** A commit may exist that the index has not read yet (always so unless listening). */
  private pending = true;
  /** Counts announcements and gaps in listening, for readers keeping their own copies (`epoch`). */
  private announced = 0;

  constructor(private readonly watch: Watch) {}

  get active(): boolean {
    return this.listening !== undefined;
  }

  /** Listening, with nothing announced since the last read began: the index is current. */
  get quiet(): boolean {
    return this.listening !== undefined && !this.pending;
  }

  /**
   * While listening, a number that changes with every announcement: what was read while it held one
   * value stays current as long as it does. Undefined when not listening (read every time).
   */
  get epoch(): number | undefined {
    return this.listening !== undefined ? this.announced : undefined;
  }

  /** Called as a read begins: an announcement arriving during the read sets `pending` again. */
  readStarted(): void {
    this.pending = false;
  }

  /** A read failed, or found something newer than announced: the next query reads again. */
  markPending(): void {
    this.pending = true;
  }

  /** Listens, retrying every `retryMs` after a failure or a lost connection, until stopped. */
  async listen(onError: (error: unknown) => void, retryMs = 1000): Promise<void> {
    this.wanted = true;
    const retry = () => {
      if (this.wanted) this.retryTimer = setTimeout(() => void this.listen(onError, retryMs), retryMs).unref();
    };
    let listening: Listening | undefined;
    try {
      listening = await this.watch({
        notified: () => {
          this.pending = true;
          this.announced++;
        },
        lost: (error) => {
          this.listening = undefined;
          this.pending = true;
          this.announced++;
          onError(error);
          retry();
        },
      });
    } catch (error) {
      onError(error);
      retry();
      return;
    }
    if (!listening) return;
    if (!this.wanted) return listening.close();
    this.listening = listening;
    // Commits before the LISTEN took effect were not announced: the next query reads.
    this.pending = true;
    this.announced++;
  }

  async stop(): Promise<void> {
    this.wanted = false;
    clearTimeout(this.retryTimer);
    const listening = this.listening;
    this.listening = undefined;
    this.pending = true;
    await listening?.close();
  }
}
