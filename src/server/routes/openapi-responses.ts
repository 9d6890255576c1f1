/**
 * The answers each operation of the document declares: its 200 body (from `ENDPOINTS`, or the
 * route's `body200`), the error shape where an error can occur, and the headers that go with them.
 */
import type { TSchema } from '@sinclair/typebox';
import { ENDPOINTS, type Endpoint } from '../../core/api/index.js';
import type { CollectedRoute } from './openapi.js';
import type { SchemaComponents } from './openapi-components.js';

const errorResponse = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  ...(Object.keys(headers).length > 0 ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
});

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again', required: true, schema: { type: 'integer' } },
};
/** Sent when the token has a budget for the endpoint's group (IETF draft RateLimit headers). */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { description: "The token's budget for this endpoint group", schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
  'RateLimit-Policy': { description: 'The budget and its window, `<limit>;w=<seconds>`', schema: { type: 'string' } },
};
/** What a 429 carries: Retry-After always, the budget's headers when the budget (not the export bound) refused. */
const TOO_MANY_HEADERS = { ...RETRY_AFTER, ...RATE_LIMIT_HEADERS };

/** The v3 paths that read advisory feeds, and so answer 402 as the v4 ones do. */
const FEED_READING_V3 = new Set(['/v3/purl', '/v3/purls']);

/** The error answers a route can give: 400 and 503 on every route; 401, 402, 403, 404, 409, 413, 415 and 429 where they apply. */
export function errorResponses(route: CollectedRoute, path: string) {
  const own = ENDPOINT_OF.get(`${route.method} ${route.url}`)?.errors ?? {};
  const stateChanging = route.secured && route.method !== 'GET';
  return {
    '400': errorResponse('Bad Request: a parameter is unknown, repeated or invalid (the message names it)'),
    ...(route.schema.body
      ? {
          '413': errorResponse('Content Too Large: the request body is larger than the route accepts'),
          '415': errorResponse('Unsupported Media Type: the request body must be application/json'),
        }
      : {}),
    ...(route.secured
      ? {
          '401': errorResponse('Unauthorized: no token, or an unknown, revoked or expired one'),
          '429': errorResponse(
            'Too Many Requests: the token spent its budget, or an export is already running',
            TOO_MANY_HEADERS,
          ),
        }
      : {}),
    ...(path.startsWith('/v4/') || FEED_READING_V3.has(path)
      ? { '402': errorResponse('Payment Required: the token may not read that feed') }
      : {}),
    ...(route.secured
      ? {}
      : path.includes('{')
        ? { '403': errorResponse('Forbidden: the signature is invalid or expired') }
        : {}),
    ...(path.includes('{') ? { '404': errorResponse('Not Found') } : {}),
    ...(stateChanging
      ? {
          '403': errorResponse(
            "Forbidden: authenticated by the token cookie without an Origin header naming this server's public origin",
          ),
        }
      : {}),
    ...Object.fromEntries(Object.entries(own).map(([status, description]) => [status, errorResponse(description)])),
    '503': errorResponse('Service Unavailable: starting, draining, or the database does not answer', RETRY_AFTER),
  };
}

/** Where the routes of `ENDPOINTS` find their 200 body and media type. */
const ENDPOINT_OF = new Map<string, Endpoint>(
  Object.values(ENDPOINTS).map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint]),
);

const NDJSON_DESCRIPTION =
  'OK: NDJSON, one JSON value per line, each valid against the schema below (one line\'s schema); the last line is `{"_meta": {"complete": true, "records": N}}`, and a body without it was cut short';

/** The answers of the signed archive download: whole, a byte range, unchanged, or a range it does not have. */
function archiveResponses(content: Record<string, unknown>) {
  const etag = { description: "The archive's SHA-256, quoted", required: true, schema: { type: 'string' } };
  const headers = {
    'Content-Length': { description: 'Bytes of the body', required: true, schema: { type: 'integer' } },
    ETag: etag,
    'Last-Modified': { description: 'When the archive was written', required: true, schema: { type: 'string' } },
    'Accept-Ranges': { description: 'Single byte ranges are served', required: true, schema: { const: 'bytes' } },
    'Content-Disposition': { description: 'attachment; filename="<file>"', required: true, schema: { type: 'string' } },
  };
  const contentRange = (description: string) => ({ description, required: true, schema: { type: 'string' } });
  return {
    '200': { description: 'The zip archive', headers, content },
    '206': {
      description: 'Partial Content: the byte range asked for with `Range`',
      headers: { ...headers, 'Content-Range': contentRange('`bytes <first>-<last>/<size>`') },
      content,
    },
    '304': { description: 'Not Modified: `If-None-Match` names this archive', headers: { ETag: etag } },
    '416': errorResponse('Range Not Satisfiable', { 'Content-Range': contentRange('`bytes */<size>`') }),
  };
}

/** The conditional and range request headers the archive download honours. */
export const ARCHIVE_PARAMETERS = [
  ['Range', 'One byte range, `bytes=<first>-[<last>]` or `bytes=-<suffix>`'],
  ['If-None-Match', 'An ETag held: 304 when it is this archive'],
  ['If-Range', 'The ETag held: the range is served only if it is still this archive'],
].map(([name, description]) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } }));

/** The 200 answer (and for archives its siblings), its body schema named through `schemas`. */
export function okResponses(route: CollectedRoute, schemas: SchemaComponents): Record<string, unknown> {
  const endpoint = ENDPOINT_OF.get(`${route.method} ${route.url}`);
  const body = (route.schema.body200 as TSchema | undefined) ?? endpoint?.response;
  const media =
    (route.schema.produces as string | undefined) ??
    endpoint?.produces ??
    (body?.contentMediaType as string | undefined) ??
    'application/json';
  const content: Record<string, unknown> = { [media]: body ? { schema: schemas.use(body) } : {} };
  for (const [other, schema] of Object.entries(endpoint?.alsoProduces ?? {}))
    content[other] = { schema: schemas.use(schema) };
  if (media === 'application/zip') return archiveResponses(content);
  const headers = route.secured ? { headers: RATE_LIMIT_HEADERS } : {};
  if (media === 'application/x-ndjson') return { '200': { description: NDJSON_DESCRIPTION, ...headers, content } };
  if (endpoint?.status === 201) return { '201': { description: 'Created', ...headers, content } };
  return { '200': { description: 'OK', ...headers, content } };
}

/** A route's own 503 body, when it has one, as an alternative to the error shape. */
export function ownUnavailable(route: CollectedRoute, schemas: SchemaComponents): Record<string, unknown> {
  const body = route.schema.body503 as TSchema | undefined;
  if (!body) return {};
  return {
    '503': {
      description: 'Service Unavailable: not ready (starting, draining, or the database does not answer)',
      headers: RETRY_AFTER,
      content: {
        'application/json': { schema: { anyOf: [schemas.use(body), { $ref: '#/components/schemas/ErrorResponse' }] } },
      },
    },
  };
}
