import { VulnscopeConfigError } from './errors.js';

/** How a `Vulnscope` client is set up; everything but the base URL and the token has a default. */
export interface VulnscopeOptions {
  /** The server, e.g. `http://127.0.0.1:8080` (default: env `VULNSCOPE_URL`). */
  baseUrl?: string;
  /** The API token, sent as `Authorization: Bearer …` (default: env `VULNSCOPE_TOKEN`). */
  token?: string;
  /**
   * In a page served by Vulnscope's portal: authenticate with the signed-in `token` cookie the
   * browser sends, instead of a token (no `Authorization` or `User-Agent` header is set).
   */
  cookie?: boolean;
  /** Milliseconds a request may wait for its answer, and a stream for its next data (default 30,000). */
  timeoutMs?: number;
  /** How often a 429 answer is retried after its `Retry-After` (default 3; 0 never retries). */
  maxRetries?: number;
  /** The longest `Retry-After` the client waits for, in ms (default 60,000); a longer one fails at once. */
  maxRetryWaitMs?: number;
  /** The `User-Agent` header (default `vulnscope-client`). */
  userAgent?: string;
  /** Told before each wait for a 429's `Retry-After` (the CLI prints it). */
  onRetry?: (retry: RetryNotice) => void;
  /** The fetch implementation (default: the global `fetch`). */
  fetch?: typeof fetch;
  /** Where the defaults of `baseUrl` and `token` are read (default: `process.env` where there is one). */
  env?: Record<string, string | undefined>;
}

export interface RetryNotice {
  /** What was asked, e.g. `GET /v4/advisory`. */
  request: string;
  /** The retry about to be made: 1, 2, … up to `maxRetries`. */
  attempt: number;
  waitMs: number;
}

/** Per-call options of every method. */
export interface CallOptions {
  /** Aborts the call (and a stream being read); the call then throws a `VulnscopeAbortError`. */
  signal?: AbortSignal;
  /** This call's timeout in ms, instead of the client's. */
  timeoutMs?: number;
}

export interface ResolvedOptions {
  baseUrl: string;
  /** Absent only in cookie mode. */
  token?: string;
  cookie: boolean;
  timeoutMs: number;
  maxRetries: number;
  maxRetryWaitMs: number;
  userAgent: string;
  fetch: typeof fetch;
  onRetry?: (retry: RetryNotice) => void;
}

const processEnv = (): Record<string, string | undefined> =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};

const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());

function count(name: string, value: number, min: number): number {
  if (!Number.isFinite(value) || value < min) throw new VulnscopeConfigError(`${name} must be a number ≥ ${min}`);
  return value;
}

export function resolveOptions(options: VulnscopeOptions): ResolvedOptions {
  const env = options.env ?? processEnv();
  const baseUrl = nonEmpty(options.baseUrl) ?? nonEmpty(env.VULNSCOPE_URL);
  if (!baseUrl) {
    throw new VulnscopeConfigError(
      'no server: pass { baseUrl } or set VULNSCOPE_URL (the server to ask, e.g. http://127.0.0.1:8080)',
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new VulnscopeConfigError('the server URL (VULNSCOPE_URL) is not a URL, e.g. http://127.0.0.1:8080');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new VulnscopeConfigError('the server URL (VULNSCOPE_URL) must start with http:// or https://');
  }
  const cookie = options.cookie === true;
  const token = cookie ? undefined : (nonEmpty(options.token) ?? nonEmpty(env.VULNSCOPE_TOKEN));
  if (!token && !cookie) {
    throw new VulnscopeConfigError(
      'no token: pass { token } or set VULNSCOPE_TOKEN (create one with "vulnscope token create")',
    );
  }
  const givenFetch = options.fetch ?? globalThis.fetch;
  if (typeof givenFetch !== 'function') throw new VulnscopeConfigError('no fetch: pass { fetch } on this runtime');
  // Called as a plain function: a browser's fetch called as a method of another object throws
  // "Illegal invocation".
  const fetchImpl: typeof fetch = (input, init) => givenFetch(input, init);
  return {
    baseUrl: url.toString().replace(/\/+$/, ''),
    ...(token ? { token } : {}),
    cookie,
    timeoutMs: count('timeoutMs', options.timeoutMs ?? 30_000, 1),
    maxRetries: Math.floor(count('maxRetries', options.maxRetries ?? 3, 0)),
    maxRetryWaitMs: count('maxRetryWaitMs', options.maxRetryWaitMs ?? 60_000, 0),
    userAgent: options.userAgent ?? 'vulnscope-client',
    fetch: fetchImpl,
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  };
}
