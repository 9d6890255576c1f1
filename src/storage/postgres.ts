import pg from 'pg';
import { DEFAULT_POSTGRES_TIMEOUTS, type PostgresTimeouts } from '../config.js';
import { unavailable } from '../core/errors.js';
import type { Database, ListenHandlers, Listening, Sql, SqlValue } from './database.js';
import { type BreakerStatus, PostgresBreaker } from './pg-breaker.js';

// BIGINT columns hold epoch milliseconds and ids, all well inside Number's exact range.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** `?` placeholders become `$1, $2, …` (our SQL never contains a literal `?`). */
const numbered = new Map<string, string>();
function toPostgres(sql: string): string {
  let converted = numbered.get(sql);
  if (converted === undefined) {
    let n = 0;
    converted = sql.replace(/\?/g, () => `$${++n}`);
    numbered.set(sql, converted);
  }
  return converted;
}

const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);

/** How long closing waits for statements in flight before cutting their connections. */
const CLOSE_WAIT_MS = 2_000;

/** unique_violation on the catalog and duplicate_schema: what `CREATE SCHEMA IF NOT EXISTS` raises when it races. */
const SCHEMA_CREATED_CONCURRENTLY = new Set(['23505', '42P06']);

/** Connection-level failures become the 503 family member; everything else passes through. */
function translate(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? '';
  if (
    (code && CONNECTION_ERRORS.has(code)) ||
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Query read timeout/i.test(
      message,
    )
  ) {
    return unavailable('the database is unreachable; try again shortly', 'database_unreachable');
  }
  return error;
}

/**
 * Statements over a pool or one client, through the breaker; `queryMs` (0: none) bounds each
 * statement on the client side, where a server-side timeout cannot help a silent server.
 */
function wrap(client: pg.Pool | pg.PoolClient, breaker: PostgresBreaker, queryMs: number): Sql {
  const query = async (sql: string, params: SqlValue[], rowMode?: 'array') => {
    try {
      const text = toPostgres(sql);
      // pg reads `query_timeout` from a query's config; its type declarations leave it out.
      const config = {
        text,
        values: params,
        ...(rowMode ? { rowMode } : {}),
        ...(queryMs > 0 ? { query_timeout: queryMs } : {}),
      } as pg.QueryConfig;
      return await breaker.guard(() => client.query(config));
    } catch (error) {
      throw translate(error);
    }
  };
  return {
    engine: 'postgres',
    async all<T>(sql: string, params: SqlValue[] = []) {
      return (await query(sql, params)).rows as T[];
    },
    async arrays<T extends unknown[]>(sql: string, params: SqlValue[] = []) {
      return (await query(sql, params, 'array')).rows as T[];
    },
    async get<T>(sql: string, params: SqlValue[] = []) {
      return (await query(sql, params)).rows[0] as T | undefined;
    },
    async run(sql: string, params: SqlValue[] = []) {
      return { changes: (await query(sql, params)).rowCount ?? 0 };
    },
  };
}

export interface PostgresOptions {
  schema?: string;
  timeouts?: PostgresTimeouts;
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const { schema } = options;
  const timeouts = options.timeouts ?? DEFAULT_POSTGRES_TIMEOUTS;
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const serverOptions = [
    ...(schema ? [`-c search_path=${schema}`] : []),
    // A transaction whose client went away must not hold its locks.
    ...(timeouts.queryMs > 0 ? [`-c idle_in_transaction_session_timeout=${timeouts.queryMs}`] : []),
  ];
  const clientConfig: pg.ClientConfig = {
    connectionString: url,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(serverOptions.length > 0 ? { options: serverOptions.join(' ') } : {}),
  };
  const pool = new pg.Pool({
    ...clientConfig,
    max: 8,
    connectionTimeoutMillis: timeouts.connectMs,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const breaker = new PostgresBreaker(clientConfig, timeouts.probeMs);
  breaker.watch(pool);
  if (schema) {
    const client = await pool.connect().catch((error) => {
      throw translate(error);
    });
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } catch (error) {
      // Two processes creating the same new schema at once: the loser's statement fails, the schema exists.
      if (!SCHEMA_CREATED_CONCURRENTLY.has((error as { code?: string }).code ?? '')) throw translate(error);
    } finally {
      client.release();
    }
  }
  breaker.start();
  const direct = wrap(pool, breaker, timeouts.queryMs);
  const safeUrl = url.replace(/\/\/[^@/]*@/, '//');
  return {
    ...direct,
    description: `postgres:${safeUrl}${schema ? ` (schema ${schema})` : ''}`,
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await breaker.guard(() => pool.connect());
      } catch (error) {
        throw translate(error);
      }
      let broken = false;
      // Statements of a transaction may run long (migrations, bulk loads): only the breaker bounds them.
      const tx = wrap(client, breaker, 0);
      try {
        await tx.run('BEGIN');
        const result = await fn(tx);
        await tx.run('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        throw translate(error);
      } finally {
        client.release(broken);
      }
    },
    async ping() {
      await direct.get('SELECT 1');
    },
    breakerStatus: () => breaker.status(),
    onBreakerChange: (listener: (status: BreakerStatus) => void) => breaker.onChange(listener),
    async close() {
      await breaker.stop();
      // A statement stuck on a slow or silent server must not hold a stopping process.
      const ended = pool.end();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), CLOSE_WAIT_MS);
      });
      if ((await Promise.race([ended, late])) === 'late') {
        breaker.cutConnections();
        await ended.catch(() => {});
      }
      clearTimeout(timer);
    },
    listen: (channel, handlers) => listen(clientConfig, channel, handlers),
  };
}

/** LISTEN on a client outside the pool: a pooled connection would be handed to queries and released. */
async function listen(config: pg.ClientConfig, channel: string, handlers: ListenHandlers): Promise<Listening> {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 5000 });
  let closing = false;
  let lost = false;
  const loseOnce = (error: Error) => {
    if (closing || lost) return;
    lost = true;
    handlers.lost(error);
    client.end().catch(() => {});
  };
  client.on('error', loseOnce);
  client.on('end', () => loseOnce(new Error('the notification connection closed')));
  try {
    await client.connect();
    const schema = (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]!.schema;
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload === schema) handlers.notified();
    });
    await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
  } catch (error) {
    closing = true;
    await client.end().catch(() => {});
    throw translate(error);
  }
  return {
    async close() {
      closing = true;
      await client.end().catch(() => {});
    },
  };
}
