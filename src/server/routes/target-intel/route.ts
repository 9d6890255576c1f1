import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { benchmarkSeconds } from '../../plugins/timing.js';
import { TARGET_INTEL_PARAMETERS } from './parameters.js';
import { ENDPOINTS, type TargetIntelQuery } from '../../../core/api/index.js';
import { routeSchema } from '../../route-schema.js';
import { nextCursor, RESULT_WINDOW, resolvePaging } from './paging.js';
import { filterStrings } from './query.js';
import { explainRecordsJson } from './explain.js';
import { jsonBuffer, jsonStream } from '../../json-stream.js';
import { toTargetIntel } from '../../../core/target-intel-record.js';
import { knowledgeMatcher } from '../../../services/matching/source.js';
import { hostQueryOf, refreshOrUnavailable } from './index-query.js';

export function registerTargetIntel(app: FastifyInstance, context: AppContext): void {
  const matcher = context.matcher ?? knowledgeMatcher(context.storage);
  app.get(ENDPOINTS.targetIntel.path, { schema: routeSchema(ENDPOINTS.targetIntel) }, async (request, reply) => {
    const raw = request.query as TargetIntelQuery;
    const sync = context.hostIndex;
    await refreshOrUnavailable(sync);
    const paging = resolvePaging(raw, context.secret, sync.seq);
    const query = await hostQueryOf(paging.filters, context);
    const showPages = raw.show_pages ?? false;
    const showQuery = raw.show_query ?? false;
    const explain = raw.explain ?? false;

    const inCursor = paging.mode === 'cursor';
    const result = sync.index.page(query, {
      sort: paging.sort,
      order: paging.order,
      offset: inCursor ? 0 : (paging.page - 1) * paging.limit,
      // One extra record tells whether a next cursor is needed.
      limit: inCursor ? paging.limit + 1 : paging.limit,
      ...(inCursor ? { after: paging.after, snapshotSeq: paging.snapshotSeq } : {}),
    });
    const pageIds = result.ids.slice(0, paging.limit);
    const hosts = context.storage.hosts;
    const inPageOrder = <T extends { id: number }>(records: T[]) => {
      const byId = new Map(records.map((record) => [record.id, record]));
      return pageIds.flatMap((id) => byId.get(id) ?? []);
    };
    let data: Array<ReturnType<typeof toTargetIntel>>;
    /** With `explain`: each record's evidence as JSON bytes, spliced into its record when the body is written. */
    let evidence: Buffer[] | undefined;
    if (explain) {
      // Evidence needs what matching reads; a plain page reads only what it shows.
      const pageRecords = inPageOrder(await hosts.getByIds(pageIds));
      evidence = await explainRecordsJson(pageRecords, matcher);
      data = pageRecords.map(toTargetIntel);
    } else {
      data = inPageOrder(await hosts.getPageRecords(pageIds)).map(toTargetIntel);
    }

    const totalPages = Math.ceil(result.total / paging.limit);
    const maxPages = Math.min(totalPages, Math.floor(RESULT_WINDOW / paging.limit));
    const firstItem = (paging.page - 1) * paging.limit + 1;
    const more = inCursor && result.ids.length > paging.limit;
    const head = {
      _benchmark: benchmarkSeconds(request),
      _meta: {
        timestamp: new Date().toISOString(),
        index: 'target-intel',
        limit: paging.limit,
        total_documents: result.total,
        sort: paging.sort,
        order: paging.order,
        page: paging.page,
        total_pages: totalPages,
        max_pages: maxPages,
        first_item: firstItem,
        last_item: firstItem + data.length - 1,
        matches: Object.entries(filterStrings(paging.filters)).map(([field, value]) => ({ field, value })),
        parameters: TARGET_INTEL_PARAMETERS,
        show_pages: showPages,
        show_query: showQuery,
        ...(showPages ? { pages: pageLinks(maxPages) } : {}),
        ...(showQuery
          ? {
              opensearch_query: {
                vulnscope: { filters: filterStrings(paging.filters), sort: paging.sort, order: paging.order },
              },
            }
          : {}),
        ...(paging.mode === 'cursor' && paging.cursor ? { cursor: paging.cursor } : {}),
        ...(more
          ? {
              next_cursor: nextCursor(
                context.secret,
                paging,
                sync.index.positionOf(pageIds[pageIds.length - 1]!, paging.sort),
              ),
            }
          : {}),
      },
    };
    if (!evidence) return { ...head, data };
    const items = data.map((record, i) => ({ record, evidence: evidence[i]! }));
    const bytes = evidence.reduce((sum, piece) => sum + piece.length, 0);
    reply.type('application/json; charset=utf-8');
    return reply.send((bytes <= STREAM_ABOVE_BYTES ? jsonBuffer : jsonStream)(head, 'data', items, withEvidence));
  });
}

/** Bytes of evidence on a page past which the body is streamed, taking loop turns between chunks. */
const STREAM_ABOVE_BYTES = 1 << 20;

/** A record's JSON with its evidence bytes as the last field, `cve_evidence`. */
function withEvidence(item: { record: ReturnType<typeof toTargetIntel>; evidence: Buffer }): Array<string | Buffer> {
  const json = JSON.stringify(item.record);
  return [json.slice(0, -1), ',"cve_evidence":', item.evidence, '}'];
}

/** Page links for a pager UI, as strings, with "..." for a gap. */
function pageLinks(maxPages: number): string[] {
  if (maxPages <= 10) return Array.from({ length: maxPages }, (_, i) => String(i + 1));
  return [...Array.from({ length: 9 }, (_, i) => String(i + 1)), '...', String(maxPages)];
}
