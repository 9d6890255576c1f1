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
}

export const badRequest = (message: string) => new VulnscopeError(400, 'bad_request', message);
export const unauthorized = (message = 'unauthorized: a valid token is required') =>
  new VulnscopeError(401, 'unauthorized', message);
/** The token is valid but its entitlements do not cover what was asked (e.g. an advisory feed). */
export const paymentRequired = (message: string) => new VulnscopeError(402, 'payment_required', message);
export const notFound = (message: string) => new VulnscopeError(404, 'not_found', message);
/** The resource is busy with a conflicting operation (e.g. another load of the same feed). */
export const conflict = (message: string) => new VulnscopeError(409, 'conflict', message);
/** A budget is spent; `retryAfterSeconds` becomes the `Retry-After` header. */
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new VulnscopeError(429, 'too_many_requests', message, retryAfterSeconds);
export const unavailable = (message: string) => new VulnscopeError(503, 'unavailable', message);
/** Input that cannot be understood (a CPE, an IP, a file line); callers decide how to report it. */
export const invalidInput = (message: string) => new VulnscopeError(400, 'invalid_input', message);
