import { describe, expect, it } from 'vitest';
import type { ListedEntry } from '../../../services/classified-lists.js';
import { listBody } from './body.js';

async function read(stream: NodeJS.ReadableStream): Promise<{ text: string; chunks: number }> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return { text: Buffer.concat(parts).toString('utf8'), chunks: parts.length };
}

function* entries(count: number): Generator<ListedEntry> {
  for (let i = 0; i < count; i++) yield { value: `host-${i}.example`, families: i % 3 === 0 ? ['sliver'] : [] };
}

describe('a list body', () => {
  it.each<[string, ListedEntry[], 'text' | 'json', string]>([
    ['empty text', [], 'text', ''],
    ['empty JSON', [], 'json', '[]'],
    ['one line, no newline after it', [{ value: '192.0.2.1', families: ['x'] }], 'text', '192.0.2.1'],
    [
      'lines',
      [
        { value: '192.0.2.1', families: [] },
        { value: '192.0.2.0/24', families: ['a', 'b'] },
      ],
      'text',
      '192.0.2.1\n192.0.2.0/24',
    ],
    [
      'JSON, families only where known',
      [
        { value: '192.0.2.1', families: [] },
        { value: '192.0.2.0/24', families: ['a', 'b'] },
      ],
      'json',
      '[{"ip":"192.0.2.1"},{"ip":"192.0.2.0/24","families":["a","b"]}]',
    ],
  ])('%s', async (_name, list, format, expected) => {
    expect((await read(listBody(list, format, 'ip'))).text).toBe(expected);
  });

  it('a long list comes in chunks and reads back whole, in order', async () => {
    const text = await read(listBody(entries(100_000), 'text', 'hostname'));
    expect(text.chunks).toBeGreaterThan(10);
    const lines = text.text.split('\n');
    expect(lines).toHaveLength(100_000);
    expect(lines[99_999]).toBe('host-99999.example');
    const json = await read(listBody(entries(100_000), 'json', 'hostname'));
    const parsed = JSON.parse(json.text) as Array<{ hostname: string; families?: string[] }>;
    expect(parsed).toHaveLength(100_000);
    expect(parsed[3]).toEqual({ hostname: 'host-3.example', families: ['sliver'] });
    expect(parsed[4]).toEqual({ hostname: 'host-4.example' });
  });
});
