/**
 * `GET /v3/index/target-intel/export`: every record matching the filters, as NDJSON in id order,
 * uncapped, pulled as fast as the client reads (see export/ndjson-export.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { HostQuery } from '../../../search/host-query.js';
import { toTargetIntel } from '../../../core/target-intel-record.js';
import type { AppContext } from '../../context.js';
import type { ExportGate } from '../../export/export-gate.js';
import { type ExportLine, ndjsonExport } from '../../export/ndjson-export.js';
import { hostQueryOf, refreshOrUnavailable } from './index-query.js';
import { filterParams } from './query.js';
import { ENDPOINTS, type TargetIntelExportQuery } from '../../../core/api/index.js';
import { routeSchema } from '../../route-schema.js';

/** Records read from the database per statement batch of an export. */
const BATCH = 1000;

export function registerTargetIntelExport(app: FastifyInstance, context: AppContext, gate: ExportGate): void {
  app.get(
    ENDPOINTS.targetIntelExport.path,
    { schema: routeSchema(ENDPOINTS.targetIntelExport) },
    async (request, reply) => {
      const sync = context.hostIndex;
      await refreshOrUnavailable(sync);
      const query = await hostQueryOf(filterParams(request.query as TargetIntelExportQuery), context);
      const ticket = await gate.admit(request.token!.id);
      const body = ndjsonExport(recordLines(sync, context.storage.hosts, query), ticket.release);
      body.once('close', () => void ticket.release());
      reply.type('application/x-ndjson; charset=utf-8');
      return reply.send(body);
    },
  );
}

/** The matching records' lines, a batch at a time: ids from the index above the last one sent, then their rows. */
async function* recordLines(
  sync: AppContext['hostIndex'],
  hosts: AppContext['storage']['hosts'],
  query: HostQuery,
): AsyncGenerator<ExportLine[]> {
  let after = -1;
  for (;;) {
    const ids = sync.index.idsAbove(query, after, BATCH);
    if (ids.length === 0) return;
    after = ids[ids.length - 1]!;
    const records = await hosts.getPageRecords(ids);
    records.sort((a, b) => a.id - b.id);
    yield records.map((record) => JSON.stringify(toTargetIntel(record)));
  }
}
