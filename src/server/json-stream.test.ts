import { describe, expect, it } from 'vitest';
import { jsonStream } from './json-stream.js';

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
    expect(await text(jsonStream(head, 'data', items))).toBe(JSON.stringify({ ...head, data: items }));
  });
});
