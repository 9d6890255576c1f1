/**
 * The served OpenAPI document: the official operationIds on the official paths, one top-level
 * server (VULNSCOPE_PUBLIC_URL) and none per operation, every token carrier as a security scheme,
 * declared tags, and the error answers each operation can give.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';

const OFFICIAL: Array<[string, string, string]> = [
  ['index_target-intel_get', 'get', '/v3/index/target-intel'],
  ['search_cpe_get', 'get', '/v3/search/cpe'],
  ['v4QueryAdvisories', 'get', '/v4/advisory'],
  ['v4ListAdvisoryFeeds', 'get', '/v4/advisory/list'],
  ['v4ListBackups', 'get', '/v4/backup'],
  ['v4GetBackupByName', 'get', '/v4/backup/{feed}'],
  ['backup_get', 'get', '/v3/backup'],
  ['backup_index_get', 'get', '/v3/backup/{index}'],
];

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await startTestApp(engineCases()[0]!, { VULNSCOPE_PUBLIC_URL: 'https://vulnscope.example.test/api' });
    const response = await t.get('/openapi.json', null);
    expect(response.status).toBe(200);
    doc = response.body;
  });
  afterAll(async () => {
    await t?.close();
  });

  const operations = () =>
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );

  it('is OpenAPI 3.1 with this server as its only server', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://vulnscope.example.test/api', description: expect.any(String) }]);
    for (const { path, operation } of operations()) expect(operation.servers, path).toBeUndefined();
  });

  it.each(OFFICIAL)('names %s as the official clients do (%s %s)', (operationId, method, path) => {
    expect(doc.paths[path]?.[method]?.operationId).toBe(operationId);
  });

  it('gives every operation a unique operationId and only declared tags', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const declared = new Set(doc.tags.map((tag: { name: string }) => tag.name));
    for (const { path, operation } of operations())
      for (const tag of operation.tags ?? []) expect(declared, path).toContain(tag);
  });

  it('declares the four token carriers, any of which authorises a secured operation', () => {
    expect(doc.components.securitySchemes).toEqual({
      Bearer: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
      BearerHttp: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      TokenQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'token' }),
      TokenCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'token' }),
    });
    const target = doc.paths['/v3/index/target-intel'].get;
    expect(target.security).toEqual([{ Bearer: [] }, { BearerHttp: [] }, { TokenQuery: [] }, { TokenCookie: [] }]);
    expect(doc.paths['/healthz'].get.security).toEqual([]);
  });

  it.each([
    ['/v3/index/target-intel', ['200', '400', '401', '429', '503']],
    ['/v4/advisory', ['200', '400', '401', '402', '429', '503']],
    ['/v4/backup/{feed}', ['200', '400', '401', '402', '404', '429', '503']],
    ['/healthz', ['200', '400', '503']],
  ])('lists the answers of %s, errors in the error shape with their headers', (path, statuses) => {
    const responses = doc.paths[path].get.responses;
    expect(Object.keys(responses).sort()).toEqual([...statuses].sort());
    const error = { $ref: '#/components/schemas/ErrorResponse' };
    // The readiness probe's 503 is its own body, or the error shape when the request timed out.
    const shapeOf = (status: string) =>
      path === '/healthz' && status === '503' ? { anyOf: [{ $ref: '#/components/schemas/Health' }, error] } : error;
    for (const status of statuses.filter((s) => s !== '200'))
      expect(responses[status].content['application/json'].schema).toEqual(shapeOf(status));
    if (responses['429']) expect(Object.keys(responses['429'].headers)).toContain('Retry-After');
    expect(Object.keys(responses['503'].headers)).toContain('Retry-After');
  });

  it('says exports answer NDJSON', () => {
    for (const path of ['/v3/index/target-intel/export', '/v4/advisory/export'])
      expect(Object.keys(doc.paths[path].get.responses['200'].content)).toEqual(['application/x-ndjson']);
  });
});
