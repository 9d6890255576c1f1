import fs from 'node:fs';
import path from 'node:path';
import { checkFeedName, parseFeedEntitlement, type FeedEntitlement } from './core/entitlements.js';
import { invalidInput } from './core/errors.js';
import { DEFAULT_RATE_LIMIT, parseRateLimits, type RateLimits } from './core/rate-limit.js';

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
  /**
   * The origin of VULNSCOPE_PUBLIC_URL when it is set: what a cookie-authenticated state-changing
   * request's `Origin` must be. Unset: the origin each request was addressed to (protocol and Host).
   */
  publicOrigin?: string;
  /** Observations older than this are expired; 0 disables expiry. */
  retentionDays: number;
  /** `vulnscope ingest scans` runs with a JavaScript heap of at most this many MiB; 0 leaves Node's default (VULNSCOPE_INGEST_HEAP_MB). */
  ingestHeapMb: number;
  tokenIdleDays: number;
  asnMmdb?: string;
  countryMmdb?: string;
  asDomainCsv?: string;
  /** nmap's service-probe file, whose product names give CPEs to fingerprints without one (VULNSCOPE_NMAP_SERVICE_PROBES). */
  nmapServiceProbes?: string;
  /** Overrides the secret kept in the database. */
  secret?: string;
  /** How often the server's index polls the change log (ms). */
  indexPollMs: number;
  /**
   * Where the server keeps the snapshot of its target-intel index, to restart without a full build
   * (VULNSCOPE_SNAPSHOT_DIR, resolved; `off`: none; unset: beside the database, see snapshotDirOf).
   */
  snapshotDir?: string;
  /** A changed index is written to its snapshot at most once per this (ms), and at shutdown; 0: only at shutdown. */
  snapshotIntervalMs: number;
  /** How often the in-server sweeper expires old observations (ms). */
  sweepIntervalMs: number;
  /** How often the sweeping server looks for knowledge changes whose records need re-mapping (ms). */
  remapPollMs: number;
  logLevel: string;
  /** Server processes sharing the port (each with its own index); 1 = no cluster. */
  workers: number;
  /** In a cluster's worker: whether the primary gave it the background work (set by the primary, never by users). */
  clusterSweeper: boolean;
  /** Feeds a token created without `--feeds` may read (`*` unless VULNSCOPE_DEFAULT_FEEDS says otherwise). */
  defaultFeeds: FeedEntitlement;
  /** Request budgets per endpoint group (VULNSCOPE_RATE_LIMIT). */
  rateLimits: RateLimits;
  /** With Redis, every instance shares each token's budget; without, each instance counts alone. */
  redisUrl?: string;
  /** Advisory feeds configured in VULNSCOPE_FEEDS_FILE (added to, or overriding, the built-in ones). */
  feeds: FeedDefinition[];
  /** Where backup archives are written and served from (VULNSCOPE_BACKUP_DIR). */
  backupDir: string;
  /** A changed feed/index is re-archived at most once per this (ms); 0 disables the server's background job. */
  backupIntervalMs: number;
  /** Archives kept per feed/index. */
  backupKeep: number;
  /** Lifetime of signed backup download URLs (minutes). */
  backupUrlTtlMinutes: number;
  /** The server `vulnscope backup list|download` talk to (VULNSCOPE_URL). */
  serverUrl?: string;
  /** The token those commands send (VULNSCOPE_TOKEN). */
  apiToken?: string;
  /** The NVD APIs `vulnscope sync nist-nvd2` / `sync cpe-dictionary` read (docs/sync.md). */
  nvd: NvdApiConfig;
  /** The cvelistV5 release `vulnscope sync mitre-cvelist-v5` downloads when the feed has no source (VULNSCOPE_CVELIST_URL). */
  cvelistUrl: string;
  /** Operator token for `/process/status` (event-loop delay, memory); the routes exist only when set (VULNSCOPE_STATUS_TOKEN). */
  statusToken?: string;
  /** A request whose response has not started by then gets a 503 and its work is abandoned (VULNSCOPE_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** A response stream whose client reads nothing for this long is cut (VULNSCOPE_STREAM_IDLE_TIMEOUT_MS). */
  streamIdleTimeoutMs: number;
  /** Exports (`…/export`) one server process streams at once; more get a 429 (VULNSCOPE_EXPORTS_PER_PROCESS). */
  exportsPerProcess: number;
  /** On SIGTERM, how long in-flight requests may finish before the process exits anyway (VULNSCOPE_DRAIN_TIMEOUT_MS). */
  drainTimeoutMs: number;
}

export interface NvdApiConfig {
  /** API base without trailing slash (VULNSCOPE_NVD_BASE_URL). */
  baseUrl: string;
  /** Sent as the `apiKey` header; raises the rate limit from 5 to 50 requests per 30 s (VULNSCOPE_NVD_API_KEY). */
  apiKey?: string;
}

