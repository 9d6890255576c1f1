import pg from 'pg';
import { unavailable } from '../core/errors.js';
import type { Database, ListenHandlers, Listening, Sql, SqlValue } from './database.js';

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

/** Connection-level failures become the 503 family member; everything else passes through. */
function translate(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? '';
  if (
    (code && CONNECTION_ERRORS.has(code)) ||
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(message)
  ) {
    return unavailable('the database is unreachable; try again shortly', 'database_unreachable');
  }
  return error;
}

function wrap(client: pg.Pool | pg.PoolClient): Sql {
  return {
    engine: 'postgres',
    async all<T>(sql: string, params: SqlValue[] = []) {
      try {
        return (await client.query(toPostgres(sql), params)).rows as T[];
      } catch (error) {
        throw translate(error);
      }
    },
    async get<T>(sql: string, params: SqlValue[] = []) {
      try {
        return (await client.query(toPostgres(sql), params)).rows[0] as T | undefined;
      } catch (error) {
        throw translate(error);
      }
    },
    async run(sql: string, params: SqlValue[] = []) {
      try {
        return { changes: (await client.query(toPostgres(sql), params)).rowCount ?? 0 };
      } catch (error) {
        throw translate(error);
      }
    },
  };
}

export async function openPostgres(url: string, schema?: string): Promise<Database> {
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const schemaOption = schema ? { options: `-c search_path=${schema}` } : {};
  const pool = new pg.Pool({
    connectionString: url,
    max: 8,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    ...schemaOption,
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  if (schema) {
    const client = await pool.connect().catch((error) => {
      throw translate(error);
    });
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      client.release();
    }
  }
  const direct = wrap(pool);
  const safeUrl = url.replace(/\/\/[^@/]*@/, '//');
  return {
    ...direct,
    description: `postgres:${safeUrl}${schema ? ` (schema ${schema})` : ''}`,
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw translate(error);
      }
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
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
    async close() {
      await pool.end();
    },
    listen: (channel, handlers) => listen({ connectionString: url, ...schemaOption }, channel, handlers),
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
