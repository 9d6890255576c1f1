import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { collect } from '../../../test/support/streams.js';
import { type DocumentOptions, type LineOptions, readJsonDocument, readJsonLines } from './json-values.js';
import { readLines } from './lines.js';

/** A stream delivering `text` in chunks of `size` bytes, to exercise chunk boundaries. */
const chunked = (text: string | Buffer, size = 1 << 20) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks, { objectMode: false });
};

/** [line, value or reason] of each item. */
const lines = async (text: string, options: Partial<LineOptions> = {}, size?: number) =>
  (await collect(readJsonLines(chunked(text, size), { file: 'f.jsonl', ...options }))).map((item) =>
    'value' in item ? [item.at.line, item.value] : [item.at.line, item.reason],
  );

const documentItems = (text: string, options: DocumentOptions = {}, size?: number) =>
  collect(readJsonDocument(chunked(text, size), options));

describe('readJsonLines', () => {
  it('reads JSON lines, skipping blank ones, at any chunk size', async () => {
    const text = '\uFEFF{"a": 1}\r\n\n  \n{"b": "é€"}\n[1]';
    expect((await collect(readJsonLines(chunked(text), { file: 'f.jsonl' })))[0]).toEqual({
      at: { file: 'f.jsonl', line: 1 },
      value: { a: 1 },
    });
    for (const size of [1, 2, 3, 7, 1 << 20]) {
      expect(await lines(text, {}, size)).toEqual([
        [1, { a: 1 }],
        [4, { b: 'é€' }],
        [5, [1]],
      ]);
    }
  });

  it('reports a bad line and goes on', async () => {
    expect(await lines('{"a":1}\n\nnot json\n{"a":2}\r\n')).toEqual([
      [1, { a: 1 }],
      [3, expect.stringMatching(/^invalid JSON: /)],
      [4, { a: 2 }],
    ]);
  });

  it('without multiLineObjects, a line that leaves an object open is a bad line', async () => {
    expect(await lines('{"a": [\n1]}\n{"b": 2}\n')).toEqual([
      [1, expect.stringMatching(/^invalid JSON: /)],
      [2, expect.stringMatching(/^invalid JSON: /)],
      [3, { b: 2 }],
    ]);
  });

  it('with multiLineObjects, reads pretty-printed objects one after another, each at its first line', async () => {
    const text = '{\n  "a": "{[",\n  "b": [\n    1\n  ]\n}\n{"c": 2}\n{\n  "d": {}\n}\n';
    expect(await lines(text, { multiLineObjects: true }, 5)).toEqual([
      [1, { a: '{[', b: [1] }],
      [7, { c: 2 }],
      [8, { d: {} }],
    ]);
  });

  it('with multiLineObjects, rejects an unfinished object without swallowing the lines after it', async () => {
    const text = '{"a": 1, "b": [\n{"c": 3}\n{\n  "d": 4\n';
    expect(await lines(text, { multiLineObjects: true })).toEqual([
      [1, 'invalid JSON: the object starting on line 1 is never closed'],
      [2, { c: 3 }],
      [3, 'invalid JSON: the object starting on line 3 is never closed'],
    ]);
  });

  it('lets a corrupt gzip stream fail the reading (an input error, not a bad line)', async () => {
    const gz = gzipSync('{"a":1}\n'.repeat(1000));
    await expect(
      collect(readJsonLines(chunked(gz.subarray(0, gz.length - 40)).pipe(createGunzip()), { file: 'f.jsonl.gz' })),
    ).rejects.toThrow();
  });
});

