import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ANY, CPE_ATTRIBUTES, parseCpe, type Wfn } from '../../../core/cpe.js';
import { cvesOfNames } from '../../../ingest/knowledge/name-cves.js';
import type { AppContext } from '../../context.js';
import { benchmarkSeconds } from '../../plugins/timing.js';
import { CPE_SEARCH_CLIENT_PARAMETERS, CPE_SEARCH_PARAMETERS, parseCpeSearch } from './query.js';

const querystring = Type.Object(
  Object.fromEntries([...CPE_SEARCH_PARAMETERS, ...CPE_SEARCH_CLIENT_PARAMETERS].map((name) => [name, Type.Optional(Type.String())])),
  { additionalProperties: false },
);

/** `api.CPE`: the 11 attributes as WFN strings (`*` ANY, `-` NA, specials backslash-quoted). */
const cpeStruct = (wfn: Wfn) => Object.fromEntries(CPE_ATTRIBUTES.map((attribute) => [attribute, wfn[attribute] ?? ANY]));

export function registerCpeSearch(app: FastifyInstance, context: AppContext): void {
  app.get(
    '/v3/search/cpe',
    {
      schema: {
        summary: 'CPE search: the CPE names matching the attributes, and the CVEs linked to each',
        tags: ['endpoints'],
        querystring,
      },
    },
    async (request) => {
      const query = parseCpeSearch(request.query as Record<string, string>);
      const found = await context.storage.knowledge.searchCpeNames({
        ...(query.part ? { part: query.part } : {}),
        ...(query.vendor ? { vendor: query.vendor } : {}),
        ...(query.product ? { product: query.product } : {}),
        ...(query.version !== undefined ? { version: query.version, versionPrefix: query.versionPrefix } : {}),
        order: query.order,
        offset: (query.page - 1) * query.limit,
        limit: query.limit,
      });
      const names = found.names.map((name) => ({ cpe: name.cpe, wfn: parseCpe(name.cpe) }));
      const cves = await cvesOfNames(context.storage, found.names.map((name) => name.cpe), query.isVulnerable);
      const totalPages = Math.ceil(found.total / query.limit);
      const firstItem = (query.page - 1) * query.limit + 1;
      return {
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
          first_item: names.length > 0 ? firstItem : 0,
          last_item: names.length > 0 ? firstItem + names.length - 1 : 0,
        },
        data: names.map((name, i) => ({ cpe: name.cpe, cpe_struct: cpeStruct(name.wfn), cves: cves[i] })),
      };
    },
  );
}
