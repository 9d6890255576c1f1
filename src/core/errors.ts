/**
 * The one error family. Every failure that should reach a user carries an HTTP status and a
 * stable machine-readable code; the server's error handler renders it as
 * `{ "error": true, "errors": [message] }` and the CLI prints the message.
 */
export class VulnscopeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** When to try again (seconds), for 429 and 503; rendered as `Retry-After`. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'VulnscopeError';
  }

  /**
   * What an HTTP client is told. A 4xx message describes the client's own request; a 5xx is a
   * failure of the server, whose message may hold its details (a file path, a driver's text), so
   * the client gets only the stable text of the error's code and the full message goes to the log.
   */
  get publicMessage(): string {
    if (this.status < 500) return this.message;
    return SERVER_MESSAGES[this.code] ?? (this.status === 503 ? SERVER_MESSAGES.unavailable! : 'internal server error');
  }
}

/** The public text of each server-side (5xx) code: stable, naming no path, SQL or cause. */
const SERVER_MESSAGES: Record<string, string> = {
  unavailable: 'the service is temporarily unavailable; try again shortly',
  database_unreachable: 'the database is unreachable; try again shortly',
  index_behind: 'the index could not be brought up to date with the database; try again shortly',
  backup_storage_unavailable: 'backup storage is unavailable; try again later',
  starting: 'the server is starting and its indexes are loading; try again shortly',
  draining: 'the server is shutting down; try again (another instance may answer)',
};

/** The codes of 503s: each has its public text above. */
export type UnavailableCode =
  | 'unavailable'
  | 'database_unreachable'
  | 'index_behind'
  | 'backup_storage_unavailable'
  | 'starting'
  | 'draining';

export const badRequest = (message: string) => new VulnscopeError(400, 'bad_request', message);
export const unauthorized = (message = 'unauthorized: a valid token is required') =>
  new VulnscopeError(401, 'unauthorized', message);
/** The token is valid but its entitlements do not cover what was asked (e.g. an advisory feed). */
export const paymentRequired = (message: string) => new VulnscopeError(402, 'payment_required', message);
/** The token is valid but may not do this (e.g. a child token creating tokens, a cross-site request). */
export const forbidden = (message: string) => new VulnscopeError(403, 'forbidden', message);
export const notFound = (message: string) => new VulnscopeError(404, 'not_found', message);
/** The request body is not in the form the endpoint takes (e.g. not JSON). */
export const unsupportedMediaType = (message: string) => new VulnscopeError(415, 'unsupported_media_type', message);
/** The resource is busy with a conflicting operation (e.g. another load of the same feed). */
export const conflict = (message: string) => new VulnscopeError(409, 'conflict', message);
/** A budget is spent; `retryAfterSeconds` becomes the `Retry-After` header. */
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new VulnscopeError(429, 'too_many_requests', message, retryAfterSeconds);
/** A 503: `message` is for logs and the CLI; an HTTP client gets the public text of `code`. */
export const unavailable = (message: string, code: UnavailableCode = 'unavailable') =>
  new VulnscopeError(503, code, message);
/** Input that cannot be understood (a CPE, an IP, a file line); callers decide how to report it. */
export const invalidInput = (message: string) => new VulnscopeError(400, 'invalid_input', message);
/**
 * An input (a file, a stream) that cannot be read or decoded (corrupt gzip), or from which nothing
 * could be read; the message names it. Its reading ends there, reported once.
 */
export const unreadableInput = (message: string) => new VulnscopeError(422, 'unreadable_input', message);
