/**
 * `GET /v3/search/cve`: the advisories of the feeds the token may read and the target-intel
 * records that mention a CVE, paged by page or cursor. Feeds the token may not read are left out
 * (not refused): a token without any feed still searches target-intel, which every token reads.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { coversFeed } from '../../../core/entitlements.js';
import { toTargetIntel } from '../../../core/target-intel-record.js';
import type { AdvisoryIndex } from '../../../search/advisories/advisory-index.js';
import { FeedRegistry } from '../../../services/feed-registry.js';
import type { AppContext } from '../../context.js';
import { entitlementOf, knownFeeds } from '../../feed-access.js';
import { jsonBuffer, jsonStream } from '../../json-stream.js';
import { benchmarkSeconds } from '../../plugins/timing.js';
import { routeSchema } from '../../route-schema.js';
import { type CveSearchQuery, ENDPOINTS } from '../../../core/api/index.js';
import { refreshOrUnavailable } from '../target-intel/index-query.js';
import { nextCveCursor, resolveCveSearchPaging } from './paging.js';
import { type CveHit, type CveHostSource, searchCve } from './search.js';

/** Bytes of advisories on a page past which the body is streamed, taking loop turns between chunks. */
const STREAM_ABOVE_BYTES = 1 << 20;
/** Indexes listed in `_meta.top_index_counts`. */
const TOP_INDEXES = 10;

export function registerSearchCve(
  app: FastifyInstance,
  context: AppContext,
  advisories: AdvisoryIndex,
  registry = new FeedRegistry(context.config.feeds),
): void {
  const hosts: CveHostSource = {
    idsNaming: (cve) => context.hostIndex.index.evaluate({ cve, dateAdded: [], observed: [] }),
    records: (ids) => context.storage.hosts.getPageRecords(ids),
  };
  const options = { schema: routeSchema(ENDPOINTS.searchCve), onRequest: emptyCursorStartsWalk };
  app.get(ENDPOINTS.searchCve.path, options, async (request, reply) => {
    const paging = resolveCveSearchPaging(request.query as CveSearchQuery, context.secret);
    const entitlement = entitlementOf(request.token!, context.config);
    const feeds = (await knownFeeds(registry, advisories))
      .map((feed) => feed.name)
      .filter((feed) => coversFeed(entitlement, feed));
    await refreshOrUnavailable(context.hostIndex);
    const found = await searchCve(
      advisories,
      hosts,
      feeds,
      paging.cve,
      paging.mode === 'page'
        ? { offset: paging.offset, limit: paging.limit }
        : { position: paging.position, limit: paging.limit },
    );
    const withHits = found.counts.filter((entry) => entry.count > 0);
    const head = {
      _benchmark: benchmarkSeconds(request),
      _meta: {
        timestamp: new Date().toISOString(),
        cve: paging.cve,
        limit: paging.limit,
        ...(paging.mode === 'page' ? { page: paging.page, total_pages: Math.ceil(found.total / paging.limit) } : {}),
        total_count: found.total,
        current_count: found.hits.length,
        queried_index_count: found.counts.length,
        indices_with_hits: withHits.length,
        top_index_counts: withHits
          .sort((a, b) => b.count - a.count || (a.index < b.index ? -1 : 1))
          .slice(0, TOP_INDEXES)
          .map((entry) => ({ index: entry.index, doc_count: entry.count })),
        ...(paging.mode === 'cursor' && found.next
          ? { next_cursor: nextCveCursor(context.secret, paging, found.next) }
          : {}),
      },
    };
    const bytes = found.hits.reduce((sum, hit) => sum + ('advisory' in hit ? hit.advisory.byteLength : 1024), 0);
    reply.type('application/json; charset=utf-8');
    return reply.send((bytes <= STREAM_ABOVE_BYTES ? jsonBuffer : jsonStream)(head, 'data', found.hits, encodeHit));
  });
}

/**
 * The official document starts a walk with an empty `cursor` too; the server drops empty
 * parameters before validation, so here, before that, it becomes the `start_cursor` it means.
 */
async function emptyCursorStartsWalk(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>;
  if (query.cursor !== '') return;
  delete query.cursor;
  query.start_cursor ??= '';
}

/** A hit's JSON; an advisory's stored bytes pass through unparsed. */
function encodeHit(hit: CveHit): Array<string | Uint8Array> {
  const opening = `{"index":${JSON.stringify(hit.index)},"id":${JSON.stringify(hit.id)},"source":`;
  if ('advisory' in hit) return [opening, hit.advisory, '}'];
  return [opening, JSON.stringify(toTargetIntel(hit.record)), '}'];
}