describe('readJsonDocument', () => {
  it('reads one JSON document as one value, and several one after another', async () => {
    expect(await documentItems('{\n "a": [1, {"b": null}],\n "c": "x"\n}')).toEqual([
      { at: { document: 1 }, value: { a: [1, { b: null }], c: 'x' } },
    ]);
    expect(await documentItems('{"a":1}\n{"a":2} 3')).toEqual([
      { at: { document: 1 }, value: { a: 1 } },
      { at: { document: 2 }, value: { a: 2 } },
      { at: { document: 3 }, value: 3 },
    ]);
  });

  it('reads a top-level array element by element, across chunk boundaries', async () => {
    const text = ' [\n{"a": 1}\n,\n{"b": [2, 3]}, "x", null\n,[4]]\n';
    for (const size of [1, 4, 1 << 20]) {
      expect(await documentItems(text, {}, size)).toEqual([
        { at: { document: 1, index: 0 }, value: { a: 1 } },
        { at: { document: 1, index: 1 }, value: { b: [2, 3] } },
        { at: { document: 1, index: 2 }, value: 'x' },
        { at: { document: 1, index: 3 }, value: null },
        { at: { document: 1, index: 4 }, value: [4] },
      ]);
    }
  });

  it('with trailingComma, ignores a comma before the final ] (old masscan), at any chunk size', async () => {
    const text = '[\n{"a": 1},\n{"b": ",]"},\n]\n';
    for (const size of [1, 3, 1 << 20]) {
      expect((await documentItems(text, { trailingComma: true }, size)).map((i) => 'value' in i && i.value)).toEqual([
        { a: 1 },
        { b: ',]' },
      ]);
    }
    const [, , broken] = await documentItems(text);
    expect(broken).toEqual({ after: { document: 1, index: 1 }, invalid: expect.any(String) });
  });

  it('streams a named member array, passing the members around it as the header', async () => {
    const doc = '{"title":"t","meta":{"x":[1]},"vulnerabilities":[{"id":1},{"id":2}],"after":true}';
    const header = { title: 't', meta: { x: [1] }, after: true };
    expect(await documentItems(doc, { streamKeys: ['vulnerabilities'] })).toEqual([
      { at: { document: 1, member: 'vulnerabilities', index: 0 }, value: { id: 1 }, header },
      { at: { document: 1, member: 'vulnerabilities', index: 1 }, value: { id: 2 }, header },
    ]);
    // A member not named is part of the value (here the whole object).
    expect(await documentItems(doc)).toEqual([
      { at: { document: 1 }, value: { ...header, vulnerabilities: [{ id: 1 }, { id: 2 }] } },
    ]);
  });

  it('keeps __proto__ as an ordinary member', async () => {
    const [item] = await documentItems('{"__proto__":{"polluted":true},"a":1}');
    const value = (item as { value: Record<string, unknown> }).value;
    expect(Object.keys(value)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports invalid JSON once, after the last complete value, and reads no further', async () => {
    expect(await documentItems('[{"a": 1}, {"b": }, {"c": 3}]')).toEqual([
      { at: { document: 1, index: 0 }, value: { a: 1 } },
      { after: { document: 1, index: 0 }, invalid: expect.any(String) },
    ]);
    expect(await documentItems('{"a":')).toEqual([{ after: undefined, invalid: expect.any(String) }]);
  });

  it('lets a corrupt gzip stream fail the reading (an input error, not a JSON problem)', async () => {
    const gz = gzipSync(`[${'{"a":1},'.repeat(1000)}1]`);
    await expect(
      collect(readJsonDocument(chunked(gz.subarray(0, gz.length - 40)).pipe(createGunzip()))),
    ).rejects.toThrow();
  });

  it('destroys its input when the reading is abandoned', async () => {
    const input = chunked('[1, 2, 3]');
    for await (const item of readJsonDocument(input)) {
      expect(item).toEqual({ at: { document: 1, index: 0 }, value: 1 });
      break;
    }
    expect(input.destroyed).toBe(true);
  });
});

describe('readLines', () => {
  it('numbers lines, drops a BOM and CRs, and reports (without keeping) over-long lines', async () => {
    const lines = [];
    for await (const line of readLines(chunked(`\uFEFFone\r\n${'x'.repeat(50)}\nthree`, 8), 20)) lines.push(line);
    expect(lines).toEqual([
      { line: 1, text: 'one' },
      { line: 2, tooLong: true },
      { line: 3, text: 'three' },
    ]);
  });
});
