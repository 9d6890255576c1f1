import type { FastifyInstance, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    tags?: string[];
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

export function registerOpenApi(app: FastifyInstance, routes: CollectedRoute[], version: string): void {
  app.get('/openapi.json', async () => buildDocument(routes, version));
}

function buildDocument(routes: CollectedRoute[], version: string) {
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
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = {
      summary: route.schema.summary,
      tags: route.schema.tags,
      parameters,
      ...(route.secured ? { security: [{ Bearer: [] }] } : {}),
      responses: {
        '200': { description: 'OK', content: { 'application/json': {} } },
        '400': {
          description: 'Bad Request',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
        },
        ...(route.secured
          ? {
              '401': {
                description: 'Unauthorized',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
              },
            }
          : {}),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vulnscope API',
      version,
      description: 'Self-hosted vulnerability intelligence, VulnCheck-compatible.',
    },
    components: {
      securitySchemes: { Bearer: { type: 'apiKey', in: 'header', name: 'Authorization' } },
      schemas: {
        ErrorResponse: {
          type: 'object',
          properties: { error: { type: 'boolean' }, errors: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
    paths,
  };
}

/** TypeBox schemas carry symbol keys and `kind` markers; JSON.stringify drops symbols. */
function stripTypebox(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema));
}