export const DEFAULT_NVD_BASE_URL = 'https://services.nvd.nist.gov';
/** GitHub's description of the latest cvelistV5 release; its `…_all_CVEs_at_midnight.zip` asset is downloaded. */
export const DEFAULT_CVELIST_URL = 'https://api.github.com/repos/CVEProject/cvelistV5/releases/latest';

/** One entry of the feed registry. */
export interface FeedDefinition {
  name: string;
  description?: string;
  /** Adapter name (`vulnscope ingest advisories --help` lists them). */
  adapter: string;
  /** Where `vulnscope sync` downloads from (http/https URL), or a local path `ingest` reads by default. */
  source?: string;
}

export type DatabaseConfig =
  | { engine: 'sqlite'; file: string }
  | { engine: 'postgres'; url: string; schema?: string; timeouts?: PostgresTimeouts };

/** Client-side bounds on PostgreSQL: a silent database must never hold a caller. */
export interface PostgresTimeouts {
  /** A statement outside a transaction is abandoned after this (VULNSCOPE_DB_QUERY_TIMEOUT_MS; 0 = none). */
  queryMs: number;
  /** Connecting, and waiting for a pooled connection (VULNSCOPE_DB_CONNECT_TIMEOUT_MS). */
  connectMs: number;
  /** The health probe: a `SELECT 1` slower than this opens the breaker (VULNSCOPE_DB_PROBE_TIMEOUT_MS). */
  probeMs: number;
}

export const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = { queryMs: 60_000, connectMs: 2_000, probeMs: 1_000 };

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
  defaultFeeds?: string;
  rateLimit?: string;
  redisUrl?: string;
  feedsFile?: string;
  backupDir?: string;
}

