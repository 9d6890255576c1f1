import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { VulnscopeError } from '../../core/errors.js';
import { JSON_RESPONSE_HEADERS } from './response-headers.js';
import { describeValidation } from './validation-message.js';

export const errorBody = (message: string) => ({ error: true, errors: [message] });

/**
 * One error handler for every endpoint: `{ "error": true, "errors": ["…"] }` with the right
 * status, never a stack trace.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | VulnscopeError, request, reply) => {
    if (error instanceof VulnscopeError) {
      if (error.retryAfterSeconds !== undefined)
        reply.header('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
      else if (error.status === 503) reply.header('Retry-After', '5');
      // A 5xx body carries only the code's stable public text; its details go to the log.
      if (error.status >= 500) request.log.warn({ err: error, code: error.code }, 'request failed');
      return reply.status(error.status).send(errorBody(error.publicMessage));
    }
    if ((error as FastifyError).validation) {
      return reply.status(400).send(errorBody(describeValidation(error as FastifyError, request)));
    }
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.status(status).send(errorBody(error.message));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send(errorBody('internal server error'));
  });
  // The message names no part of the request: error bodies never echo what was sent.
  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send(errorBody('not found: no such endpoint (/openapi.json describes them)'));
  });
}

/**
 * Errors Fastify raises before a route is found (its `frameworkErrors` option): a path that is not
 * valid percent-encoded UTF-8, or a path segment longer than the router's limit. Fastify's own
 * bodies for them quote the path; these name no part of the request.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // No hook runs for these replies: they get the JSON response headers here.
  reply.headers(JSON_RESPONSE_HEADERS);
  if (error.code === 'FST_ERR_BAD_URL') {
    reply.status(400).send(errorBody('bad request: the URL path is not valid percent-encoded UTF-8'));
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.status(414).send(errorBody('URI too long: a path segment is longer than the server accepts'));
  } else {
    request.log.error({ code: error.code }, 'request failed before routing');
    reply.status(500).send(errorBody('internal server error'));
  }
}

interface ClientError extends Error {
  code?: string;
  /** Where in `rawPacket` Node's HTTP parser stopped. */
  bytesParsed?: number;
  /** The bytes being parsed: they hold the request itself (a token, a signature), so never logged. */
  rawPacket?: Buffer;
}

/**
 * The status and message of a request Node's HTTP parser refused. Node counts the request line
 * and the headers against one limit (`maxHeaderSize`, 16 KiB), so an overflow is a 414 when the
 * parser had not yet seen the end of a line in the bytes it parsed (it was still reading the
 * request target), and a 431 otherwise. A single header line so long that it overflows in a later
 * network read than its start is reported as a 414 too: both mean "send less".
 */
export function describeClientError(error: ClientError): [status: number, message: string] {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request timeout: the request was not received in time'];
    case 'HPE_HEADER_OVERFLOW': {
      const parsed = error.rawPacket?.subarray(0, error.bytesParsed ?? error.rawPacket.length);
      if (parsed && !parsed.includes(0x0a))
        return [414, 'URI too long: the request target is longer than the server accepts'];
      return [431, 'request header fields too large: the headers are larger than the server accepts'];
    }
    case 'HPE_INVALID_URL':
      return [400, 'bad request: the request target is not a valid URL (it must be printable ASCII, percent-encoded)'];
    default:
      return [400, 'bad request: the request is not valid HTTP/1.1'];
  }
}

/**
 * Answers a request Node's HTTP parser refused (through Fastify's `clientErrorHandler` option) in
 * the documented error shape; Fastify's default writes a shape of its own.
 */
export function answerClientError(error: Error, socket: Duplex, log?: FastifyBaseLogger): void {
  const clientError = error as ClientError;
  // A reset connection has no one to answer.
  if (clientError.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = describeClientError(clientError);
  log?.debug({ code: clientError.code, status }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(errorBody(message));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        Object.entries(JSON_RESPONSE_HEADERS)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('') +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}
