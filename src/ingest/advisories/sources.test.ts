import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, zipOf } from '../../../test/support/streams.js';
import { documentValues, type JsonValueItem } from './document-values.js';
import { sourceDocuments, type SourceDocument } from './sources.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'advisory-sources-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, data: string | Buffer) => {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
  return file;
};

async function read(doc: SourceDocument): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await doc.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function values(name: string, data: string | Buffer, streamKeys: string[] = []): Promise<JsonValueItem[]> {
  const file = write(name, data);
  const docs = await collect(sourceDocuments(file, () => true));
  expect(docs).toHaveLength(1);
  return collect(documentValues(docs[0]!, streamKeys));
}

describe('sourceDocuments', () => {
  it('walks a directory recursively in name order, keeping only accepted names', async () => {
    write('tree/cves/2024/1xxx/CVE-2024-1001.json', '{"n":2}');
    write('tree/cves/2024/0xxx/CVE-2024-0001.json', '{"n":1}');
    write('tree/cves/delta.json', '{}');
    write('tree/README.md', '#');
    const docs = await collect(sourceDocuments(path.join(dir, 'tree'), (p) => /CVE-.*\.json$/.test(p)));
    expect(docs.map((d) => path.relative(dir, d.name))).toEqual([
      'tree/cves/2024/0xxx/CVE-2024-0001.json',
      'tree/cves/2024/1xxx/CVE-2024-1001.json',
    ]);
    expect(await read(docs[1]!)).toBe('{"n":2}');
  });

  it('gunzips by magic bytes, whatever the name', async () => {
    const file = write('misnamed.json', gzipSync('{"gz":true}'));
    const [doc] = await collect(sourceDocuments(file, () => false));
    expect(await read(doc!)).toBe('{"gz":true}');
  });

  it('reads zip members, a zip inside the zip (via a temp file) and gzipped members', async () => {
    const inner = await zipOf([
      ['cves/2024/0xxx/CVE-2024-0002.json', '{"inner":1}'],
      ['cves/delta.json', '{}'],
    ]);
    const file = write(
      'release.zip',
      await zipOf([
        ['cves/', ''],
        ['cves/2024/0xxx/CVE-2024-0001.json.gz', gzipSync('{"outer":1}')],
        ['cves.zip', inner],
        ['notes.txt', 'x'],
      ]),
    );
    const docs = await collect(sourceDocuments(file, (p) => /CVE-[^/]*\.json(\.gz)?$/.test(p)));
    expect(docs.map((d) => d.name)).toEqual([
      `${file}#cves/2024/0xxx/CVE-2024-0001.json.gz`,
      `${file}#cves.zip#cves/2024/0xxx/CVE-2024-0002.json`,
    ]);
    // Documents are read in turn, each before the next is requested.
    const texts: string[] = [];
    for await (const doc of sourceDocuments(file, (p) => /CVE-[^/]*\.json(\.gz)?$/.test(p)))
      texts.push(await read(doc));
    expect(texts).toEqual(['{"outer":1}', '{"inner":1}']);
    expect(
      fs
        .readdirSync(os.tmpdir())
        .some((n) => n.startsWith('vulnscope-advisory-zip-') && fs.readdirSync(path.join(os.tmpdir(), n)).length > 0),
    ).toBe(false);
  });

  it('reports a missing source as invalid input', async () => {
    await expect(collect(sourceDocuments(path.join(dir, 'nope.json'), () => true))).rejects.toThrow(
      /advisory source not found/,
    );
  });

  it('reports a broken zip', async () => {
    const file = write('broken.zip', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(64)]));
    await expect(collect(sourceDocuments(file, () => true))).rejects.toThrow(/cannot read zip/);
  });
});

describe('documentValues', () => {
  it('reads JSON Lines, reporting a bad line and going on', async () => {
    const items = await values('a.jsonl', '{"a":1}\n\nnot json\n{"a":2}\r\n');
    expect(items).toEqual([
      { at: `${dir}/a.jsonl:1`, value: { a: 1 } },
      { at: `${dir}/a.jsonl:3`, error: expect.stringMatching(/^invalid JSON/) },
      { at: `${dir}/a.jsonl:4`, value: { a: 2 } },
    ]);
  });

  it('reads one JSON document, the elements of a top-level array, and concatenated documents', async () => {
    expect(await values('one.json', '{\n "a": [1, {"b": null}],\n "c": "x"\n}')).toEqual([
      { at: `${dir}/one.json`, value: { a: [1, { b: null }], c: 'x' } },
    ]);
    expect(await values('arr.json', '[{"a":1}, 2, "s", [3]]')).toEqual([
      { at: `${dir}/arr.json#/0`, value: { a: 1 } },
      { at: `${dir}/arr.json#/1`, value: 2 },
      { at: `${dir}/arr.json#/2`, value: 's' },
      { at: `${dir}/arr.json#/3`, value: [3] },
    ]);
    expect(await values('cat.json', '{"a":1}\n{"a":2}')).toEqual([
      { at: `${dir}/cat.json`, value: { a: 1 } },
      { at: `${dir}/cat.json#2`, value: { a: 2 } },
    ]);
  });

  it('streams a named member array, passing the members read before it as the header', async () => {
    const doc = '{"title":"t","meta":{"x":[1]},"vulnerabilities":[{"id":1},{"id":2}],"after":true}';
    expect(await values('page.json', doc, ['vulnerabilities'])).toEqual([
      {
        at: `${dir}/page.json#/vulnerabilities/0`,
        value: { id: 1 },
        header: { title: 't', meta: { x: [1] }, after: true },
      },
      {
        at: `${dir}/page.json#/vulnerabilities/1`,
        value: { id: 2 },
        header: { title: 't', meta: { x: [1] }, after: true },
      },
    ]);
    // The header object is shared: members after the array arrive later (here `after`).
    const items = (await values('page2.json', '{"vulnerabilities":[{"id":1}],"dateReleased":"d"}', [
      'vulnerabilities',
    ])) as Array<{ header?: object }>;
    expect(items).toHaveLength(1);
  });

  it('keeps __proto__ as an ordinary member', async () => {
    const [item] = await values('proto.json', '{"__proto__":{"polluted":true},"a":1}');
    const value = (item as { value: Record<string, unknown> }).value;
    expect(Object.keys(value)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports invalid JSON in a document once, after the last good element', async () => {
    const items = await values('bad.json', '[{"a":1},{"a":2},{"a":]');
    expect(items.slice(0, 2).map((i) => ('value' in i ? i.value : undefined))).toEqual([{ a: 1 }, { a: 2 }]);
    expect(items[2]).toEqual({
      at: `${dir}/bad.json#/1`,
      error: expect.stringMatching(/^invalid JSON after .*bad\.json#\/1: .*the rest of the document was not read$/),
    });
    expect(items).toHaveLength(3);
  });

  it('lets a corrupt gzip stream fail the run (an input error, not a record problem)', async () => {
    const gz = gzipSync('{"a":1}\n'.repeat(1000));
    await expect(values('corrupt.jsonl.gz', gz.subarray(0, gz.length - 40))).rejects.toThrow();
  });
});
