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
  ) {
    super(message);
    this.name = 'VulnscopeError';
  }
}

export const badRequest = (message: string) => new VulnscopeError(400, 'bad_request', message);
export const unauthorized = (message = 'unauthorized: a valid token is required') =>
  new VulnscopeError(401, 'unauthorized', message);
export const notFound = (message: string) => new VulnscopeError(404, 'not_found', message);
export const unavailable = (message: string) => new VulnscopeError(503, 'unavailable', message);
/** Input that cannot be understood (a CPE, an IP, a file line); callers decide how to report it. */
export const invalidInput = (message: string) => new VulnscopeError(400, 'invalid_input', message);
