/**
 * `GET /v3/index/target-intel/export`: every record matching the filters, as NDJSON in id order,
 * uncapped, pulled as fast as the client reads (see export/ndjson-export.ts).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { HostQuery } from '../../../search/host-query.js';
import { toTargetIntel } from '../../../core/target-intel-record.js';
import type { AppContext } from '../../context.js';
import type { ExportGate } from '../../export/export-gate.js';
import { type ExportLine, ndjsonExport } from '../../export/ndjson-export.js';
import { hostQueryOf, refreshOrUnavailable } from './index-query.js';
import { FILTER_NAMES } from './parameters.js';
import { filterParams, type RawParams } from './query.js';

/** Records read from the database per statement batch of an export. */
const BATCH = 1000;

const querystring = Type.Object(
  Object.fromEntries([...FILTER_NAMES, 'token'].map((name) => [name, Type.Optional(Type.String())])),
  { additionalProperties: false },
);

export function registerTargetIntelExport(app: FastifyInstance, context: AppContext, gate: ExportGate): void {
  app.get(
    '/v3/index/target-intel/export',
    {
      schema: {
        operationId: 'index_target-intel_export_get',
        produces: 'application/x-ndjson',
        summary: 'Every target-intel record matching the filters, as NDJSON (uncapped)',
        tags: ['indices'],
        querystring,
      },
    },
    async (request, reply) => {
      const sync = context.hostIndex;
      await refreshOrUnavailable(sync);
      const query = await hostQueryOf(filterParams(request.query as RawParams), context);
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