export const DEFAULT_DATABASE = './data/vulnscope.db';
/** How a cluster's primary tells a worker it runs the background work. */
export const CLUSTER_SWEEPER_VARIABLE = 'VULNSCOPE_CLUSTER_SWEEPER';

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: ConfigOverrides = {}): Config {
  const pick = (flag: string | number | undefined, name: string) =>
    flag !== undefined && flag !== '' ? String(flag) : nonEmpty(env[name]);
  const host = pick(overrides.host, 'VULNSCOPE_HOST') ?? '127.0.0.1';
  const port = integer(pick(overrides.port, 'VULNSCOPE_PORT') ?? '8080', 'VULNSCOPE_PORT', 0, 65535);
  const publicUrl = (pick(overrides.publicUrl, 'VULNSCOPE_PUBLIC_URL') ?? `http://${hostForUrl(host)}:${port}`).replace(
    /\/+$/,
    '',
  );
  const database = parseDatabaseUrl(pick(overrides.databaseUrl, 'VULNSCOPE_DATABASE_URL') ?? DEFAULT_DATABASE);
  if (database.engine === 'postgres') database.timeouts = postgresTimeoutsOf(env);
  const publicOrigin =
    pick(overrides.publicUrl, 'VULNSCOPE_PUBLIC_URL') !== undefined ? originOf(publicUrl) : undefined;
  return {
    database,
    host,
    port,
    publicUrl,
    ...(publicOrigin ? { publicOrigin } : {}),
    retentionDays: integer(
      pick(overrides.retentionDays, 'VULNSCOPE_RETENTION_DAYS') ?? '30',
      'VULNSCOPE_RETENTION_DAYS',
      0,
      36500,
    ),
    ingestHeapMb: ingestHeapOf(nonEmpty(env.VULNSCOPE_INGEST_HEAP_MB)),
    tokenIdleDays: integer(
      pick(overrides.tokenIdleDays, 'VULNSCOPE_TOKEN_IDLE_DAYS') ?? '30',
      'VULNSCOPE_TOKEN_IDLE_DAYS',
      1,
      36500,
    ),
    asnMmdb: pick(overrides.asnMmdb, 'VULNSCOPE_ASN_MMDB'),
    countryMmdb: pick(overrides.countryMmdb, 'VULNSCOPE_COUNTRY_MMDB'),
    asDomainCsv: pick(overrides.asDomainCsv, 'VULNSCOPE_AS_DOMAIN_CSV'),
    ...serviceProbesOf(nonEmpty(env.VULNSCOPE_NMAP_SERVICE_PROBES)),
    secret: nonEmpty(env.VULNSCOPE_SECRET),
    indexPollMs: integer(nonEmpty(env.VULNSCOPE_INDEX_POLL_MS) ?? '250', 'VULNSCOPE_INDEX_POLL_MS', 10, 60_000),
    ...snapshotDirSetting(nonEmpty(env.VULNSCOPE_SNAPSHOT_DIR)),
    snapshotIntervalMs: named('VULNSCOPE_SNAPSHOT_INTERVAL', () =>
      parseInterval(nonEmpty(env.VULNSCOPE_SNAPSHOT_INTERVAL) ?? '10m'),
    ),
    sweepIntervalMs: integer(
      nonEmpty(env.VULNSCOPE_SWEEP_INTERVAL_MS) ?? '60000',
      'VULNSCOPE_SWEEP_INTERVAL_MS',
      100,
      86_400_000,
    ),
    remapPollMs: integer(nonEmpty(env.VULNSCOPE_REMAP_POLL_MS) ?? '2000', 'VULNSCOPE_REMAP_POLL_MS', 10, 3_600_000),
    logLevel: pick(overrides.logLevel, 'VULNSCOPE_LOG_LEVEL') ?? 'info',
    workers: integer(pick(overrides.workers, 'VULNSCOPE_WORKERS') ?? '1', 'VULNSCOPE_WORKERS', 1, 64),
    clusterSweeper: env[CLUSTER_SWEEPER_VARIABLE] === '1',
    defaultFeeds: named('VULNSCOPE_DEFAULT_FEEDS', () =>
      parseFeedEntitlement(pick(overrides.defaultFeeds, 'VULNSCOPE_DEFAULT_FEEDS') ?? '*'),
    ),
    rateLimits: parseRateLimits(pick(overrides.rateLimit, 'VULNSCOPE_RATE_LIMIT') ?? DEFAULT_RATE_LIMIT),
    redisUrl: pick(overrides.redisUrl, 'VULNSCOPE_REDIS_URL'),
    feeds: readFeedsFile(pick(overrides.feedsFile, 'VULNSCOPE_FEEDS_FILE')),
    backupDir: path.resolve(pick(overrides.backupDir, 'VULNSCOPE_BACKUP_DIR') ?? './data/backups'),
    backupIntervalMs: named('VULNSCOPE_BACKUP_INTERVAL', () =>
      parseInterval(nonEmpty(env.VULNSCOPE_BACKUP_INTERVAL) ?? '24h'),
    ),
    backupKeep: integer(nonEmpty(env.VULNSCOPE_BACKUP_KEEP) ?? '3', 'VULNSCOPE_BACKUP_KEEP', 1, 1000),
    backupUrlTtlMinutes: integer(
      nonEmpty(env.VULNSCOPE_BACKUP_URL_TTL_MINUTES) ?? '15',
      'VULNSCOPE_BACKUP_URL_TTL_MINUTES',
      1,
      10_080,
    ),
    serverUrl: nonEmpty(env.VULNSCOPE_URL)?.replace(/\/+$/, ''),
    apiToken: nonEmpty(env.VULNSCOPE_TOKEN),
    nvd: {
      baseUrl: httpUrl(nonEmpty(env.VULNSCOPE_NVD_BASE_URL) ?? DEFAULT_NVD_BASE_URL, 'VULNSCOPE_NVD_BASE_URL'),
      ...(nonEmpty(env.VULNSCOPE_NVD_API_KEY) ? { apiKey: nonEmpty(env.VULNSCOPE_NVD_API_KEY) } : {}),
    },
    cvelistUrl: httpUrl(nonEmpty(env.VULNSCOPE_CVELIST_URL) ?? DEFAULT_CVELIST_URL, 'VULNSCOPE_CVELIST_URL'),
    ...(nonEmpty(env.VULNSCOPE_STATUS_TOKEN) ? { statusToken: nonEmpty(env.VULNSCOPE_STATUS_TOKEN) } : {}),
    requestTimeoutMs: milliseconds(env, 'VULNSCOPE_REQUEST_TIMEOUT_MS', 10_000, 100),
    streamIdleTimeoutMs: milliseconds(env, 'VULNSCOPE_STREAM_IDLE_TIMEOUT_MS', 30_000, 1_000),
    drainTimeoutMs: milliseconds(env, 'VULNSCOPE_DRAIN_TIMEOUT_MS', 10_000, 0),
    exportsPerProcess: integer(
      nonEmpty(env.VULNSCOPE_EXPORTS_PER_PROCESS) ?? '4',
      'VULNSCOPE_EXPORTS_PER_PROCESS',
      1,
      1000,
    ),
  };
}

/** `scheme://host[:port]` of a URL; undefined when it is not one. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** A duration in milliseconds from the environment, at most one hour. */
function milliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  return integer(nonEmpty(env[name]) ?? String(fallback), name, min, 3_600_000);
}

