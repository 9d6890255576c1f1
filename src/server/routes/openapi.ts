import type { FastifyInstance, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    tags?: string[];
    /** The official client's operationId where the route is VulnCheck's, else Vulnscope's own. */
    operationId?: string;
    /** The response's media type when not JSON (exports: NDJSON). */
    produces?: string;
  }
}

interface CollectedRoute {
  method: string;
  url: string;
  schema: Record<string, unknown>;
  secured: boolean;
}

/**
 * Collects every route's schema as it is registered; `GET /openapi.json` then serves an
 * OpenAPI 3.1 document generated from them, so the document cannot drift from the validation.
 */
export function collectRoutes(app: FastifyInstance, isSecured: (url: string) => boolean): CollectedRoute[] {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!route.schema || route.url.includes('*')) return;
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routes.push({
        method,
        url: route.url,
        schema: route.schema as Record<string, unknown>,
        secured: isSecured(route.url),
      });
    }
  });
  return routes;
}

export function registerOpenApi(
  app: FastifyInstance,
  routes: CollectedRoute[],
  version: string,
  publicUrl: string,
): void {
  app.get('/openapi.json', async () => buildDocument(routes, version, publicUrl));
}

/** Every way a token may be sent; each is accepted alone. */
const SECURITY = [{ Bearer: [] }, { BearerHttp: [] }, { TokenQuery: [] }, { TokenCookie: [] }];

const TAGS = [
  { name: 'indices', description: 'Target intelligence: the exposure index fed by your scans' },
  { name: 'advisory', description: 'CVE-record advisories of the loaded feeds' },
  { name: 'endpoints', description: 'CPE search and the v3 backups, as VulnCheck names them' },
  { name: 'backup', description: 'Downloadable archives of each feed and index' },
  { name: 'index', description: 'The v3 indexes this server holds' },
  { name: 'service', description: 'Health, identity and this document' },
];

const errorResponse = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  ...(Object.keys(headers).length > 0 ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
});

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
};
const RATE_LIMIT_HEADERS = {
  ...RETRY_AFTER,
  'RateLimit-Policy': { description: "The token's budget for this endpoint group", schema: { type: 'string' } },
  RateLimit: { description: 'What is left of the budget and when it resets', schema: { type: 'string' } },
};

/** The error answers a route can give: 400 and 503 on every route; 401, 402, 404 and 429 where they apply. */
function errorResponses(route: CollectedRoute, path: string) {
  return {
    '400': errorResponse('Bad Request: a parameter is unknown, repeated or invalid (the message names it)'),
    ...(route.secured
      ? {
          '401': errorResponse('Unauthorized: no token, or an unknown, revoked or expired one'),
          '429': errorResponse(
            'Too Many Requests: the token spent its budget, or an export is already running',
            RATE_LIMIT_HEADERS,
          ),
        }
      : {}),
    ...(path.startsWith('/v4/') ? { '402': errorResponse('Payment Required: the token may not read that feed') } : {}),
    ...(route.secured
      ? {}
      : path.includes('{')
        ? { '403': errorResponse('Forbidden: the signature is invalid or expired') }
        : {}),
    ...(path.includes('{') ? { '404': errorResponse('Not Found') } : {}),
    '503': errorResponse('Service Unavailable: starting, draining, or the database does not answer', RETRY_AFTER),
  };
}

function buildDocument(routes: CollectedRoute[], version: string, publicUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters: unknown[] = [];
    const query = route.schema.querystring as { properties?: Record<string, unknown> } | undefined;
    for (const [name, schema] of Object.entries(query?.properties ?? {})) {
      parameters.push({ name, in: 'query', required: false, schema: stripTypebox(schema) });
    }
    const params = route.schema.params as { properties?: Record<string, unknown> } | undefined;
    for (const [name, schema] of Object.entries(params?.properties ?? {})) {
      parameters.push({ name, in: 'path', required: true, schema: stripTypebox(schema) });
    }
    const media = (route.schema.produces as string | undefined) ?? 'application/json';
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = {
      operationId: route.schema.operationId ?? operationIdOf(route.method, path),
      summary: route.schema.summary,
      tags: route.schema.tags,
      parameters,
      security: route.secured ? SECURITY : [],
      responses: {
        '200': { description: 'OK', content: { [media]: {} } },
        ...errorResponses(route, path),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vulnscope API',
      version,
      description:
        'Self-hosted vulnerability intelligence, wire-compatible with the VulnCheck API: target intelligence, CPE search, advisories and backups.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: publicUrl, description: 'This server (VULNSCOPE_PUBLIC_URL)' }],
    tags: TAGS,
    components: {
      securitySchemes: {
        Bearer: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`Authorization: Bearer <token>`, or the token alone as the official Python SDK sends it',
        },
        BearerHttp: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <token>`' },
        TokenQuery: { type: 'apiKey', in: 'query', name: 'token', description: '`?token=<token>`' },
        TokenCookie: { type: 'apiKey', in: 'cookie', name: 'token', description: 'the cookie `token=<token>`' },
      },
      schemas: {
        ErrorResponse: {
          type: 'object',
          required: ['error', 'errors'],
          properties: {
            error: { type: 'boolean', const: true },
            errors: { type: 'array', items: { type: 'string' }, minItems: 1 },
          },
        },
      },
    },
    paths,
  };
}

/** `GET /v3/index/target-intel/export` → `get_v3_index_target-intel_export`, for routes without an official name. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/[{}]/g, ''));
  return [method.toLowerCase(), ...words].join('_');
}

/** TypeBox schemas carry symbol keys and `kind` markers; JSON.stringify drops symbols. */
function stripTypebox(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema));
}
