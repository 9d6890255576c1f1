/**
 * A client for NVD's 2.0 APIs (CVE, CPE, Match Criteria): every request waits for the rate
 * limiter, sends the API key as the `apiKey` header when there is one, and is retried with
 * exponential backoff (or the server's `Retry-After`) on 403 (NVD's answer to a spent rate limit),
 * 429, 5xx, timeouts, network errors and unreadable bodies. `nvdPages` pages through one query.
 */
import { invalidInput, unavailable } from '../../core/errors.js';
import { isObject, type JsonObject } from '../advisories/types.js';
import { SlidingWindowLimiter, systemClock, type Clock } from './rate-limiter.js';

/** NVD's public limits: requests per rolling 30 s window without and with an API key. */
export const NVD_LIMIT_WITHOUT_KEY = 5;
export const NVD_LIMIT_WITH_KEY = 50;
/** The 30 s window plus a second of margin (NVD counts when requests arrive, we when they leave). */
export const NVD_WINDOW_MS = 31_000;

export const NVD_PATHS = {
  cves: '/rest/json/cves/2.0',
  cpes: '/rest/json/cpes/2.0',
  cpematch: '/rest/json/cpematch/2.0',
} as const;

export interface NvdClientOptions {
  /** API base, e.g. `https://services.nvd.nist.gov`. */
  baseUrl: string;
  apiKey?: string;
  /** Defaults to NVD's public limit for the key (or its absence). */
  limiter?: SlidingWindowLimiter;
  /** Time for the limiter and for backoff sleeps. */
  clock?: Clock;
  /** Tries per request, the first included (default 6). */
  attempts?: number;
  /** Delay before the first retry, doubled for each next one (default 6 s, as NVD suggests between requests). */
  backoffMs?: number;
  /** Upper bound of one backoff delay, also of a server's `Retry-After` (default 120 s). */
  maxBackoffMs?: number;
  /** A request (headers and body) taking longer than this is abandoned and retried (default 120 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  onRetry?: (retry: { url: string; attempt: number; reason: string; delayMs: number }) => void;
}

export interface NvdResponse {
  url: string;
  body: JsonObject;
}

/** Thrown by one attempt; `retry` says whether another attempt may succeed. */
class AttemptError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

export class NvdApiClient {
  readonly baseUrl: string;
  /** Requests sent (every attempt counts). */
  requests = 0;
  private readonly limiter: SlidingWindowLimiter;
  private readonly clock: Clock;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: NvdClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.clock = options.clock ?? systemClock;
    this.limiter =
      options.limiter ??
      new SlidingWindowLimiter(options.apiKey ? NVD_LIMIT_WITH_KEY : NVD_LIMIT_WITHOUT_KEY, NVD_WINDOW_MS, this.clock);
    this.fetch = options.fetch ?? fetch;
  }

  url(path: string, params: Record<string, string | number>): string {
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, String(value));
    return url.toString();
  }

  /** GETs a JSON object, retrying what may pass on another try; other failures throw at once. */
  async getJson(path: string, params: Record<string, string | number>): Promise<NvdResponse> {
    const url = this.url(path, params);
    const attempts = Math.max(1, this.options.attempts ?? 6);
    const backoff = this.options.backoffMs ?? 6_000;
    const maxBackoff = this.options.maxBackoffMs ?? 120_000;
    for (let attempt = 1; ; attempt++) {
      try {
        return { url, body: await this.attempt(url) };
      } catch (error) {
        if (!(error instanceof AttemptError)) throw error;
        if (!error.retry) throw invalidInput(`NVD API request ${url} failed: ${error.message}`);
        if (attempt >= attempts) {
          throw unavailable(
            `NVD API request ${url} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${error.message}`,
          );
        }
        const delayMs = Math.min(maxBackoff, error.retryAfterMs ?? backoff * 2 ** (attempt - 1));
        this.options.onRetry?.({ url, attempt, reason: error.message, delayMs });
        await this.clock.sleep(delayMs);
      }
    }
  }

  private async attempt(url: string): Promise<JsonObject> {
    await this.limiter.acquire();
    this.requests++;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'vulnscope-sync' };
    if (this.options.apiKey) headers.apiKey = this.options.apiKey;
    const signal = AbortSignal.timeout(this.options.timeoutMs ?? 120_000);
    let response: Response;
    try {
      response = await this.fetch(url, { headers, signal, redirect: 'follow' });
    } catch (error) {
      const cause = (error as { cause?: Error }).cause;
      throw new AttemptError(cause?.message ?? (error as Error).message, true);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      // NVD explains its errors in a `message` header.
      const message = response.headers.get('message');
      const reason = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${message ? ` (${message})` : ''}`;
      const retry = response.status === 403 || response.status === 429 || response.status >= 500;
      throw new AttemptError(reason, retry, retryAfterMs(response.headers.get('retry-after'), this.clock.now()));
    }
    let body: unknown;
    try {
      body = JSON.parse(await response.text());
    } catch (error) {
      throw new AttemptError(`unreadable response: ${(error as Error).message}`, true);
    }
    if (!isObject(body) || typeof body.totalResults !== 'number') {
      throw new AttemptError('the response is not an NVD API 2.0 page (no totalResults)', true);
    }
    return body;
  }
}

export interface NvdPageQuery {
  /** One of NVD_PATHS. */
  path: string;
  /** The member holding the page's items: `vulnerabilities`, `products`, `matchStrings`. */
  listKey: string;
  /** Filters (e.g. a last-modified window); `startIndex`/`resultsPerPage` are added. */
  params?: Record<string, string>;
  /** Where to start (a resumed sync starts inside the result list). */
  startIndex?: number;
  resultsPerPage: number;
}

export interface NvdPage {
  url: string;
  startIndex: number;
  totalResults: number;
  /** The page's elements as sent (`{cve}`, `{cpe}`, `{matchString}` objects). */
  items: unknown[];
  /** `startIndex` of the next page; `totalResults` (or more) after the last one. */
  next: number;
  /** NVD's time of the response. */
  timestamp?: string;
}

/**
 * The pages of one query, from `startIndex` on. Pages are fetched lazily: the next request is
 * sent when the consumer asks for the next page (after it has stored this one). The position
 * advances by the number of items a page really holds (NVD may send fewer than asked).
 */
export async function* nvdPages(client: NvdApiClient, query: NvdPageQuery): AsyncGenerator<NvdPage> {
  let startIndex = query.startIndex ?? 0;
  for (;;) {
    const { url, body } = await client.getJson(query.path, {
      ...query.params,
      startIndex,
      resultsPerPage: query.resultsPerPage,
    });
    const list = body[query.listKey];
    if (list !== undefined && !Array.isArray(list)) {
      throw invalidInput(`NVD API response ${url}: "${query.listKey}" is not an array`);
    }
    const items = (list ?? []) as unknown[];
    const totalResults = body.totalResults as number;
    const next = startIndex + items.length;
    yield {
      url,
      startIndex,
      totalResults,
      items,
      next,
      ...(typeof body.timestamp === 'string' ? { timestamp: body.timestamp } : {}),
    };
    if (items.length === 0 || next >= totalResults) return;
    startIndex = next;
  }
}
