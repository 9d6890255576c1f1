import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ingestCpeDictionary,
  readCpeDictionarySources,
  type CpeDictionaryRejection,
} from '../../src/ingest/knowledge/dictionary.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { engineCases } from '../support/engines.js';
import { CPE_DICTIONARY_SAMPLES, CPE_MATCH_SAMPLES, tempDir } from './support.js';

const lines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

/** Every distinct name the samples hold (products and the names match criteria list), lower-cased. */
function sampleNames(): Set<string> {
  const names = new Set<string>();
  for (const product of lines(CPE_DICTIONARY_SAMPLES)) names.add(product.cpeName.toLowerCase());
  for (const { matchString } of lines(CPE_MATCH_SAMPLES))
    for (const m of matchString.matches) names.add(m.cpeName.toLowerCase());
  return names;
}

describe.each(engineCases())('CPE dictionary ingest ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  it('loads the product and match criteria samples: names, deprecations, and the igor_sysoev → nginx rename', async () => {
    const rejections: CpeDictionaryRejection[] = [];
    const changed: string[][] = [];
    const generation = await storage.knowledge.generation();
    const summary = await ingestCpeDictionary(
      storage,
      readCpeDictionarySources([CPE_DICTIONARY_SAMPLES, CPE_MATCH_SAMPLES]),
      {
        batchSize: 20,
        onRejected: (r) => rejections.push(r),
        onKnowledgeChanged: async (products) => {
          changed.push(products);
        },
      },
    );
    expect(rejections).toEqual([]);
    expect(summary).toMatchObject({
      read: 8,
      products: 4,
      matchStrings: 4,
      deprecated: 1,
      aliases: 1,
      rejected: 0,
      touchedProducts: ['a:igor_sysoev:nginx', 'a:nginx:nginx'],
    });
    expect(changed).toEqual([['a:igor_sysoev:nginx', 'a:nginx:nginx']]);
    expect(await storage.knowledge.generation()).toBeGreaterThan(generation);
    const expected = sampleNames();
    const counts = await storage.knowledge.counts();
    expect(counts).toMatchObject({ names: expected.size, dictionaryNames: expected.size, aliases: 1 });

    const nginx = await storage.knowledge.searchCpeNames({ product: 'nginx', order: 'asc', offset: 0, limit: 10 });
    expect(nginx).toEqual({
      total: 1,
      names: [
        {
          id: 'cpe:2.3:a:igor_sysoev:nginx:1.0.1:*:*:*:*:*:*:*',
          cpe: 'cpe:2.3:a:igor_sysoev:nginx:1.0.1:*:*:*:*:*:*:*',
          deprecated: true,
          title: 'Nginx 1.0.1',
        },
      ],
    });
    const row = await storage.db.get<{
      deprecated_by: string;
      last_modified: string;
      from_dictionary: number;
      criteria_refs: number;
    }>(`SELECT deprecated_by, last_modified, from_dictionary, criteria_refs FROM cpe_names WHERE id = ?`, [
      'cpe:2.3:a:igor_sysoev:nginx:1.0.1:*:*:*:*:*:*:*',
    ]);
    expect(JSON.parse(row!.deprecated_by)).toEqual(['cpe:2.3:a:nginx:nginx:1.0.1:*:*:*:*:*:*:*']);
    expect(row).toMatchObject({ last_modified: '2014-08-28T17:16:23.737' });
    expect(Number(row!.from_dictionary)).toBe(1);
    expect(Number(row!.criteria_refs)).toBe(0);
    // A product listed by a match criterion too keeps its product data.
    const httpd = await storage.knowledge.searchCpeNames({
      vendor: 'apache',
      product: 'http_server',
      version: '2.4.49',
      order: 'asc',
      offset: 0,
      limit: 10,
    });
    expect(httpd.names).toEqual([
      {
        id: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
        cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
        deprecated: false,
        title: 'Apache Software Foundation Apache HTTP Server 2.4.49',
      },
    ]);
    expect(await storage.knowledge.aliasesOf(['a:nginx:nginx'])).toEqual(
      new Map([['a:nginx:nginx', ['a:igor_sysoev:nginx']]]),
    );

    // Loading the same again writes the same names and finds no new rename.
    const again = await ingestCpeDictionary(
      storage,
      readCpeDictionarySources([CPE_DICTIONARY_SAMPLES, CPE_MATCH_SAMPLES]),
    );
    expect(again).toMatchObject({ aliases: 0, touchedProducts: [], rejected: 0 });
    expect((await storage.knowledge.counts()).names).toBe(expected.size);
  });

  it('follows a rename chain (igor_sysoev:nginx → nginx:nginx → f5:nginx) fed as API pages (gzip)', async () => {
    const dir = tempDir('cpe-pages');
    const page = {
      resultsPerPage: 2,
      startIndex: 0,
      totalResults: 2,
      format: 'NVD_CPE',
      version: '2.0',
      timestamp: '2025-01-01T00:00:00.000',
      products: [
        {
          cpe: {
            deprecated: true,
            cpeName: 'cpe:2.3:a:nginx:nginx:1.25.0:*:*:*:*:*:*:*',
            cpeNameId: '11111111-1111-1111-1111-111111111111',
            lastModified: '2024-01-01T00:00:00.000',
            titles: [
              { title: 'F5 Nginx 1.25.0 (fr)', lang: 'fr' },
              { title: 'F5 Nginx 1.25.0', lang: 'en' },
            ],
            deprecatedBy: [
              { cpeName: 'cpe:2.3:a:f5:nginx:1.25.0:*:*:*:*:*:*:*', cpeNameId: '22222222-2222-2222-2222-222222222222' },
            ],
          },
        },
        {
          cpe: {
            deprecated: false,
            cpeName: 'cpe:2.3:a:f5:nginx:1.25.0:*:*:*:*:*:*:*',
            cpeNameId: '22222222-2222-2222-2222-222222222222',
            titles: [{ title: 'F5 Nginx 1.25.0', lang: 'en' }],
          },
        },
      ],
    };
    fs.writeFileSync(path.join(dir, 'cpes-0.json.gz'), zlib.gzipSync(JSON.stringify(page)));
    fs.writeFileSync(
      path.join(dir, 'cpematch-0.json'),
      JSON.stringify({
        resultsPerPage: 1,
        startIndex: 0,
        totalResults: 1,
        matchStrings: [
          {
            matchString: {
              criteria: 'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*',
              matchCriteriaId: 'X',
              versionEndExcluding: '1.25.1',
              status: 'Active',
              matches: [{ cpeName: 'cpe:2.3:a:f5:nginx:1.24.0:*:*:*:*:*:*:*', cpeNameId: 'Y' }],
            },
          },
        ],
      }),
    );
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not read: not a JSON name');
    const summary = await ingestCpeDictionary(storage, readCpeDictionarySources([dir]));
    expect(summary).toMatchObject({
      read: 3,
      products: 2,
      matchStrings: 1,
      names: 3,
      deprecated: 1,
      aliases: 1,
      rejected: 0,
      touchedProducts: ['a:f5:nginx', 'a:nginx:nginx'],
    });
    const aliases = await storage.knowledge.aliasesOf(['a:igor_sysoev:nginx', 'a:f5:nginx', 'a:nginx:nginx']);
    expect(aliases.get('a:igor_sysoev:nginx')).toEqual(['a:f5:nginx', 'a:nginx:nginx']);
    expect(aliases.get('a:f5:nginx')).toEqual(['a:igor_sysoev:nginx', 'a:nginx:nginx']);
    expect(aliases.get('a:nginx:nginx')).toEqual(['a:f5:nginx', 'a:igor_sysoev:nginx']);
    const deprecated = await storage.knowledge.searchCpeNames({ vendor: 'nginx', order: 'asc', offset: 0, limit: 10 });
    expect(deprecated.names).toEqual([
      {
        id: 'cpe:2.3:a:nginx:nginx:1.25.0:*:*:*:*:*:*:*',
        cpe: 'cpe:2.3:a:nginx:nginx:1.25.0:*:*:*:*:*:*:*',
        deprecated: true,
        title: 'F5 Nginx 1.25.0',
      },
    ]);

    // The network sync hands over raw API values: products, match criteria, or whole pages.
    const raw = await ingestCpeDictionary(
      storage,
      [
        { cpe: { cpeName: 'cpe:2.3:a:f5:nginx:1.26.0:*:*:*:*:*:*:*', deprecated: false } },
        {
          matchStrings: [
            {
              matchString: {
                criteria: 'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*',
                matchCriteriaId: 'Z',
                matches: [{ cpeName: 'cpe:2.3:a:f5:nginx:1.26.1:*:*:*:*:*:*:*' }],
              },
            },
          ],
        },
        { nonsense: true },
      ],
      { onRejected: (r) => expect(r).toMatchObject({ at: 'item 3' }) },
    );
    expect(raw).toMatchObject({ read: 3, products: 1, matchStrings: 1, names: 2, rejected: 1 });
  });

  it('reports a bad line or object with file and line, and loads the rest', async () => {
    const dir = tempDir('cpe-bad');
    const file = path.join(dir, 'products.jsonl');
    const good = (version: string) =>
      JSON.stringify({
        cpe: {
          cpeName: `cpe:2.3:a:acme:widget:${version}:*:*:*:*:*:*:*`,
          deprecated: false,
          titles: [{ title: `Widget ${version}`, lang: 'en' }],
        },
      });
    fs.writeFileSync(
      file,
      [
        good('1.0'),
        '{not json',
        JSON.stringify({ cpe: { cpeName: 'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*' } }),
        JSON.stringify({ something: 'else' }),
        '',
        JSON.stringify({ cpe: { cpeName: 'cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*' } }),
        JSON.stringify({
          matchString: {
            criteria: 'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*',
            matchCriteriaId: 'M',
            matches: [{ cpeName: 'cpe:2.3:a:acme:wid*et:2.0:*:*:*:*:*:*:*' }],
          },
        }),
        good('1.1'),
      ].join('\n'),
    );
    const rejections: CpeDictionaryRejection[] = [];
    const summary = await ingestCpeDictionary(storage, readCpeDictionarySources([file]), {
      onRejected: (r) => rejections.push(r),
    });
    expect(summary).toMatchObject({ read: 7, products: 2, names: 2, rejected: 5 });
    expect(rejections.map((r) => r.at)).toEqual([`${file}:2`, `${file}:3`, `${file}:4`, `${file}:6`, `${file}:7`]);
    expect(rejections[0]!.reason).toMatch(/invalid JSON/);
    expect(rejections[1]!.reason).toMatch(/not a concrete CPE name/);
    expect(rejections[2]!.reason).toMatch(/not an NVD CPE API 2.0 product/);
    expect(rejections[3]!.reason).toMatch(/not a CPE name/);
    const widgets = await storage.knowledge.searchCpeNames({
      vendor: 'acme',
      product: 'widget',
      order: 'asc',
      offset: 0,
      limit: 10,
    });
    expect(widgets.names.map((n) => n.title)).toEqual(['Widget 1.0', 'Widget 1.1']);
  });

  it('searchCpeNames: filters, version exact and prefix, order, windows and exact totals', async () => {
    const search = (query: Partial<Parameters<Storage['knowledge']['searchCpeNames']>[0]>) =>
      storage.knowledge.searchCpeNames({ order: 'asc', offset: 0, limit: 100, ...query });
    const all = await search({ vendor: 'apache', product: 'http_server' });
    expect(all.total).toBe(56);
    const ids = all.names.map((n) => n.id);
    expect(ids).toEqual([...ids].sort());
    // Bytewise order: 2.4.10 sorts before 2.4.2.
    expect(ids.indexOf('cpe:2.3:a:apache:http_server:2.4.10:*:*:*:*:*:*:*')).toBeLessThan(
      ids.indexOf('cpe:2.3:a:apache:http_server:2.4.2:*:*:*:*:*:*:*'),
    );
    const desc = await search({ vendor: 'APACHE', product: 'http_server', order: 'desc', offset: 5, limit: 10 });
    expect(desc.total).toBe(56);
    expect(desc.names.map((n) => n.id)).toEqual([...ids].reverse().slice(5, 15));
    const past = await search({ vendor: 'apache', offset: 100, limit: 10 });
    expect(past).toEqual({ total: 56, names: [] });
    const httpdVersions = [...sampleNames()].filter((n) => n.includes(':http_server:')).map((n) => n.split(':')[5]!);
    const prefix = await search({ product: 'http_server', version: '2.4.1', versionPrefix: true });
    // In id order: `…:2.4.10:…` sorts before `…:2.4.1:…` (`0` < `:`).
    const expected = httpdVersions.filter((v) => v.startsWith('2.4.1')).sort((a, b) => (`${a}:` < `${b}:` ? -1 : 1));
    expect(expected.length).toBeGreaterThan(5);
    expect(prefix.names.map((n) => n.id.split(':')[5])).toEqual(expected);
    expect(prefix.total).toBe(expected.length);
    expect((await search({ product: 'http_server', version: '2.4.1' })).total).toBe(
      httpdVersions.filter((v) => v === '2.4.1').length,
    );
    expect((await search({ product: 'http_server', version: '2.4.49' })).total).toBe(1);
    expect((await search({ product: 'http_server', version: '2.4.', versionPrefix: true })).total).toBe(56);
    expect((await search({ part: 'o' })).names.map((n) => n.id.split(':')[4])).toEqual([
      'fortios',
      'fortios',
      'fortios',
      'fortios',
      'fortios',
    ]);
    expect((await search({ part: 'h' })).total).toBe(0);
    const openssl = await search({ vendor: 'openssl', version: '3.0.0' });
    expect(openssl.names.map((n) => n.id)).toContain('cpe:2.3:a:openssl:openssl:3.0.0:alpha1:*:*:*:*:*:*');
    expect(openssl.total).toBe(openssl.names.length);
  });
});
