import type { FastifyInstance } from 'fastify';
import type { FacetCounts } from '../../../search/facets/fields.js';
import type { AppContext } from '../../context.js';
import { benchmarkSeconds } from '../../plugins/timing.js';
import { parseFacetFields } from './facet-fields.js';
import { filterParams, filterStrings } from './query.js';
import { ENDPOINTS, type TargetIntelFacetsQuery } from '../../../core/api/index.js';
import { routeSchema } from '../../route-schema.js';
import { hostQueryOf, refreshOrUnavailable } from './index-query.js';

export const FACETS_PATH = ENDPOINTS.targetIntelFacets.path;

/** Value counts per field over the records the target-intel filters match, from the host index. */
export function registerTargetIntelFacets(app: FastifyInstance, context: AppContext): void {
  app.get(FACETS_PATH, { schema: routeSchema(ENDPOINTS.targetIntelFacets) }, async (request) => {
    const raw = request.query as TargetIntelFacetsQuery;
    const filters = filterParams(raw);
    const requests = parseFacetFields(raw.fields);
    const query = await hostQueryOf(filters, context);
    const sync = context.hostIndex;
    await refreshOrUnavailable(sync);
    const result = await sync.readStill((index) => index.facets(query, requests));
    const data: Record<string, FacetCounts> = {};
    for (const [field, counts] of result.counts) data[field] = counts;
    return {
      _benchmark: benchmarkSeconds(request),
      _meta: {
        timestamp: new Date().toISOString(),
        index: 'target-intel',
        total_documents: result.total,
        matches: Object.entries(filterStrings(filters)).map(([field, value]) => ({ field, value })),
        fields: requests.map(({ field, top }) => ({ field, top })),
      },
      data,
    };
  });
}
