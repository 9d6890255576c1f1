import type { FastifyInstance } from 'fastify';
import type { AdvisoryIndex } from '../../../search/advisories/advisory-index.js';
import { FeedRegistry } from '../../../services/feed-registry.js';
import type { AdvisoryPaging } from '../../../storage/index.js';
import type { AppContext } from '../../context.js';
import { jsonBuffer, jsonStream } from '../../json-stream.js';
import { feedsToRead, listableFeeds } from '../../feed-access.js';
import { parseAdvisoryFilters } from './filters.js';
import { nextAdvisoryCursor, resolveAdvisoryPaging } from './paging.js';
import type { AdvisoryQuery } from './parameters.js';
import { ENDPOINTS } from '../../../core/api/index.js';
import { routeSchema } from '../../route-schema.js';

/** Bytes of records on a page past which the body is streamed, taking loop turns between chunks. */
const STREAM_ABOVE_BYTES = 1 << 20;

/** `GET /v4/advisory` (CVE-record advisories of the feeds, filtered and paged) and `GET /v4/advisory/list`. */
export function registerAdvisory(
  app: FastifyInstance,
  context: AppContext,
  index: AdvisoryIndex,
  registry = new FeedRegistry(context.config.feeds),
): void {
  app.get(ENDPOINTS.advisories.path, { schema: routeSchema(ENDPOINTS.advisories) }, async (request, reply) => {
    const raw = request.query as AdvisoryQuery;
    const paging = resolveAdvisoryPaging(raw, context.secret);
    const { feed, filters } = parseAdvisoryFilters(paging.filters);
    const feeds = await feedsToRead(feed, request.token!, context.config, registry, index);
    const offset = (paging.page - 1) * paging.limit;
    const storagePaging: AdvisoryPaging =
      paging.mode === 'page'
        ? { mode: 'offset', offset, limit: paging.limit }
        : { mode: 'after', limit: paging.limit, ...(paging.after ? { after: paging.after } : {}) };
    const result = await index.search(
      feeds.map((f) => f.name),
      filters,
      storagePaging,
    );
    const last = result.records[result.records.length - 1];
    const head = {
      _meta: {
        total: result.total,
        filtered: result.filtered,
        page: paging.page,
        pages: Math.ceil(result.filtered / paging.limit),
        limit: paging.limit,
        ...(paging.mode === 'cursor' && paging.cursor ? { cursor: paging.cursor } : {}),
        ...(paging.mode === 'cursor' && result.more && last
          ? { next_cursor: nextAdvisoryCursor(context.secret, paging, last) }
          : {}),
      },
    };
    // The records are written as stored: no parse and second serialisation of every page.
    const bytes = result.records.reduce((sum, hit) => sum + hit.json.length, 0);
    const body = bytes <= STREAM_ABOVE_BYTES ? jsonBuffer : jsonStream;
    reply.type('application/json; charset=utf-8');
    return reply.send(body(head, 'data', result.records, (hit) => [hit.json]));
  });

  app.get(ENDPOINTS.advisoryFeeds.path, { schema: routeSchema(ENDPOINTS.advisoryFeeds) }, async (request) => {
    const feeds = await listableFeeds(request.token!, context.config, registry, index);
    return {
      data: feeds.map((feed) => ({
        name: feed.name,
        description: feed.description,
        href: `${context.config.publicUrl}/v4/advisory?name=${encodeURIComponent(feed.name)}`,
      })),
    };
  });
}
