import pg from 'pg';
import type { JobLock } from './job-lock.js';

/** Seconds: a dead peer is noticed by either side within about idle + interval × count. */
const KEEPALIVE = { idle: 5, interval: 5, count: 3 };
const QUERY_TIMEOUT_MS = 5000;
const RELEASE_TIMEOUT_MS = 2000;

/**
 * PostgreSQL: a session-level advisory lock, keyed by this schema, held on a connection of its
 * own. It lasts exactly as long as that connection: a process that dies (kill -9 included) loses
 * its connection and with it the lock, which the server then grants to the next claimant. TCP
 * keepalive on both ends turns a vanished machine into a closed connection within about 20 s.
 */
export class PostgresJobLock implements JobLock {
  private client: pg.Client | undefined;
  private held = false;

  constructor(
    private readonly url: string,
    private readonly schema: string | undefined,
    private readonly holder: string,
  ) {
    if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  }

  async claim(): Promise<boolean> {
    try {
      const client = this.client ?? (await this.connect());
      if (this.held) {
        // The lock is the connection's: a connection that still answers still holds it.
        await client.query('SELECT 1');
        return true;
      }
      const result = await client.query<{ locked: boolean }>(
        `SELECT pg_try_advisory_lock(hashtext('vulnscope:jobs'), hashtext(current_schema())) AS locked`,
      );
      this.held = result.rows[0]?.locked === true;
      return this.held;
    } catch (error) {
      this.drop();
      throw error;
    }
  }

  async release(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.held = false;
    if (!client) return;
    // Ending the session releases its advisory locks; a silent server must not hold a stop up.
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      client.end().then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), RELEASE_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!ended) (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      ...(this.schema ? { options: `-c search_path=${this.schema}` } : {}),
      application_name: `vulnscope-jobs ${this.holder}`.slice(0, 63),
      connectionTimeoutMillis: QUERY_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE.idle * 1000,
    });
    client.on('error', () => this.drop(client));
    client.on('end', () => this.drop(client));
    this.client = client;
    await client.connect();
    await client.query(
      `SET tcp_keepalives_idle = ${KEEPALIVE.idle}; SET tcp_keepalives_interval = ${KEEPALIVE.interval}; SET tcp_keepalives_count = ${KEEPALIVE.count}`,
    );
    return client;
  }

  /** Forgets a connection that failed (the lock went with it); the next claim opens another. */
  private drop(client = this.client): void {
    if (!client || client !== this.client) return;
    this.client = undefined;
    this.held = false;
    client.end().catch(() => {});
  }
}
