import { Deadline, sleep } from './deadline.js';
import { errorOfStatus, VulnscopeServerError } from './errors.js';
import type { CallOptions, ResolvedOptions } from './options.js';

/** A query as the SDK's methods take it: the schema's types (strings, integers, booleans). */
export type QueryValues = Record<string, string | number | boolean | undefined>;

/** An answered request whose body is still to be read, under the same deadline. */
export interface Answer {
  response: Response;
  deadline: Deadline;
  /** What was asked, e.g. `GET /v3/index/target-intel`. */
  request: string;
}

/** Tokens at least this long are hidden from error messages (Vulnscope's are 40+ characters). */
const MIN_REDACTED_LENGTH = 8;

/** Without a `Retry-After`, a 429 is retried after 1 s, 2 s, 4 s, … */
const BACKOFF_MS = 1000;

/**
 * Sends requests: the token as `Authorization: Bearer`, never in the URL; 429 retried after
 * `Retry-After` up to `maxRetries` times; every failure as a `VulnscopeApiError`.
 */
export class Transport {
  constructor(private readonly options: ResolvedOptions) {}

  /** The absolute URL of an API path with its query (`undefined` values left out, booleans as true/false). */
  url(path: string, query: QueryValues = {}): string {
    const url = new URL(`${this.options.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query)) {
      // The token goes in the header only: a URL ends up in logs.
      if (value === undefined || name === 'token') continue;
      url.searchParams.append(name, String(value));
    }
    return url.toString();
  }

  /** GETs an API path; resolves with a 2xx answer, throws the error of any other. */
  async get(path: string, query: QueryValues, call: CallOptions = {}, accept = 'application/json'): Promise<Answer> {
    return this.send(this.url(path, query), `GET ${path}`, this.headers({ accept }), call);
  }

  /** POSTs a JSON body to an API path; resolves with a 2xx answer, throws the error of any other. */
  async post(path: string, body: unknown, call: CallOptions = {}): Promise<Answer> {
    const headers = this.headers({ accept: 'application/json', 'content-type': 'application/json' });
    return this.send(this.url(path), `POST ${path}`, headers, call, JSON.stringify(body), 'POST');
  }

  /** DELETEs an API path (no body); resolves with a 2xx answer, throws the error of any other. */
  async delete(path: string, call: CallOptions = {}): Promise<Answer> {
    return this.send(
      this.url(path),
      `DELETE ${path}`,
      this.headers({ accept: 'application/json' }),
      call,
      undefined,
      'DELETE',
    );
  }

  /** GETs an absolute URL without the token (signed download URLs must not receive it). */
  async open(url: string, call: CallOptions = {}): Promise<Answer> {
    const path = new URL(url).pathname;
    return this.send(url, `GET ${path}`, this.options.cookie ? {} : { 'user-agent': this.options.userAgent }, call);
  }

  /** The headers of an API request: the token (none in cookie mode, where the browser sends the cookie). */
  private headers(own: Record<string, string>): Record<string, string> {
    if (this.options.cookie) return own;
    return { ...own, authorization: `Bearer ${this.options.token}`, 'user-agent': this.options.userAgent };
  }

  /** Reads a JSON body of an answer. */
  async json<T>(answer: Answer): Promise<T> {
    const { response, deadline, request } = answer;
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.redacted(deadline.failure(error, request, 'no complete answer'));
    }
    deadline.clear();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new VulnscopeServerError(`${request}: the answer is not JSON`, { request, status: response.status });
    }
  }

  private async send(
    url: string,
    request: string,
    headers: Record<string, string>,
    call: CallOptions,
    body?: string,
    method: 'GET' | 'POST' | 'DELETE' = 'GET',
  ) {
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const deadline = new Deadline(timeoutMs, call.signal);
      let response: Response;
      try {
        // Called on its own: a browser's fetch refuses any `this` but the window (Illegal invocation).
        const { fetch } = this.options;
        response = await fetch(url, {
          method,
          headers,
          signal: deadline.signal,
          ...(body ? { body } : {}),
        });
      } catch (error) {
        throw this.redacted(deadline.failure(error, request));
      }
      if (response.ok) return { response, deadline, request };

      let text = '';
      try {
        text = await response.text();
      } catch {
        // The status says enough.
      }
      deadline.clear();
      const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
      const error = this.redacted(
        errorOfStatus(response.status, messagesOf(text), {
          request,
          ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
        }),
      );
      if (response.status !== 429 || attempt >= this.options.maxRetries) throw error;
      const waitMs = retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : BACKOFF_MS * 2 ** attempt;
      // Asking again before the server's time is up only spends a retry.
      if (waitMs > this.options.maxRetryWaitMs) throw error;
      this.options.onRetry?.({ request, attempt: attempt + 1, waitMs });
      await sleep(waitMs, call.signal, request);
    }
  }

  /** The token never appears in an error, even when a server or proxy echoes it. */
  private redacted<E extends Error & { messages?: string[] }>(error: E): E {
    const token = this.options.token;
    // A token this short is no secret (a test's `t`), and hiding it would garble every message.
    if (token === undefined || token.length < MIN_REDACTED_LENGTH) return error;
    if (!error.message.includes(token) && !error.messages?.some((m) => m.includes(token))) return error;
    const hide = (text: string) => text.split(token).join('<token>');
    error.message = hide(error.message);
    if (error.messages) error.messages.splice(0, error.messages.length, ...error.messages.map(hide));
    return error;
  }
}

/** The messages of an error body `{"error": true, "errors": [...]}`; a short plain text otherwise. */
export function messagesOf(text: string): string[] {
  try {
    const body = JSON.parse(text) as { errors?: unknown };
    if (Array.isArray(body?.errors)) return body.errors.filter((m): m is string => typeof m === 'string');
    if (typeof body === 'string') return [body];
  } catch {
    // not JSON
  }
  const plain = text.trim();
  return plain === '' ? [] : [plain.length > 200 ? `${plain.slice(0, 200)}…` : plain];
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
