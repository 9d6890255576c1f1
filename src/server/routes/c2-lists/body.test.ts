import { describe, expect, it } from 'vitest';
import type { ListedEntry } from '../../../services/classified-lists.js';
import { KeptListBodies } from './body.js';

/** A body made afresh (a new list object is never kept). */
const listBody = (entries: Iterable<ListedEntry>, format: 'text' | 'json', field: 'ip' | 'hostname') =>
  new KeptListBodies().body({ entries: () => entries }, format, field) as NodeJS.ReadableStream;

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

  describe('kept bodies', () => {
    const text = async (body: NodeJS.ReadableStream | Buffer) =>
      Buffer.isBuffer(body) ? body.toString('utf8') : (await read(body)).text;
    const listOf = (values: string[]) => {
      let made = 0;
      return {
        list: {
          entries: () => {
            made++;
            return values.map((value) => ({ value, families: [] }));
          },
        },
        made: () => made,
      };
    };

    it('a list made to its end is formatted once per format, then served as kept', async () => {
      const bodies = new KeptListBodies();
      const { list, made } = listOf(['192.0.2.1', '192.0.2.2']);
      expect(await text(bodies.body(list, 'text', 'ip'))).toBe('192.0.2.1\n192.0.2.2');
      expect(bodies.body(list, 'txt', 'ip').toString()).toBe('192.0.2.1\n192.0.2.2');
      expect(await text(bodies.body(list, 'json', 'ip'))).toBe('[{"ip":"192.0.2.1"},{"ip":"192.0.2.2"}]');
      expect(Buffer.isBuffer(bodies.body(list, 'json', 'ip'))).toBe(true);
      expect(made()).toBe(2);
    });

    it('another list object is formatted afresh', async () => {
      const bodies = new KeptListBodies();
      expect(await text(bodies.body(listOf(['a']).list, 'text', 'hostname'))).toBe('a');
      expect(await text(bodies.body(listOf(['b']).list, 'text', 'hostname'))).toBe('b');
    });

    it('a body read only in part is not kept', async () => {
      const bodies = new KeptListBodies();
      const { list, made } = listOf(Array.from({ length: 50_000 }, (_, i) => `host-${i}.example`));
      const stream = bodies.body(list, 'text', 'hostname') as NodeJS.ReadableStream & { destroy(): void };
      for await (const _chunk of stream) break;
      const again = bodies.body(list, 'text', 'hostname');
      expect(Buffer.isBuffer(again)).toBe(false);
      expect((await text(again)).split('\n')).toHaveLength(50_000);
      expect(made()).toBe(2);
    });
  });
});
