import type { FastifyInstance } from 'fastify';
import { ENDPOINTS } from '../../core/api/index.js';
import { routeSchema } from '../route-schema.js';
import { buildDocument, type CollectedRoute } from './openapi.js';

/** `GET /v3/openapi`: the document `/openapi.json` serves, behind a token as VulnCheck's is. */
export function registerOpenApiLookup(
  app: FastifyInstance,
  routes: CollectedRoute[],
  version: string,
  publicUrl: string,
): void {
  app.get(ENDPOINTS.openapiLookup.path, { schema: routeSchema(ENDPOINTS.openapiLookup) }, async () =>
    buildDocument(routes, version, publicUrl),
  );
}
