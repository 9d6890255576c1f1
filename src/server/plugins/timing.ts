import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    startedAt: bigint;
  }
}

export function registerTiming(app: FastifyInstance): void {
  app.decorateRequest('startedAt', 0n);
  app.addHook('onRequest', async (request) => {
    request.startedAt = process.hrtime.bigint();
  });
}

/** Server-side processing time so far, in seconds (`_benchmark`). */
export function benchmarkSeconds(request: FastifyRequest): number {
  return Number(process.hrtime.bigint() - request.startedAt) / 1e9;
}
