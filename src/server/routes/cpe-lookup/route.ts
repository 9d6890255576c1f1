import type { FastifyInstance } from 'fastify';
import { type CpeLookupQuery, ENDPOINTS } from '../../../core/api/index.js';
import { cpeStruct } from '../../../core/cpe.js';
import type { CpeNameIndex } from '../../../search/cpe-names/index.js';
import type { AppContext } from '../../context.js';
import { benchmarkSeconds } from '../../plugins/timing.js';
import { routeSchema } from '../../route-schema.js';
import { lookupCpe } from './lookup.js';
import { parseCpeLookup } from './query.js';

export function registerCpeLookup(app: FastifyInstance, context: AppContext, names: CpeNameIndex): void {
  app.get(ENDPOINTS.cpeLookup.path, { schema: routeSchema(ENDPOINTS.cpeLookup) }, async (request) => {
    const lookup = parseCpeLookup(request.query as CpeLookupQuery);
    const cves = await lookupCpe(context.storage, names, lookup);
    return {
      _benchmark: benchmarkSeconds(request),
      _meta: {
        cpe: lookup.cpe,
        cpe_struct: cpeStruct(lookup.wfn),
        timestamp: new Date().toISOString(),
        total_documents: cves.length,
      },
      data: cves,
    };
  });
}
