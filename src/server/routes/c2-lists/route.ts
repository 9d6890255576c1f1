/**
 * `GET /v3/tags/vulncheck-c2` (addresses, for firewall block lists) and `GET /v3/pdns/vulncheck-c2`
 * (hostnames, for protective DNS): what is classified c2 now, as text or JSON (see
 * services/classified-lists.ts for what "now" means).
 */
import type { FastifyInstance } from 'fastify';
import { type C2ListQuery, ENDPOINTS } from '../../../core/api/index.js';
import { ClassifiedLists, windowStart } from '../../../services/classified-lists.js';
import type { AppContext } from '../../context.js';
import { routeSchema } from '../../route-schema.js';
import { refreshOrUnavailable } from '../target-intel/index-query.js';
import { KeptListBodies, mediaTypeOf } from './body.js';

export function registerC2Lists(app: FastifyInstance, context: AppContext): void {
  const lists = new ClassifiedLists(context.storage, 'c2');
  const bodies = new KeptListBodies();
  const since = () => windowStart(context.config.retentionDays, Date.now());

  app.get(ENDPOINTS.c2Addresses.path, { schema: routeSchema(ENDPOINTS.c2Addresses) }, async (request, reply) => {
    const format = (request.query as C2ListQuery).format ?? 'text';
    await refreshOrUnavailable(context.hostIndex);
    const list = await lists.addresses(context.hostIndex, since());
    reply.type(mediaTypeOf(format));
    return reply.send(bodies.body(list, format, 'ip'));
  });

  app.get(ENDPOINTS.c2Hostnames.path, { schema: routeSchema(ENDPOINTS.c2Hostnames) }, async (request, reply) => {
    const format = (request.query as C2ListQuery).format ?? 'text';
    await refreshOrUnavailable(context.hostIndex);
    const list = lists.hostnames(context.hostIndex, since());
    reply.type(mediaTypeOf(format));
    return reply.send(bodies.body(list, format, 'hostname'));
  });
}
