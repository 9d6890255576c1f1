import type { FastifyInstance } from 'fastify';
import { TokenOnlyQuery, WhoAmI } from '../../core/api/index.js';
import { benchmarkSeconds } from '../plugins/timing.js';

/** The calling token's identity: a trivial authenticated route (also the benchmark's HTTP floor). */
export function registerWhoami(app: FastifyInstance): void {
  app.get(
    '/whoami',
    { schema: { summary: 'The calling token', tags: ['service'], querystring: TokenOnlyQuery, body200: WhoAmI } },
    async (request) => ({
      _benchmark: benchmarkSeconds(request),
      data: {
        id: request.token!.id,
        name: request.token!.name,
        created_at: new Date(request.token!.createdAt).toISOString(),
      },
    }),
  );
}
