import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { unavailable, VulnscopeError } from '../../../core/errors.js';
import type { AppContext } from '../../context.js';
import { parseBoolean } from '../../params.js';
import { benchmarkSeconds } from '../../plugins/timing.js';
import { CLIENT_PARAMETERS, TARGET_INTEL_PARAMETERS } from './parameters.js';
import { nextCursor, RESULT_WINDOW, resolvePaging } from './paging.js';
import { parseHostQuery, type RawParams } from './query.js';
import { explainRecords } from './explain.js';
import { toTargetIntel } from '../../../core/target-intel-record.js';
import { knowledgeMatcher } from '../../../services/matching/source.js';
import { addProductRenames } from './renames.js';

const querystring = Type.Object(
  Object.fromEntries(
    [...TARGET_INTEL_PARAMETERS.map((p) => p.name), ...CLIENT_PARAMETERS].map((name) => [
      name,
      Type.Optional(Type.String()),
    ]),
  ),
  { additionalProperties: false },
);

export function registerTargetIntel(app: FastifyInstance, context: AppContext): void {
  const matcher = context.matcher ?? knowledgeMatcher(context.storage);
  app.get(
    '/v3/index/target-intel',
    {
      schema: {
        summary: 'Target intelligence: exposed services by CVE, network, ASN, country, product or classification',
        tags: ['indices'],
        querystring,
      },
    },
    async (request) => {
      const raw = request.query as RawParams;
      const sync = context.hostIndex;
      await refreshOrUnavailable(sync);
      const paging = resolvePaging(raw, context.secret, sync.seq);
      const query = parseHostQuery(paging.filters);
      await addProductRenames(query, context.storage);
      const showPages = raw.show_pages ? parseBoolean('show_pages', raw.show_pages) : false;
      const showQuery = raw.show_query ? parseBoolean('show_query', raw.show_query) : false;
      const explain = raw.explain ? parseBoolean('explain', raw.explain) : false;

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
      if (explain) {
        // Evidence needs what matching reads; a plain page reads only what it shows.
        const pageRecords = inPageOrder(await hosts.getByIds(pageIds));
        const evidence = await explainRecords(pageRecords, matcher);
        data = pageRecords.map((record, i) => ({ ...toTargetIntel(record), cve_evidence: evidence[i] }));
      } else {
        data = inPageOrder(await hosts.getPageRecords(pageIds)).map(toTargetIntel);
      }

      const totalPages = Math.ceil(result.total / paging.limit);
      const maxPages = Math.min(totalPages, Math.floor(RESULT_WINDOW / paging.limit));
      const firstItem = (paging.page - 1) * paging.limit + 1;
      const more = inCursor && result.ids.length > paging.limit;
      return {
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
          matches: Object.entries(paging.filters).map(([field, value]) => ({ field, value })),
          parameters: TARGET_INTEL_PARAMETERS,
          show_pages: showPages,
          show_query: showQuery,
          ...(showPages ? { pages: pageLinks(maxPages) } : {}),
          ...(showQuery
            ? { opensearch_query: { vulnscope: { filters: paging.filters, sort: paging.sort, order: paging.order } } }
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
        data,
      };
    },
  );
}

/** A refresh that fails (storage unreachable, a broken connection) is a 503 the client may retry, never a 500. */
export async function refreshOrUnavailable(sync: AppContext['hostIndex']): Promise<void> {
  try {
    await sync.catchUp();
  } catch (error) {
    if (error instanceof VulnscopeError) throw error;
    throw unavailable(
      `the index could not be brought up to date with the database: ${(error as Error).message}`,
      'index_behind',
    );
  }
}

/** Page links for a pager UI, as strings, with "..." for a gap. */
function pageLinks(maxPages: number): string[] {
  if (maxPages <= 10) return Array.from({ length: maxPages }, (_, i) => String(i + 1));
  return [...Array.from({ length: 9 }, (_, i) => String(i + 1)), '...', String(maxPages)];
}
