import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBody, OpenApiDocument, TokenOnlyQuery } from '../../core/api/index.js';
import { SchemaComponents } from './openapi-components.js';
import { ARCHIVE_PARAMETERS, errorResponses, okResponses, ownUnavailable } from './openapi-responses.js';

declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    tags?: string[];
    /** The official client's operationId where the route is VulnCheck's, else Vulnscope's own. */
    operationId?: string;
    /** The response's media type when not JSON (exports: NDJSON). */
    produces?: string;
    /**
     * The 200 body, for the document only (Fastify's `response` key would re-serialise every
     * body); routes of `ENDPOINTS` get theirs from there.
     */
    body200?: TSchema;
    /** A 503 body of the route's own, besides the error shape (the readiness probe's). */
    body503?: TSchema;
  }
}

export interface CollectedRoute {
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
  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This document: OpenAPI 3.1',
        tags: ['service'],
        querystring: TokenOnlyQuery,
        body200: OpenApiDocument,
      },
    },
    async () => buildDocument(routes, version, publicUrl),
  );
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
  { name: 'tokens', description: "Token management (Vulnscope's own): admin tokens and child tokens" },
];

/** A state-changing request never takes its token from the URL (`?token=` is refused). */
const SECURITY_NOT_IN_URL = SECURITY.filter((scheme) => !('TokenQuery' in scheme));

export function buildDocument(routes: CollectedRoute[], version: string, publicUrl: string) {
  const schemas = new SchemaComponents();
  schemas.use(ErrorBody);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters: unknown[] = [];
    const query = route.schema.querystring as ObjectSchema | undefined;
    for (const [name, schema] of Object.entries(query?.properties ?? {})) {
      parameters.push(parameterOf(name, 'query', query?.required?.includes(name) ?? false, schema));
    }
    const params = route.schema.params as ObjectSchema | undefined;
    for (const [name, schema] of Object.entries(params?.properties ?? {})) {
      parameters.push(parameterOf(name, 'path', true, schema));
    }
    const ok = okResponses(route, schemas);
    if ('206' in ok) parameters.push(...ARCHIVE_PARAMETERS);
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = {
      operationId: route.schema.operationId ?? operationIdOf(route.method, path),
      summary: route.schema.summary,
      tags: route.schema.tags,
      parameters,
      ...(route.schema.body ? { requestBody: requestBodyOf(route.schema.body as TSchema, schemas) } : {}),
      security: route.secured ? (route.method === 'GET' ? SECURITY : SECURITY_NOT_IN_URL) : [],
      responses: { ...ok, ...errorResponses(route, path), ...ownUnavailable(route, schemas) },
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
      schemas: schemas.schemas,
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

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

/** A parameter with its declared schema; the description is lifted beside it, where generated clients read it. */
function parameterOf(name: string, location: 'query' | 'path', required: boolean, schema: unknown) {
  const { description, ...rest } = stripTypebox(schema) as { description?: string };
  return { name, in: location, required, ...(description ? { description } : {}), schema: rest };
}

/** A JSON request body, its description lifted beside the schema. */
function requestBodyOf(body: TSchema, schemas: SchemaComponents) {
  const { description, ...schema } = schemas.use(body) as { description?: string };
  return { required: true, ...(description ? { description } : {}), content: { 'application/json': { schema } } };
}

/** TypeBox schemas carry symbol keys and `kind` markers; JSON.stringify drops symbols. */
function stripTypebox(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema));
}
