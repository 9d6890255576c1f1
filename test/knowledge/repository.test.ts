import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CveApplicability } from '../../src/core/applicability/types.js';
import { versionSortKey } from '../../src/core/version/sort-key.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { CpeCveIndex } from '../../src/search/cpe-cves/cpe-cve-index.js';
import { nameLookupOf, rowMayMatch } from '../../src/core/applicability/index-keys.js';
import { parseCpe } from '../../src/core/cpe.js';
import type { IndexedCriterionRow, KnowledgeWrite } from '../../src/storage/knowledge/index.js';
import { engineCases } from '../support/engines.js';

const key = (version: string) => versionSortKey(version)!;

const app = (cveId: string): CveApplicability => ({ cveId, origin: 'nist-nvd2', statements: [] });

const criterion = (cpe: string, extra: Partial<IndexedCriterionRow> = {}): IndexedCriterionRow => {
  const [, , part, vendor, product] = cpe.split(':');
  return { part: part!, vendor: vendor!, product: product!, vulnerable: true, source: 'nvd', criterion: cpe, ...extra };
};

const write = (cveId: string, criteria: IndexedCriterionRow[]): KnowledgeWrite => ({
  applicability: app(cveId),
  criteria,
  contentHash: `test:${cveId}`,
});

const HTTPD = 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*';

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.each(engineCases())('knowledge repository ($name)', (engine) => {
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

  it('stores whether a key-decided hit confirms each CVE by itself, and works it out for rows from before', async () => {
    const node = (operator: 'OR' | 'AND', negate = false) => ({
      operator,
      negate,
      cpeMatch: [{ vulnerable: true, criteria: HTTPD }],
    });
    const shapes: Array<[string, CveApplicability, boolean]> = [
      [
        'CVE-2031-0001',
        {
          cveId: 'CVE-2031-0001',
          origin: 'nist-nvd2',
          statements: [{ source: 'nvd', configurations: [{ negate: false, nodes: [node('OR')] }], affected: [] }],
        },
        true,
      ],
      [
        'CVE-2031-0002',
        {
          cveId: 'CVE-2031-0002',
          origin: 'nist-nvd2',
          statements: [
            {
              source: 'nvd',
              configurations: [{ operator: 'AND', negate: false, nodes: [node('OR'), node('OR')] }],
              affected: [],
            },
          ],
        },
        false,
      ],
      [
        'CVE-2031-0003',
        {
          cveId: 'CVE-2031-0003',
          origin: 'nist-nvd2',
          statements: [{ source: 'nvd', configurations: [{ negate: false, nodes: [node('OR', true)] }], affected: [] }],
        },
        false,
      ],
      [
        'CVE-2031-0004',
        {
          cveId: 'CVE-2031-0004',
          origin: 'mitre-cvelist-v5',
          statements: [{ source: 'cna', configurations: [], affected: [{ cpes: [HTTPD], defaultStatus: 'affected' }] }],
        },
        false,
      ],
    ];
    await storage.knowledge.replace(
      shapes.map(([cveId, applicability]) => ({
        applicability,
        criteria: [criterion(HTTPD)],
        contentHash: `test:${cveId}`,
      })),
    );
    const ids = shapes.map(([cveId]) => cveId);
    const expected = new Map(shapes.map(([cveId, , decided]) => [cveId, decided]));
    const stored = async () => {
      const flags = new Map<string, boolean | undefined>();
      for await (const page of storage.knowledge.productCriteria({
        part: 'a',
        vendor: 'apache',
        product: 'http_server',
      }))
        for (const row of page) if (ids.includes(row.cveId)) flags.set(row.cveId, row.decided);
      return flags;
    };
    expect(await stored()).toEqual(expected);
    // Rows derived before the flag was stored carry none (matching then works it out from the applicability).
    await storage.db.run(`UPDATE knowledge_criteria SET decided = NULL WHERE cve_id IN (?, ?, ?, ?)`, ids);
    expect([...(await stored()).values()]).toEqual([undefined, undefined, undefined, undefined]);
    await storage.knowledge.remove(ids);
  });

  it('finds the criteria that apply to apache:http_server 2.4.49 and all of a product for a name without version', async () => {
    const before = await storage.knowledge.generation();
    const change = await storage.knowledge.replace([
      write('CVE-2021-41773', [
        criterion('cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', { exactKey: key('2.4.49') }),
      ]),
      write('CVE-2021-42013', [
        criterion('cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', { exactKey: key('2.4.49') }),
        criterion('cpe:2.3:a:apache:http_server:2.4.50:*:*:*:*:*:*:*', { exactKey: key('2.4.50') }),
      ]),
      write('CVE-2022-RANGE', [
        criterion(HTTPD, { startKey: key('2.4.0'), startInclusive: true, endKey: key('2.4.55'), endInclusive: true }),
      ]),
      write('CVE-2022-BELOW', [criterion(HTTPD, { endKey: key('2.4.49'), endInclusive: false })]),
      write('CVE-2022-UPTO', [criterion(HTTPD, { endKey: key('2.4.49'), endInclusive: true })]),
      write('CVE-2022-FROM', [criterion(HTTPD, { startKey: key('2.4.49'), startInclusive: false })]),
      write('CVE-2022-FROMINCL', [criterion(HTTPD, { startKey: key('2.4.49'), startInclusive: true })]),
      write('CVE-2022-ALL', [criterion(HTTPD, { unbounded: true })]),
      write('CVE-2022-CHECK', [criterion('cpe:2.3:a:apache:http_server:2.4.*:*:*:*:*:*:*:*', { alwaysCheck: true })]),
      write('CVE-2022-OTHER', [criterion('cpe:2.3:a:apache:tomcat:*:*:*:*:*:*:*:*', { unbounded: true })]),
      write('CVE-2022-ANYVENDOR', [
        {
          part: 'a',
          vendor: '*',
          product: 'http_server',
          vulnerable: false,
          source: 'cna',
          criterion: 'cpe:2.3:a:*:http_server:*:*:*:*:*:*:*:*',
          unbounded: true,
        },
      ]),
      write('CVE-2022-OS', [
        criterion('cpe:2.3:o:apache:http_server:2.4.49:*:*:*:*:*:*:*', { exactKey: key('2.4.49') }),
      ]),
      write('CVE-2022-NA', [criterion('cpe:2.3:a:apache:http_server:-:*:*:*:*:*:*:*')]),
    ]);
    expect(change.cvesChanged).toBe(13);
    expect(change.touchedProducts).toEqual([
      'a:*:http_server',
      'a:apache:http_server',
      'a:apache:tomcat',
      'o:apache:http_server',
    ]);
    expect(await storage.knowledge.generation()).toBeGreaterThan(before);

    const name = { part: 'a', vendor: 'apache', product: 'http_server' };
    expect(await storage.knowledge.candidateCves([{ ...name, versionKey: key('2.4.49') }])).toEqual(
      [
        'CVE-2021-41773',
        'CVE-2021-42013',
        'CVE-2022-RANGE',
        'CVE-2022-UPTO',
        'CVE-2022-FROMINCL',
        'CVE-2022-ALL',
        'CVE-2022-CHECK',
        'CVE-2022-ANYVENDOR',
      ].sort(),
    );
    expect(await storage.knowledge.candidateCves([{ ...name, versionKey: key('2.4.56') }])).toEqual(
      ['CVE-2022-FROM', 'CVE-2022-FROMINCL', 'CVE-2022-ALL', 'CVE-2022-CHECK', 'CVE-2022-ANYVENDOR'].sort(),
    );
    // Without a concrete version: every criterion of the product (and of ANY-vendor criteria).
    expect(await storage.knowledge.candidateCves([name])).toEqual(
      [
        'CVE-2021-41773',
        'CVE-2021-42013',
        'CVE-2022-RANGE',
        'CVE-2022-BELOW',
        'CVE-2022-UPTO',
        'CVE-2022-FROM',
        'CVE-2022-FROMINCL',
        'CVE-2022-ALL',
        'CVE-2022-CHECK',
        'CVE-2022-ANYVENDOR',
        'CVE-2022-NA',
      ].sort(),
    );
    // A product is named by some criterion exactly when a version-less lookup has candidates.
    const catalog = new CpeCveIndex(storage.knowledge);
    for (const [part, vendor, product] of [
      ['a', 'apache', 'http_server'],
      ['a', 'someone_else', 'http_server'],
      ['o', 'apache', 'http_server'],
      ['a', 'apache', 'tomcat'],
      ['a', 'apache', 'no_such_product'],
      ['h', 'apache', 'http_server'],
    ] as const) {
      const candidates = await storage.knowledge.candidateCves([{ part, vendor, product }]);
      expect(await catalog.hasCriteria({ part, vendor, product }), `${part}:${vendor}:${product}`).toBe(
        candidates.length > 0,
      );
    }
    expect(await catalog.hasCriteria({ part: 'a', vendor: 'someone_else', product: 'http_server' })).toBe(true);
    expect(await catalog.hasCriteria({ part: 'a', vendor: 'apache', product: 'no_such_product' })).toBe(false);
    const [found] = (await storage.knowledge.criteriaForNames(['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*']))
      .names;
    expect([...new Set(found!.criteria.map((c) => c.cveId))]).toEqual(
      await storage.knowledge.candidateCves([{ ...name, versionKey: key('2.4.49') }]),
    );
    const range = found!.criteria.find((c) => c.cveId === 'CVE-2022-RANGE')!;
    expect(range).toMatchObject({
      startKey: key('2.4.0'),
      startInclusive: true,
      endKey: key('2.4.55'),
      endInclusive: true,
      vulnerable: true,
      source: 'nvd',
    });
    const apps = await storage.knowledge.applicability(['CVE-2022-ALL', 'CVE-0000-NONE']);
    expect(apps).toEqual([app('CVE-2022-ALL')]);
  });

  it('keeps cpe_names of concrete criteria counted, and drops a name no criterion or dictionary holds', async () => {
    const id = 'cpe:2.3:a:apache:http_server:2.4.50:*:*:*:*:*:*:*';
    const search = () =>
      storage.knowledge.searchCpeNames({
        vendor: 'apache',
        product: 'http_server',
        version: '2.4.50',
        order: 'asc',
        offset: 0,
        limit: 10,
      });
    expect((await search()).names.map((n) => n.id)).toEqual([id]);
    const names = await storage.db.get<{ criteria_refs: number }>(`SELECT criteria_refs FROM cpe_names WHERE id = ?`, [
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
    ]);
    expect(Number(names!.criteria_refs)).toBe(2);
    // Patterns and ranges are not names.
    const all = await storage.knowledge.searchCpeNames({ vendor: 'apache', order: 'asc', offset: 0, limit: 100 });
    expect(all.names.map((n) => n.id)).toEqual([
      'cpe:2.3:a:apache:http_server:-:*:*:*:*:*:*:*',
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      id,
      'cpe:2.3:o:apache:http_server:2.4.49:*:*:*:*:*:*:*',
    ]);
    const change = await storage.knowledge.replace([write('CVE-2021-42013', [criterion(HTTPD, { unbounded: true })])]);
    expect(change).toMatchObject({ cvesChanged: 1, criteria: 1, touchedProducts: ['a:apache:http_server'] });
    expect((await search()).total).toBe(0);
    const after = await storage.db.get<{ criteria_refs: number }>(`SELECT criteria_refs FROM cpe_names WHERE id = ?`, [
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
    ]);
    expect(Number(after!.criteria_refs)).toBe(1);
    // A dictionary name stays when its last criterion goes.
    await storage.knowledge.upsertCpeNames([
      { cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', kind: 'product', title: 'Apache HTTP Server 2.4.49' },
    ]);
    const removed = await storage.knowledge.remove(['CVE-2021-41773', 'CVE-2022-NA']);
    expect(removed).toMatchObject({ cvesChanged: 2, criteria: 0, touchedProducts: ['a:apache:http_server'] });
    const left = await storage.knowledge.searchCpeNames({
      part: 'a',
      vendor: 'Apache',
      product: 'HTTP_Server',
      order: 'asc',
      offset: 0,
      limit: 100,
    });
    expect(left.names).toEqual([
      {
        id: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
        cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
        deprecated: false,
        title: 'Apache HTTP Server 2.4.49',
      },
    ]);
    expect(await storage.knowledge.applicability(['CVE-2021-41773'])).toEqual([]);
  });

  it('never misses a criterion the index contract says applies (random rows and names)', async () => {
    const next = random(7);
    const versions = [
      '0',
      '1',
      '1.0',
      '1.0.1',
      '1.2',
      '1.2.3',
      '1.10',
      '2.0-beta1',
      '2.0-rc1',
      '2.0',
      '2.0.1',
      '2.4.49',
      '2.4.50',
      '3.0.0-alpha1',
      '3',
      '10.1p1',
      '0.9.8za',
      '7.4p1',
    ];
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    const products = [
      ['a', 'acme', 'widget'],
      ['a', 'acme', 'gadget'],
      ['o', 'acme', 'widget'],
      ['a', '*', 'widget'],
      ['*', '*', '*'],
      ['a', 'acme', '*'],
    ] as const;
    const rows: Array<IndexedCriterionRow & { cveId: string }> = [];
    const writes: KnowledgeWrite[] = [];
    for (let i = 0; i < 300; i++) {
      const [part, vendor, product] = pick(products);
      const row: IndexedCriterionRow = {
        part,
        vendor,
        product,
        vulnerable: next() < 0.8,
        source: 'nvd',
        criterion: `cpe:2.3:${part}:${vendor}:${product}:*:*:*:*:*:*:*:*`,
      };
      const shape = Math.floor(next() * 7);
      if (shape === 0) row.exactKey = key(pick(versions));
      else if (shape === 1) row.unbounded = true;
      else if (shape === 2) row.alwaysCheck = true;
      else if (shape === 6) {
        // no keys at all (e.g. NA version): only for names without a version
      } else {
        if (shape !== 4) Object.assign(row, { startKey: key(pick(versions)), startInclusive: next() < 0.5 });
        if (shape !== 5) Object.assign(row, { endKey: key(pick(versions)), endInclusive: next() < 0.5 });
      }
      const cveId = `CVE-2099-${String(i).padStart(5, '0')}`;
      rows.push({ ...row, cveId });
      writes.push(write(cveId, [row]));
    }
    await storage.knowledge.replace(writes);
    const updates = ['*', '-', 'p1', 'beta1', 'sp2'];
    const page: Array<{ cpe: string; expected: string[] }> = [];
    for (const [part, vendor, product] of [
      ['a', 'acme', 'widget'],
      ['o', 'acme', 'widget'],
      ['a', 'acme', 'gadget'],
      ['h', 'other', 'thing'],
    ]) {
      for (const version of [...versions, '*', '-', '1.*']) {
        const cpe = `cpe:2.3:${part}:${vendor}:${product}:${version}:${pick(updates)}:*:*:*:*:*:*`;
        const lookup = nameLookupOf(parseCpe(cpe));
        const expected = [...new Set(rows.filter((r) => rowMayMatch(r, lookup)).map((r) => r.cveId))].sort();
        const got = (await storage.knowledge.candidateCves([lookup])).filter((id) => id.startsWith('CVE-2099-'));
        expect(got, cpe).toEqual(expected);
        const [viaNames] = (await storage.knowledge.criteriaForNames([cpe])).names;
        expect(
          [...new Set(viaNames!.criteria.map((c) => c.cveId).filter((id) => id.startsWith('CVE-2099-')))].sort(),
          cpe,
        ).toEqual(expected);
        page.push({ cpe, expected });
      }
    }
    // A whole page at once (one query per product).
    const batch = await storage.knowledge.criteriaForNames(page.map((p) => p.cpe));
    batch.names.forEach((found, i) => {
      expect(found.cpe).toBe(page[i]!.cpe);
      expect(
        [...new Set(found.criteria.map((c) => c.cveId).filter((id) => id.startsWith('CVE-2099-')))].sort(),
        found.cpe,
      ).toEqual(page[i]!.expected);
    });
    expect([...batch.applicability.keys()].length).toBeGreaterThan(0);
    await storage.knowledge.remove(rows.map((r) => r.cveId));
  });

  it('follows renames in both directions, transitively, and survives cycles', async () => {
    const p = (vendor: string, product: string) => ({ part: 'a', vendor, product });
    expect(
      await storage.knowledge.upsertAliases([
        { from: p('igor_sysoev', 'nginx'), to: p('nginx', 'nginx'), source: 'test' },
        { from: p('nginx', 'nginx'), to: p('f5', 'nginx'), source: 'test' },
        { from: p('f5', 'nginx'), to: p('igor_sysoev', 'nginx'), source: 'test' },
        { from: p('x', 'y'), to: p('x', 'z'), source: 'test' },
      ]),
    ).toEqual({ added: 4, touchedProducts: ['a:f5:nginx', 'a:igor_sysoev:nginx', 'a:nginx:nginx', 'a:x:y', 'a:x:z'] });
    expect(await storage.knowledge.upsertAliases([{ from: p('x', 'y'), to: p('x', 'z'), source: 'again' }])).toEqual({
      added: 0,
      touchedProducts: [],
    });
    const aliases = await storage.knowledge.aliasesOf(['a:nginx:nginx', 'a:f5:nginx', 'a:x:z', 'a:none:none']);
    expect(aliases.get('a:nginx:nginx')).toEqual(['a:f5:nginx', 'a:igor_sysoev:nginx']);
    expect(aliases.get('a:f5:nginx')).toEqual(['a:igor_sysoev:nginx', 'a:nginx:nginx']);
    expect(aliases.get('a:x:z')).toEqual(['a:x:y']);
    expect(aliases.get('a:none:none')).toEqual([]);
  });
});
