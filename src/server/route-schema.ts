import type { FastifySchema } from 'fastify';
import type { Endpoint } from '../core/api/index.js';

/** A route's Fastify schema from its entry in the shared endpoint table: validation and documentation in one. */
export function routeSchema(endpoint: Endpoint): FastifySchema {
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    tags: endpoint.tags,
    querystring: endpoint.query,
    ...(endpoint.params ? { params: endpoint.params } : {}),
    ...(endpoint.body ? { body: endpoint.body } : {}),
    ...(endpoint.produces ? { produces: endpoint.produces } : {}),
  };
}
