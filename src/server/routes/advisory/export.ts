/**
 * `GET /v4/advisory/export`: every advisory of the token's feeds matching the filters, as NDJSON
 * in the served order (feed, CVE id, record id), uncapped, pulled as fast as the client reads.
 */
import type { FastifyInstance } from 'fastify';
import type { AdvisoryIndex } from '../../../search/advisories/advisory-index.js';
import type { AdvisoryFilters } from '../../../core/advisory/filters.js';
import { FeedRegistry } from '../../../services/feed-registry.js';
import type { AdvisoryPosition } from '../../../storage/index.js';
import type { AppContext } from '../../context.js';
import type { ExportGate } from '../../export/export-gate.js';
import { type ExportLine, ndjsonExport } from '../../export/ndjson-export.js';
import { feedsToRead } from '../../feed-access.js';
import { parseAdvisoryFilters } from './filters.js';
import { filterParams } from './parameters.js';
import { type AdvisoryExportQuery, ENDPOINTS } from '../../../core/api/index.js';
import { routeSchema } from '../../route-schema.js';

/** Records per index read of an export. */
const BATCH = 1000;

export function registerAdvisoryExport(
  app: FastifyInstance,
  context: AppContext,
  index: AdvisoryIndex,
  gate: ExportGate,
  registry = new FeedRegistry(context.config.feeds),
): void {
  app.get(ENDPOINTS.advisoryExport.path, { schema: routeSchema(ENDPOINTS.advisoryExport) }, async (request, reply) => {
    const { feed, filters } = parseAdvisoryFilters(filterParams(request.query as AdvisoryExportQuery));
    const feeds = await feedsToRead(feed, request.token!, context.config, registry, index);
    const ticket = await gate.admit(request.token!.id);
    const body = ndjsonExport(
      advisoryLines(
        index,
        feeds.map((f) => f.name),
        filters,
      ),
      ticket.release,
    );
    body.once('close', () => void ticket.release());
    reply.type('application/x-ndjson; charset=utf-8');
    return reply.send(body);
  });
}

/** The matching records as stored, a batch at a time after the last one sent. */
async function* advisoryLines(
  index: AdvisoryIndex,
  feeds: string[],
  filters: AdvisoryFilters,
): AsyncGenerator<ExportLine[]> {
  let after: AdvisoryPosition | undefined;
  for (;;) {
    const page = await index.search(feeds, filters, { mode: 'after', limit: BATCH, ...(after ? { after } : {}) });
    if (page.records.length > 0) yield page.records.map((record) => record.json);
    const last = page.records[page.records.length - 1];
    if (!page.more || !last) return;
    after = { feed: last.feed, cveId: last.cveId, recordId: last.recordId };
  }
}
