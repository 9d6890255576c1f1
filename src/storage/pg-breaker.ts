import type { Socket } from 'node:net';
import pg from 'pg';
import { unavailable } from '../core/errors.js';

/** How often the probe asks while the breaker is closed, and retries while it is open. */
const PROBE_INTERVAL_MS = 500;

export interface BreakerStatus {
  state: 'closed' | 'open';
  /** When the state last changed (epoch ms). */
  since: number;
  /** Why it opened, for logs and the operator status (never sent to API clients). */
  reason?: string;
}

/**
 * A circuit breaker in front of one PostgreSQL pool. A probe (`SELECT 1` on a connection of its
 * own, bounded by `probeMs`) runs every half second; when it fails, the breaker opens: every
 * pending call is rejected at once with a 503, new calls fail without touching the pool, and the
 * pool's connections are cut so that nothing waits on the silent server. The first probe that
 * succeeds closes it again, so the process recovers without a restart.
 */
export class PostgresBreaker {
  private state: BreakerStatus = { state: 'closed', since: Date.now() };
  private readonly pending = new Set<(error: unknown) => void>();
  private readonly connections = new Set<pg.Client>();
  private probeClient: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private probing = false;
  private readonly listeners = new Set<(status: BreakerStatus) => void>();

  constructor(
    private readonly clientConfig: pg.ClientConfig,
    private readonly probeMs: number,
  ) {}

  /** Calls `listener` whenever the breaker opens or closes. */
  onChange(listener: (status: BreakerStatus) => void): void {
    this.listeners.add(listener);
  }

  /** Tracks the pool's connections so that opening can cut them. */
  watch(pool: pg.Pool): void {
    pool.on('connect', (client) => this.connections.add(client));
    pool.on('remove', (client) => this.connections.delete(client));
  }

  start(): void {
    this.schedule(PROBE_INTERVAL_MS);
  }

  status(): BreakerStatus {
    return { ...this.state };
  }

  /** Runs `work` unless the breaker is open; rejects with a 503 the moment it opens. */
  guard<T>(work: () => Promise<T>): Promise<T> {
    if (this.state.state === 'open') return Promise.reject(this.refusal());
    return new Promise<T>((resolve, reject) => {
      this.pending.add(reject);
      work().then(
        (value) => {
          this.pending.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.pending.delete(reject);
          reject(error);
        },
      );
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.dropProbeClient();
  }

  private refusal() {
    return unavailable(
      `PostgreSQL breaker open: ${this.state.reason ?? 'the database did not answer'}`,
      'database_unreachable',
    );
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.probe(), ms);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    if (this.probing || this.stopped) return;
    this.probing = true;
    try {
      await this.ask();
      if (this.state.state === 'open') this.change({ state: 'closed', since: Date.now() });
    } catch (error) {
      this.dropProbeClient();
      if (this.state.state === 'closed') this.open((error as Error).message);
    } finally {
      this.probing = false;
      this.schedule(PROBE_INTERVAL_MS);
    }
  }

  /** One `SELECT 1`, connecting first when needed, within `probeMs` in all. */
  private async ask(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      // Decided after the next I/O poll: a late event loop alone must not count as a silent database.
      const fail = () => reject(new Error(`no answer to the probe within ${this.probeMs} ms`));
      timer = setTimeout(() => setImmediate(fail), this.probeMs);
    });
    try {
      await Promise.race([this.query(), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async query(): Promise<void> {
    if (!this.probeClient) {
      const client = new pg.Client({ ...this.clientConfig, connectionTimeoutMillis: this.probeMs });
      client.on('error', () => {});
      this.probeClient = client;
      await client.connect();
    }
    await this.probeClient.query('SELECT 1');
  }

  private open(reason: string): void {
    this.change({ state: 'open', since: Date.now(), reason });
    const refusal = this.refusal();
    for (const reject of this.pending) reject(refusal);
    this.pending.clear();
    // Queries stuck on a silent server would hold their connections until a timeout: cut them now.
    this.cutConnections();
  }

  /** Cuts every pooled connection: their statements fail at once. */
  cutConnections(): void {
    for (const client of this.connections) socketOf(client)?.destroy();
  }

  private change(status: BreakerStatus): void {
    this.state = status;
    for (const listener of this.listeners) listener(this.status());
  }

  private dropProbeClient(): void {
    const client = this.probeClient;
    this.probeClient = undefined;
    if (!client) return;
    socketOf(client)?.destroy();
    // Not awaited: ending a connection whose socket is gone may never settle.
    void client.end().catch(() => {});
  }
}

/** The client's socket (pg keeps it on its connection object). */
function socketOf(client: pg.Client): Socket | undefined {
  return (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
}
