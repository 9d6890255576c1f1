import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type JsonRecord, readJsonRecords } from './json-records.js';

// The reading itself is tested in json-values.test.ts; this is the scan readers' view of it.

/** A stream delivering `text` in chunks of `size` bytes, to exercise chunk boundaries. */
const chunked = (text: string, size: number) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks, { objectMode: false });
};

async function records(text: string, chunkSize = 1 << 20): Promise<JsonRecord[]> {
  const out: JsonRecord[] = [];
  for await (const record of readJsonRecords(chunked(text, chunkSize), 'f.json')) out.push(record);
  return out;
}

const brief = (list: JsonRecord[]) => list.map((r) => ('value' in r ? [r.at.line, r.value] : [r.at.line, r.reason]));

describe('readJsonRecords', () => {
  it('reads JSON lines, skipping blank ones, at any chunk size', async () => {
    const text = '\uFEFF{"a": 1}\r\n\n  \n{"b": "é€"}\n[1]';
    for (const size of [1, 2, 3, 7, 1 << 20]) {
      expect(await records(text, size)).toEqual([
        { at: { file: 'f.json', line: 1 }, value: { a: 1 } },
        { at: { file: 'f.json', line: 4 }, value: { b: 'é€' } },
        { at: { file: 'f.json', line: 5 }, value: [1] },
      ]);
    }
  });

  it('reads pretty-printed objects one after another, each at its first line', async () => {
    const text = '{\n  "a": "{[",\n  "b": [\n    1\n  ]\n}\n{"c": 2}\n{\n  "d": {}\n}\n';
    expect(brief(await records(text, 5))).toEqual([
      [1, { a: '{[', b: [1] }],
      [7, { c: 2 }],
      [8, { d: {} }],
    ]);
  });

  it('rejects an unfinished object without swallowing the lines after it', async () => {
    const text = '{"a": 1, "b": [\n{"c": 3}\n{\n  "d": 4\n';
    expect(brief(await records(text))).toEqual([
      [1, 'invalid JSON: the object starting on line 1 is never closed'],
      [2, { c: 3 }],
      [3, 'invalid JSON: the object starting on line 3 is never closed'],
    ]);
  });

  it('reads a top-level array element by element, across chunk boundaries, at element positions', async () => {
    const text = ' [\n{"a": 1}\n,\n{"b": [2, 3]}, "x", null\n,\n]\n';
    for (const size of [1, 4, 1 << 20]) {
      expect(brief(await records(text, size))).toEqual([
        [1, { a: 1 }],
        [2, { b: [2, 3] }],
        [3, 'x'],
        [4, null],
      ]);
    }
  });

  it('reports an array that is broken in the middle once', async () => {
    expect(brief(await records('[{"a": 1}, {"b": }, {"c": 3}]'))).toEqual([
      [1, { a: 1 }],
      [2, expect.stringMatching(/^invalid JSON array after element 1: .*; the rest of the file was not read$/)],
    ]);
  });

  it('yields every element before the break, even when the input arrives in one chunk', async () => {
    expect(brief(await records('[{"a":1},{"a":2},{"a":]'))).toEqual([
      [1, { a: 1 }],
      [2, { a: 2 }],
      [3, expect.stringMatching(/^invalid JSON array after element 2: /)],
    ]);
  });
});
