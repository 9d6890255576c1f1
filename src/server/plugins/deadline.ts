import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './errors.js';
import { JSON_RESPONSE_HEADERS } from './response-headers.js';

/** Seconds a client is asked to wait before trying a timed-out request again. */
const RETRY_AFTER_SECONDS = 5;

/**
 * A deadline per request: when the response has not started `timeoutMs` after the request
 * arrived, the client gets a JSON 503 with `Retry-After` and whatever the handler still does is
 * abandoned (the reply is taken from it, so its late result is dropped). Once a response has
 * started (a stream), the deadline no longer applies; the stream's idle-write timeout does.
 */
export function registerDeadline(app: FastifyInstance, timeoutMs: number): void {
  const timers = new WeakMap<FastifyRequest, NodeJS.Timeout>();
  const clear = async (request: FastifyRequest) => {
    clearTimeout(timers.get(request));
  };
  app.addHook('onRequest', async (request, reply) => {
    timers.set(
      request,
      setTimeout(() => answerTimedOut(request, reply, timeoutMs), timeoutMs),
    );
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    await clear(request);
    return payload;
  });
  app.addHook('onRequestAbort', clear);
  app.addHook('onResponse', clear);
}

function answerTimedOut(request: FastifyRequest, reply: FastifyReply, timeoutMs: number): void {
  if (reply.sent || reply.raw.headersSent || reply.raw.destroyed) return;
  reply.hijack();
  const body = JSON.stringify(
    errorBody(`the request did not complete within ${timeoutMs / 1000} s; try again shortly`),
  );
  reply.raw.writeHead(503, {
    ...JSON_RESPONSE_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Retry-After': String(RETRY_AFTER_SECONDS),
  });
  reply.raw.end(body);
  request.log.warn({ timeout_ms: timeoutMs }, 'request deadline passed: answered 503 and abandoned the work');
}
