import path from 'node:path';
import { invalidInput } from './core/errors.js';

/**
 * The one place configuration is read. Environment variables and command-line flags become one
 * typed object that is passed down; nothing else reads process.env.
 */
export interface Config {
  database: DatabaseConfig;
  host: string;
  port: number;
  /** Base for absolute links (no trailing slash). */
  publicUrl: string;
  /** Observations older than this are expired; 0 disables expiry. */
  retentionDays: number;
  tokenIdleDays: number;
  asnMmdb?: string;
  countryMmdb?: string;
  asDomainCsv?: string;
  /** Overrides the secret kept in the database. */
  secret?: string;
  /** How often the server's index polls the change log (ms). */
  indexPollMs: number;
  /** How often the in-server sweeper expires old observations (ms). */
  sweepIntervalMs: number;
  logLevel: string;
  /** Server processes sharing the port (each with its own index); 1 = no cluster. */
  workers: number;
}

export type DatabaseConfig =
  | { engine: 'sqlite'; file: string }
  | { engine: 'postgres'; url: string; schema?: string };

/** Flag values from the CLI; each mirrors an environment variable. */
export interface ConfigOverrides {
  databaseUrl?: string;
  host?: string;
  port?: string | number;
  publicUrl?: string;
  retentionDays?: string | number;
  tokenIdleDays?: string | number;
  asnMmdb?: string;
  countryMmdb?: string;
  asDomainCsv?: string;
  logLevel?: string;
  workers?: string | number;
}

export const DEFAULT_DATABASE = './data/vulnscope.db';

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverrides = {},
): Config {
  const pick = (flag: string | number | undefined, name: string) =>
    flag !== undefined && flag !== '' ? String(flag) : nonEmpty(env[name]);
  const host = pick(overrides.host, 'VULNSCOPE_HOST') ?? '127.0.0.1';
  const port = integer(pick(overrides.port, 'VULNSCOPE_PORT') ?? '8080', 'VULNSCOPE_PORT', 0, 65535);
  const publicUrl = (
    pick(overrides.publicUrl, 'VULNSCOPE_PUBLIC_URL') ?? `http://${hostForUrl(host)}:${port}`
  ).replace(/\/+$/, '');
  return {
    database: parseDatabaseUrl(pick(overrides.databaseUrl, 'VULNSCOPE_DATABASE_URL') ?? DEFAULT_DATABASE),
    host,
    port,
    publicUrl,
    retentionDays: integer(
      pick(overrides.retentionDays, 'VULNSCOPE_RETENTION_DAYS') ?? '30',
      'VULNSCOPE_RETENTION_DAYS',
      0,
      36500,
    ),
    tokenIdleDays: integer(
      pick(overrides.tokenIdleDays, 'VULNSCOPE_TOKEN_IDLE_DAYS') ?? '30',
      'VULNSCOPE_TOKEN_IDLE_DAYS',
      1,
      36500,
    ),
    asnMmdb: pick(overrides.asnMmdb, 'VULNSCOPE_ASN_MMDB'),
    countryMmdb: pick(overrides.countryMmdb, 'VULNSCOPE_COUNTRY_MMDB'),
    asDomainCsv: pick(overrides.asDomainCsv, 'VULNSCOPE_AS_DOMAIN_CSV'),
    secret: nonEmpty(env.VULNSCOPE_SECRET),
    indexPollMs: integer(nonEmpty(env.VULNSCOPE_INDEX_POLL_MS) ?? '250', 'VULNSCOPE_INDEX_POLL_MS', 10, 60_000),
    sweepIntervalMs: integer(
      nonEmpty(env.VULNSCOPE_SWEEP_INTERVAL_MS) ?? '60000',
      'VULNSCOPE_SWEEP_INTERVAL_MS',
      100,
      86_400_000,
    ),
    logLevel: pick(overrides.logLevel, 'VULNSCOPE_LOG_LEVEL') ?? 'info',
    workers: integer(pick(overrides.workers, 'VULNSCOPE_WORKERS') ?? '1', 'VULNSCOPE_WORKERS', 1, 64),
  };
}

/** A file path or `sqlite:` URL selects SQLite; `postgres://` or `postgresql://` selects PostgreSQL. */
export function parseDatabaseUrl(value: string): DatabaseConfig {
  if (/^postgres(ql)?:\/\//i.test(value)) return postgresConfig(value);
  if (/^sqlite:/i.test(value)) {
    const rest = value.replace(/^sqlite:(\/\/)?/i, '');
    if (!rest) throw invalidInput('VULNSCOPE_DATABASE_URL: sqlite: URL names no file');
    return { engine: 'sqlite', file: rest === ':memory:' ? rest : path.resolve(rest) };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw invalidInput(`VULNSCOPE_DATABASE_URL: unsupported scheme in "${value.replace(/\/\/[^@]*@/, '//…@')}"`);
  }
  return { engine: 'sqlite', file: value === ':memory:' ? value : path.resolve(value) };
}

/** `?schema=NAME` selects a PostgreSQL schema (created when missing); the rest goes to the driver. */
function postgresConfig(value: string): DatabaseConfig {
  const url = new URL(value);
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw invalidInput(`VULNSCOPE_DATABASE_URL: schema must be a lower-case SQL identifier, got "${schema}"`);
  }
  return { engine: 'postgres', url: url.toString(), ...(schema ? { schema } : {}) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(value: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) throw invalidInput(`${name}: expected a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw invalidInput(`${name}: expected ${min}–${max}, got ${n}`);
  return n;
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