function postgresTimeoutsOf(env: NodeJS.ProcessEnv): PostgresTimeouts {
  return {
    queryMs: milliseconds(env, 'VULNSCOPE_DB_QUERY_TIMEOUT_MS', DEFAULT_POSTGRES_TIMEOUTS.queryMs, 0),
    connectMs: milliseconds(env, 'VULNSCOPE_DB_CONNECT_TIMEOUT_MS', DEFAULT_POSTGRES_TIMEOUTS.connectMs, 100),
    probeMs: milliseconds(env, 'VULNSCOPE_DB_PROBE_TIMEOUT_MS', DEFAULT_POSTGRES_TIMEOUTS.probeMs, 100),
  };
}

function snapshotDirSetting(value: string | undefined): { snapshotDir?: string } {
  if (value === undefined) return {};
  return { snapshotDir: value === SNAPSHOTS_OFF ? SNAPSHOTS_OFF : path.resolve(value) };
}

const SNAPSHOTS_OFF = 'off';

/**
 * The index snapshot directory of the database the config names (which callers may replace after
 * loading): the setting, or beside the SQLite file (none for an in-memory one), or ./data.
 */
export function snapshotDirOf(config: Pick<Config, 'snapshotDir' | 'database'>): string | undefined {
  if (config.snapshotDir === SNAPSHOTS_OFF) return undefined;
  if (config.snapshotDir !== undefined) return config.snapshotDir;
  if (config.database.engine === 'postgres') return path.resolve('./data');
  return config.database.file === ':memory:' ? undefined : path.dirname(config.database.file);
}

/** Where Debian's (and nmap's own) packages install the service-probe file. */
const NMAP_SERVICE_PROBES = '/usr/share/nmap/nmap-service-probes';

/** A path, `off`, or unset: nmap's installed file when there is one. */
function serviceProbesOf(value: string | undefined): { nmapServiceProbes?: string } {
  if (value === 'off') return {};
  if (value !== undefined) return { nmapServiceProbes: value };
  return fs.existsSync(NMAP_SERVICE_PROBES) ? { nmapServiceProbes: NMAP_SERVICE_PROBES } : {};
}

/** `24h`, `30m`, `90s`, `500ms`, `1d`, or a number of seconds; `0` disables. */
export function parseInterval(value: string): number {
  const match = /^(\d+)\s*(ms|s|m|h|d)?$/i.exec(value.trim());
  if (!match) throw new Error(`expected a duration such as 24h, 30m, 90s or 0, got "${value}"`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match[2] ?? 's').toLowerCase() as 'ms']!;
  const ms = Number(match[1]) * unit;
  if (ms > 365 * 86_400_000) throw new Error(`at most 365d, got "${value}"`);
  return ms;
}

/** Prefixes a validation message with the variable it came from. */
function named<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw invalidInput(`${name}: ${(error as Error).message}`);
  }
}

/**
 * The feed registry file: JSON, `{"feeds": [{name, description?, adapter, source?}]}` or the bare
 * array. Relative local sources are relative to the file.
 */
function readFeedsFile(file: string | undefined): FeedDefinition[] {
  if (!file) return [];
  const where = `VULNSCOPE_FEEDS_FILE (${file})`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw invalidInput(`${where}: ${(error as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { feeds?: unknown } | null)?.feeds;
  if (!Array.isArray(list)) throw invalidInput(`${where}: expected {"feeds": [...]} or an array of feeds`);
  const seen = new Set<string>();
  return list.map((entry: unknown, i) => {
    const item = entry as Record<string, unknown> | null;
    const text = (key: string, required: boolean) => {
      const value = item?.[key];
      if (value === undefined && !required) return undefined;
      if (typeof value !== 'string' || value.trim() === '') {
        throw invalidInput(`${where}: feeds[${i}].${key} must be a non-empty string`);
      }
      return value.trim();
    };
    const name = named(`${where}: feeds[${i}].name`, () => checkFeedName(text('name', true)!));
    if (seen.has(name)) throw invalidInput(`${where}: feed "${name}" is defined twice`);
    seen.add(name);
    let source = text('source', false);
    if (source && !/^https?:\/\//i.test(source)) source = path.resolve(path.dirname(file), source);
    const description = text('description', false);
    return {
      name,
      adapter: text('adapter', true)!,
      ...(description ? { description } : {}),
      ...(source ? { source } : {}),
    };
  });
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

/** An http(s) URL, without trailing slashes. */
function httpUrl(value: string, name: string): string {
  if (!/^https?:\/\/[^/]/i.test(value)) throw invalidInput(`${name}: expected an http(s) URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The ingest heap: what the matcher may keep is bounded (under 1 GiB alive in the 400k-CVE benchmark), so 1,280 MiB leaves room. */
function ingestHeapOf(value: string | undefined): number {
  const mb = integer(value ?? '1280', 'VULNSCOPE_INGEST_HEAP_MB', 0, 1_048_576);
  if (mb !== 0 && mb < 256) throw invalidInput(`VULNSCOPE_INGEST_HEAP_MB: expected 0 or at least 256, got ${mb}`);
  return mb;
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
