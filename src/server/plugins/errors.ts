import type { FastifyError, FastifyInstance } from 'fastify';
import { VulnscopeError } from '../../core/errors.js';

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
      return reply.status(error.status).send(errorBody(error.message));
    }
    if ((error as FastifyError).validation) {
      return reply.status(400).send(errorBody(describeValidation(error as FastifyError)));
    }
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.status(status).send(errorBody(error.message));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send(errorBody('internal server error'));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(`not found: ${request.method} ${request.url.split('?')[0]}`));
  });
}

/** Turns a schema failure into a sentence naming the parameter. */
function describeValidation(error: FastifyError): string {
  const first = error.validation![0]!;
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'additionalProperties') {
    return `unknown parameter "${String(params.additionalProperty)}"`;
  }
  const name = first.instancePath.replace(/^\//, '').split('/')[0] || String(params.missingProperty ?? '');
  if (first.keyword === 'type' && params.type === 'string') {
    return `parameter "${name}" must be given once, as a single value`;
  }
  return `parameter "${name}" ${first.message ?? 'is invalid'}`;
}
