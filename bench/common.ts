import net from 'node:net';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { DatabaseConfig } from '../src/config.js';

/** Helpers shared by the benchmark entry points. */

export function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

/** A port the OS reports free right now (random ports collide with ephemeral client ports). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The environment without any VULNSCOPE_* setting of the caller's shell. */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VULNSCOPE_')));
}

/** The VULNSCOPE_DATABASE_URL that selects this database (a file path, or a URL with ?schema=). */
export function databaseUrlOf(config: DatabaseConfig): string {
  if (config.engine === 'sqlite') return config.file;
  const url = new URL(config.url);
  if (config.schema) url.searchParams.set('schema', config.schema);
  return url.toString();
}

export async function dropSchema(config: DatabaseConfig): Promise<void> {
  if (config.engine !== 'postgres' || !config.schema) return;
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: config.url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${config.schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * JS heap in use plus external memory (typed-array stores, where indexes keep their columns) after
 * a full collection (forces `gc` on even without --expose-gc).
 */
export function heapUsedAfterGc(): number {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.external;
}
