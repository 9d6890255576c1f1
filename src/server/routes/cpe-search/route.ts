import type { FastifyInstance } from 'fastify';
import { cpeStruct } from '../../../core/cpe.js';
import type { CpeNameIndex } from '../../../search/cpe-names/index.js';
import type { AppContext } from '../../context.js';
import { type ItemEncoder, jsonBuffer, jsonStream } from '../../json-stream.js';
import { benchmarkSeconds } from '../../plugins/timing.js';
import { parseCpeSearch } from './query.js';
import { type CpeSearchQuery, ENDPOINTS } from '../../../core/api/index.js';
import { routeSchema } from '../../route-schema.js';
import { searchCpe } from './search.js';

/** CVE ids on a page past which the lists are copied as bytes from the product tables, not serialised as strings. */
const BYTES_ABOVE_CVES = 2_000;
/** CVE ids on a page (about 1.6 MiB) past which the body is streamed, taking loop turns between chunks. */
const STREAM_ABOVE_CVES = 100_000;

export function registerCpeSearch(app: FastifyInstance, context: AppContext, names: CpeNameIndex): void {
  app.get(ENDPOINTS.cpeSearch.path, { schema: routeSchema(ENDPOINTS.cpeSearch) }, async (request, reply) => {
    const query = parseCpeSearch(request.query as CpeSearchQuery);
    const found = await searchCpe(context.storage, names, query);
    const totalPages = Math.ceil(found.total / query.limit);
    const firstItem = (query.page - 1) * query.limit + 1;
    const head = {
      _benchmark: benchmarkSeconds(request),
      _meta: {
        timestamp: new Date().toISOString(),
        limit: query.limit,
        total_documents: found.total,
        sort: '_id',
        order: query.order,
        page: query.page,
        total_pages: totalPages,
        max_pages: Math.min(totalPages, Math.floor(10_000 / query.limit)),
        first_item: found.names.length > 0 ? firstItem : 0,
        last_item: found.names.length > 0 ? firstItem + found.names.length - 1 : 0,
      },
    };
    const cves = found.names.reduce((sum, name) => sum + name.cves.length, 0);
    if (cves <= BYTES_ABOVE_CVES) {
      const data = found.names.map((name) => ({
        cpe: name.cpe,
        cpe_struct: cpeStruct(name.wfn),
        cves: name.cves.ids(),
      }));
      return { ...head, data };
    }
    // The CVE lists pass through as bytes written from each product's id table.
    const encode: ItemEncoder<(typeof found.names)[number]> = (name) => [
      `{"cpe":${JSON.stringify(name.cpe)},"cpe_struct":${JSON.stringify(cpeStruct(name.wfn))},"cves":`,
      name.cves.json(),
      '}',
    ];
    reply.type('application/json; charset=utf-8');
    if (cves <= STREAM_ABOVE_CVES) return reply.send(jsonBuffer(head, 'data', found.names, encode));
    return reply.send(jsonStream(head, 'data', found.names, encode));
  });
}
