/**
 * The SDK's one error family. Every failure of a call is a `VulnscopeApiError` whose `kind` says
 * what went wrong; each kind has its own subclass, so callers may test either way:
 * `error.kind === 'rate-limit'` or `error instanceof VulnscopeRateLimitError`.
 * Messages never hold the token.
 */

export type VulnscopeErrorKind =
  /** The client was not given what it needs (a base URL, a token). */
  | 'config'
  /** 400, 404 and other 4xx: the request itself was refused. */
  | 'request'
  /** 401 (no or wrong token) or 403 (a download URL whose signature is wrong or expired). */
  | 'auth'
  /** 402: the token may not read that feed. */
  | 'entitlement'
  /** 429, after the retries the client allows. */
  | 'rate-limit'
  /** 5xx, or an answer that is not what the API sends. */
  | 'server'
  /** The server could not be reached or the connection broke. */
  | 'network'
  /** No answer (or, in a stream, no data) within the client's timeout. */
  | 'timeout'
  /** The caller's signal aborted the call. */
  | 'aborted'
  /** An export ended without its closing `_meta.complete` line: it was cut. */
  | 'incomplete';

export interface VulnscopeErrorDetails {
  /** The HTTP status, when the server answered. */
  status?: number;
  /** The messages of the server's `{"error": true, "errors": [...]}` body. */
  messages?: string[];
  /** What was asked, e.g. `GET /v3/index/target-intel` (never with the token). */
  request?: string;
  /** Seconds the server asked to wait (`Retry-After`), for 429 and 503. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class VulnscopeApiError extends Error {
  readonly kind: VulnscopeErrorKind;
  readonly status: number | undefined;
  readonly messages: string[];
  readonly request: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: VulnscopeErrorKind, message: string, details: VulnscopeErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'VulnscopeApiError';
    this.kind = kind;
    this.status = details.status;
    this.messages = details.messages ?? [];
    this.request = details.request;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

export class VulnscopeConfigError extends VulnscopeApiError {
  constructor(message: string) {
    super('config', message);
    this.name = 'VulnscopeConfigError';
  }
}
export class VulnscopeRequestError extends VulnscopeApiError {
  constructor(message: string, details: VulnscopeErrorDetails) {
    super('request', message, details);
    this.name = 'VulnscopeRequestError';
  }
}
export class VulnscopeAuthError extends VulnscopeApiError {
  constructor(message: string, details: VulnscopeErrorDetails) {
    super('auth', message, details);
    this.name = 'VulnscopeAuthError';
  }
}
export class VulnscopeEntitlementError extends VulnscopeApiError {
  constructor(message: string, details: VulnscopeErrorDetails) {
    super('entitlement', message, details);
    this.name = 'VulnscopeEntitlementError';
  }
}
export class VulnscopeRateLimitError extends VulnscopeApiError {
  constructor(message: string, details: VulnscopeErrorDetails) {
    super('rate-limit', message, details);
    this.name = 'VulnscopeRateLimitError';
  }
}
export class VulnscopeServerError extends VulnscopeApiError {
  constructor(message: string, details: VulnscopeErrorDetails) {
    super('server', message, details);
    this.name = 'VulnscopeServerError';
  }
}
export class VulnscopeNetworkError extends VulnscopeApiError {
  constructor(message: string, details: VulnscopeErrorDetails) {
    super('network', message, details);
    this.name = 'VulnscopeNetworkError';
  }
}
export class VulnscopeTimeoutError extends VulnscopeApiError {
  constructor(message: string, details: VulnscopeErrorDetails) {
    super('timeout', message, details);
    this.name = 'VulnscopeTimeoutError';
  }
}
export class VulnscopeAbortError extends VulnscopeApiError {
  constructor(message: string, details: VulnscopeErrorDetails) {
    super('aborted', message, details);
    this.name = 'VulnscopeAbortError';
  }
}
export class VulnscopeIncompleteExportError extends VulnscopeApiError {
  /** Records received before the export was cut. */
  readonly received: number;
  constructor(message: string, received: number, details: VulnscopeErrorDetails) {
    super('incomplete', message, details);
    this.name = 'VulnscopeIncompleteExportError';
    this.received = received;
  }
}

/** The error of an HTTP answer that is not a success, by its status. */
export function errorOfStatus(status: number, messages: string[], details: VulnscopeErrorDetails): VulnscopeApiError {
  const said = messages.length > 0 ? `: ${messages.join('; ')}` : '';
  const message = `${details.request ? `${details.request}: ` : ''}${status} ${statusText(status)}${said}`;
  const all = { ...details, status, messages };
  if (status === 401 || status === 403) return new VulnscopeAuthError(message, all);
  if (status === 402) return new VulnscopeEntitlementError(message, all);
  if (status === 429) return new VulnscopeRateLimitError(message, all);
  if (status >= 500) return new VulnscopeServerError(message, all);
  return new VulnscopeRequestError(message, all);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'bad request',
  401: 'unauthorized',
  402: 'payment required',
  403: 'forbidden',
  404: 'not found',
  429: 'too many requests',
  500: 'internal server error',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
};

function statusText(status: number): string {
  return STATUS_TEXT[status] ?? (status >= 500 ? 'server error' : 'error');
}
