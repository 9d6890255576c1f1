import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { jsonBuffer, jsonStream } from './json-stream.js';
import { registerResponseHeaders } from './plugins/response-headers.js';

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += chunk.toString();
  return out;
}

describe('jsonStream', () => {
  const big = Array.from({ length: 3000 }, (_, i) => ({
    cpe: `cpe:2.3:a:x:y:${i}:*:*:*:*:*:*:*`,
    cves: Array.from({ length: 20 }, (_, j) => `CVE-2024-${i}${j}`),
  }));
  it.each([
    [{}, []],
    [{ a: 1 }, []],
    [{ _benchmark: 0.001, _meta: { total: 2, order: 'asc' } }, [{ a: 'é"\\' }, null, 3]],
    [{ _benchmark: 1e-7, _meta: {} }, big],
  ])('gives the bytes of JSON.stringify (head %#)', async (head, items) => {
    expect(await text(jsonStream(head, 'data', items as unknown[]))).toBe(JSON.stringify({ ...head, data: items }));
    expect(jsonBuffer(head, 'data', items as unknown[]).toString()).toBe(JSON.stringify({ ...head, data: items }));
  });
});

describe('jsonStream with items encoded in pieces', () => {
  it.each([0, 1, 2, 5000])('passes byte pieces through in place (%i items)', async (count) => {
    const items = Array.from({ length: count }, (_, i) => ({ cpe: `n${i}`, cves: [`CVE-2024-${i}`, 'é'] }));
    const encode = (item: (typeof items)[number]) => [
      `{"cpe":${JSON.stringify(item.cpe)},"cves":`,
      Buffer.from(JSON.stringify(item.cves)),
      '}',
    ];
    const expected = JSON.stringify({ _meta: { n: count }, data: items });
    expect(await text(jsonStream({ _meta: { n: count } }, 'data', items, encode))).toBe(expected);
    expect(jsonBuffer({ _meta: { n: count } }, 'data', items, encode).toString()).toBe(expected);
  });
});

describe('jsonStream through Fastify', () => {
  it('arrives whole, as JSON, with the JSON response headers', async () => {
    const app = Fastify();
    registerResponseHeaders(app);
    const items = Array.from({ length: 5000 }, (_, i) => ({ cpe: `n${i}`, cves: [`CVE-2024-${i}`] }));
    app.get('/big', async (_request, reply) =>
      reply.type('application/json; charset=utf-8').send(jsonStream({ _meta: { n: 1 } }, 'data', items)),
    );
    const response = await app.inject({ method: 'GET', url: '/big' });
    expect(response.body).toBe(JSON.stringify({ _meta: { n: 1 }, data: items }));
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    await app.close();
  });
});
