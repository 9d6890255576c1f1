import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip, gunzipSync, gzipSync } from 'node:zlib';
import { feedProvenance } from '../../core/advisory/provenance.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems } from '../../../test/support/contract.js';
import { collect, zipOf } from '../../../test/support/streams.js';
import { convertVersionData } from './cve4.js';
import { mitreCvelistV5 } from './cve5.js';
import type { AdvisoryItem, AdvisoryRecord, JsonObject } from './types.js';
import { fixture, sharedDataFile } from '../../../test/support/fixtures.js';

const VULNRICHMENT = fixture('cve5-vulnrichment.sample.ndjson.gz');
const APACHE = fixture('vendor/apache_httpd_cna_cve_json.jsonl.gz');
const BASIC = fixture('cve5-examples/full-record-basic-example.json');
const ADVANCED = fixture('cve5-examples/full-record-advanced-example.json');

type Rec = AdvisoryRecord & JsonObject;
const records = (items: AdvisoryItem[]) => items.filter((i) => i.kind === 'record').map((i) => i.record as Rec);
const rejected = (items: AdvisoryItem[]) => items.filter((i) => i.kind === 'rejected');
const cna = (r: AdvisoryRecord) => r.containers.cna as JsonObject;

/** Key-order-independent JSON, with cveMetadata timestamps compared without a trailing Z. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as JsonObject)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
const digest = (record: JsonObject) => {
  const meta = record.cveMetadata as JsonObject;
  for (const k of ['dateReserved', 'datePublished', 'dateUpdated', 'dateRejected']) {
    if (typeof meta[k] === 'string') meta[k] = (meta[k] as string).replace(/Z$/, '');
  }
  return createHash('sha1').update(canonical(record)).digest('hex');
};

/** Undoes the documented, lossless changes, to compare a served record with its source. */
function undo(record: Rec): JsonObject {
  const out = structuredClone(record) as JsonObject;
  out.dataVersion = out.x_dataVersion ?? '5.0';
  delete out.x_dataVersion;
  const containers = out.containers as JsonObject;
  for (const c of [containers.cna, ...((containers.adp as unknown[]) ?? [])] as JsonObject[]) {
    if ('x_source' in c) {
      c.source = c.x_source;
      delete c.x_source;
    }
    for (const m of (c.metrics as JsonObject[]) ?? []) {
      if (m.cvssV2_0) delete (m.cvssV2_0 as JsonObject).attackComplexity;
      if (m.cvssV4_0) for (const k of ['automatable', 'recovery', 'safety']) delete (m.cvssV4_0 as JsonObject)[k];
    }
  }
  return out;
}

/** The repository's sample of the vulnrichment dump, and the whole dump where it is beside the repository. */
const VULNRICHMENT_RUNS = [
  {
    name: 'the vulnrichment sample (2,013 CVE 5.x records)',
    file: VULNRICHMENT,
    expected: { records: 2013, xSource: 11, xDataVersion51: 2012, rejectedState: 1, legacy: 1836, adp: 4008 },
  },
  {
    name: 'the whole vulnrichment dump (32,967 CVE 5.x records; optional)',
    file: sharedDataFile('cve5-vulnrichment.dev.ndjson.gz'),
    expected: { records: 32967, xSource: 11976, xDataVersion51: 32943, rejectedState: 78, legacy: 3532, adp: 56729 },
  },
];

for (const { name, file, expected } of VULNRICHMENT_RUNS)
  describe.skipIf(file === undefined)(`mitre-cvelist-v5 on ${name}, read once`, () => {
    const source = file as string;
    const stats = {
      records: 0,
      rejected: 0,
      invalid: [] as string[],
      rejectedState: 0,
      xDataVersion51: 0,
      xSource: 0,
      sourceLeft: 0,
      legacy: 0,
      adp: 0,
      lossy: [] as string[],
    };
    const picked = new Map<string, Rec>();
    const PICK = [
      'CVE-1999-0006',
      'CVE-2006-20001',
      'CVE-2019-25161',
      'CVE-2020-8907',
      'CVE-2023-41027',
      'CVE-2022-38106',
    ];

    beforeAll(async () => {
      const originals = new Map<string, string>();
      const lines = createInterface({ input: fs.createReadStream(source).pipe(createGunzip()) });
      for await (const line of lines) {
        const raw = JSON.parse(line) as JsonObject;
        originals.set((raw.cveMetadata as JsonObject).cveId as string, digest(raw));
      }
      for await (const item of mitreCvelistV5(source, 'mitre-cvelist-v5')) {
        if (item.kind === 'rejected') {
          stats.rejected++;
          continue;
        }
        const r = item.record as Rec;
        stats.records++;
        const problems = contractProblems(r);
        if (problems.length > 0 && stats.invalid.length < 10)
          stats.invalid.push(`${r.cveMetadata.cveId}: ${problems.join('; ')}`);
        if (r.cveMetadata.state === 'REJECTED') stats.rejectedState++;
        if (r.x_dataVersion === '5.1') stats.xDataVersion51++;
        for (const c of [cna(r), ...(r.containers.adp ?? [])]) {
          if ('x_source' in c) stats.xSource++;
          if ('source' in c) stats.sourceLeft++;
        }
        if ('x_legacyV4Record' in cna(r)) stats.legacy++;
        stats.adp += r.containers.adp?.length ?? 0;
        if (digest(undo(r)) !== originals.get(r.cveMetadata.cveId) && stats.lossy.length < 10)
          stats.lossy.push(r.cveMetadata.cveId);
        if (PICK.includes(r.cveMetadata.cveId)) picked.set(r.cveMetadata.cveId, r);
      }
    });

    it('yields every record, none rejected, every one valid against advisory.MitreCVEListV5Ref (no null)', () => {
      expect(stats.records).toBe(expected.records);
      expect(stats.rejected).toBe(0);
      expect(stats.invalid).toEqual([]);
    });

    it('changes nothing but the documented deviations (source → x_source, dataVersion, CVSS aliases, Z)', () => {
      expect(stats.lossy).toEqual([]);
      expect(stats.xSource).toBe(expected.xSource);
      expect(stats.sourceLeft).toBe(0);
      expect(stats.xDataVersion51).toBe(expected.xDataVersion51);
      expect(stats.rejectedState).toBe(expected.rejectedState);
      expect(stats.legacy).toBe(expected.legacy);
      expect(stats.adp).toBe(expected.adp);
    });

    it('CVE-1999-0006: metadata timestamps get Z, the CISA ADP container is kept', () => {
      const r = picked.get('CVE-1999-0006')!;
      expect(r.dataVersion).toBe('5.0');
      expect(r.x_dataVersion).toBe('5.1');
      expect(r.cveMetadata).toMatchObject({
        state: 'PUBLISHED',
        dateReserved: '1999-06-07T00:00:00Z',
        datePublished: '1999-09-29T04:00:00Z',
        assignerShortName: 'mitre',
      });
      const adp = r.containers.adp!.find((a) => (a.providerMetadata as JsonObject).shortName === 'CISA-ADP')!;
      expect((adp.metrics as JsonObject[])[0]!.cvssV3_1).toMatchObject({ baseScore: 9.8, baseSeverity: 'CRITICAL' });
      expect((adp.metrics as JsonObject[])[1]!.other).toMatchObject({ type: 'ssvc', content: { id: 'CVE-1999-0006' } });
      expect((adp.affected as JsonObject[])[0]!.cpes).toEqual(['cpe:2.3:a:qualcomm:qpopper:2.4:*:*:*:*:*:*:*']);
    });

    it('moves the CVE 5 source object to x_source', () => {
      const c = cna(picked.get('CVE-2006-20001')!);
      expect(c.source).toBeUndefined();
      expect(c.x_source).toEqual({ discovery: 'UNKNOWN' });
    });

    it('keeps REJECTED records with their reasons', () => {
      const r = picked.get('CVE-2019-25161')!;
      expect(r.cveMetadata).toMatchObject({ state: 'REJECTED', dateRejected: '2024-02-27T09:57:13.593Z' });
      expect(r.x_dataVersion).toBeUndefined(); // a 5.0 record
      expect(cna(r).rejectedReasons).toEqual([
        { lang: 'en', value: 'This CVE ID has been rejected or withdrawn by its CVE Numbering Authority.' },
      ]);
    });

    it('adds the contract CVSS names (v4 automatable, v2 attackComplexity) and keeps integers', () => {
      const v4 = (cna(picked.get('CVE-2020-8907')!).metrics as JsonObject[]).find((m) => m.cvssV4_0)!
        .cvssV4_0 as JsonObject;
      expect(v4).toMatchObject({ Automatable: 'NOT_DEFINED', automatable: 'NOT_DEFINED' });
      const v2 = (cna(picked.get('CVE-2023-41027')!).metrics as JsonObject[]).find((m) => m.cvssV2_0)!
        .cvssV2_0 as JsonObject;
      expect(v2).toMatchObject({ accessComplexity: 'LOW', attackComplexity: 'LOW' });
      expect(picked.get('CVE-2022-38106')!.cveMetadata.serial).toBe(1);
    });
  });

describe('mitre-cvelist-v5 on single JSON files (the official CVE 5.1 examples)', () => {
  it('basic example: one record, unchanged but for dataVersion', async () => {
    const items = await collect(mitreCvelistV5(BASIC, 'mitre-cvelist-v5'));
    expect(items).toHaveLength(1);
    const [item] = items;
    expect(item).toMatchObject({ kind: 'record', sourceId: 'CVE-1900-1234' });
    const r = records(items)[0]!;
    expect(contractProblems(r)).toEqual([]);
    const original = JSON.parse(fs.readFileSync(BASIC, 'utf8'));
    expect(undo(r)).toEqual(original);
  });

  it('advanced example: source → x_source; supportingMedia, taxonomyMappings, credits kept', async () => {
    const r = records(await collect(mitreCvelistV5(ADVANCED, 'mitre-cvelist-v5')))[0]!;
    expect(contractProblems(r)).toEqual([]);
    const c = cna(r);
    expect(c.x_source).toEqual({ defects: ['EXAMPLE-1234'], advisory: 'ESA-22-11', discovery: 'EXTERNAL' });
    expect(c.source).toBeUndefined();
    expect((c.taxonomyMappings as JsonObject[])[0]!.taxonomyName).toBe('ATT&CK');
    expect(((c.descriptions as JsonObject[])[0]!.supportingMedia as JsonObject[])[0]!.type).toBe('text/html');
    expect((c.metrics as JsonObject[])[0]!.cvssV4_0).toMatchObject({ baseScore: 7.8, version: '4.0' });
    expect(r.cveMetadata).toMatchObject({ serial: 1, requesterUserId: 'b3476cb9-2e3d-41a6-98d0-0f47421a65b6' });
    expect(undo(r)).toEqual(JSON.parse(fs.readFileSync(ADVANCED, 'utf8')));
  });
});

describe('mitre-cvelist-v5 on the Apache httpd CNA records (CVE JSON 4.0 and 5.x)', () => {
  let items: AdvisoryItem[];
  let byId: Map<string, Rec>;
  beforeAll(async () => {
    items = await collect(mitreCvelistV5(APACHE, 'mitre-cvelist-v5'));
    byId = new Map(records(items).map((r) => [r.cveMetadata.cveId, r]));
  });

  it('converts all 241 (206 from 4.0), each valid', () => {
    expect(records(items)).toHaveLength(241);
    expect(rejected(items)).toEqual([]);
    for (const r of records(items)) expect(contractProblems(r), r.cveMetadata.cveId).toEqual([]);
    const versions = records(items).map((r) => r.x_dataVersion ?? '5.0');
    expect(versions.filter((v) => v === '4.0')).toHaveLength(206);
    expect(versions.filter((v) => v === '5.0')).toHaveLength(21);
    expect(versions.filter((v) => v === '5.1')).toHaveLength(14);
  });

  it('keeps the whole 4.0 original under cna.x_legacyV4Record', () => {
    const line = gunzipSync(fs.readFileSync(APACHE))
      .toString('utf8')
      .split('\n')
      .find((l) => l.includes('"CVE-1999-1199"'))!;
    expect(cna(byId.get('CVE-1999-1199')!).x_legacyV4Record).toEqual(JSON.parse(line));
  });

  it('CVE-1999-1199: = versions, eng → en, severity text, timeline dates, x_source', () => {
    const r = byId.get('CVE-1999-1199')!;
    // CVE JSON 4.0 names its assigner by e-mail only: assigner and provider are the feed.
    const feed = feedProvenance('mitre-cvelist-v5');
    expect(r.cveMetadata).toEqual({ cveId: 'CVE-1999-1199', state: 'PUBLISHED', assignerOrgId: feed.orgId });
    expect(cna(r).providerMetadata).toEqual(feed);
    const c = cna(r);
    expect(c.title).toBe('Multiple header Denial of Service vulnerability');
    expect(c.affected).toEqual([
      {
        vendor: 'Apache Software Foundation',
        product: 'Apache HTTP Server',
        versions: [
          { version: '1.3.1', status: 'affected' },
          { version: '1.3.0', status: 'affected' },
        ],
        defaultStatus: 'unaffected',
      },
    ]);
    expect((c.descriptions as JsonObject[])[0]!.lang).toBe('en');
    expect(c.metrics).toEqual([{ other: { type: 'Textual description of severity', content: { text: 'important' } } }]);
    expect(c.timeline).toEqual([{ lang: 'en', value: '1.3.2 released', time: '1998-09-23T00:00:00Z' }]);
    expect(c.problemTypes).toEqual([
      { descriptions: [{ lang: 'en', description: 'Multiple header Denial of Service vulnerability', type: 'text' }] },
    ]);
    expect(c.x_source).toEqual({ defect: [], advisory: '', discovery: 'UNKNOWN' });
  });

  it('pairs range bounds: "<= 2.4.48" + "!< 2.4.17", ">= 2.4.7" + "<= 2.4.51"; a lone "<=" starts at 0', () => {
    const versions = (id: string) => (cna(byId.get(id)!).affected as JsonObject[]).map((a) => a.versions);
    expect(versions('CVE-2021-33193')).toEqual([
      [{ version: '2.4.17', status: 'affected', lessThanOrEqual: '2.4.48', versionType: 'custom' }],
    ]);
    expect(versions('CVE-2021-44224')).toEqual([
      [{ version: '2.4.7', status: 'affected', lessThanOrEqual: '2.4.51', versionType: 'custom' }],
    ]);
    expect(versions('CVE-2022-23943')).toEqual([
      [{ version: '0', lessThanOrEqual: '2.4.52', status: 'affected', versionType: 'custom' }],
    ]);
  });

  it('puts the 4.0 platform into affected[].platforms, DATE_PUBLIC into datePublished/datePublic, credits', () => {
    expect((cna(byId.get('CVE-2022-28330')!).affected as JsonObject[])[0]!.platforms).toEqual(['Windows']);
    const r = byId.get('CVE-2017-9798')!;
    expect(r.cveMetadata.datePublished).toBe('2017-09-18T00:00:00Z');
    expect(cna(r).datePublic).toBe('2017-09-18T00:00:00Z');
    expect(cna(r).credits).toEqual([
      { lang: 'en', value: 'We would like to thank Hanno Böck for reporting this issue.' },
    ]);
    // Vulnogram workflow states (DRAFT/READY/REVIEW) are served as PUBLISHED; the original state stays in x_legacyV4Record.
    expect(byId.get('CVE-2021-31618')!.cveMetadata.state).toBe('PUBLISHED');
  });

  it('5.x records: top-level CNA_private kept as x_CNA_private with its nulls removed', () => {
    const r = byId.get('CVE-2006-20001')!;
    expect(r.x_CNA_private).toMatchObject({ owner: 'httpd', state: 'REVIEW' });
    expect('emailed' in (r.x_CNA_private as JsonObject)).toBe(false);
    expect(r.x_dataVersion).toBeUndefined();
  });
});

describe('convertVersionData (CVE JSON 4.0 version_affected)', () => {
  const v = (op: string, value: string) => ({ op, value });
  it.each([
    [[v('=', '1.0')], [{ version: '1.0', status: 'affected' }]],
    [[v('', '1.0')], [{ version: '1.0', status: 'affected' }]],
    [[v('<', '2.0')], [{ version: '0', lessThan: '2.0', status: 'affected', versionType: 'custom' }]],
    [[v('<=', '2.0')], [{ version: '0', lessThanOrEqual: '2.0', status: 'affected', versionType: 'custom' }]],
    [[v('>=', '2.0')], [{ version: '2.0', lessThan: '*', status: 'affected', versionType: 'custom' }]],
    [
      [v('>', '2.0')],
      [
        { version: '2.0', lessThan: '*', status: 'affected', versionType: 'custom' },
        { version: '2.0', status: 'unaffected' },
      ],
    ],
    [[v('!', '3.5.1')], [{ version: '3.5.1', status: 'unaffected' }]],
    [[v('!<', '2.4.17')], [{ version: '0', lessThan: '2.4.17', status: 'unaffected', versionType: 'custom' }]],
    [[v('!>=', '8.1.23')], [{ version: '8.1.23', lessThan: '*', status: 'unaffected', versionType: 'custom' }]],
    [[v('?=', '1.3.9')], [{ version: '1.3.9', status: 'unknown' }]],
    [[v('?<', '2.2')], [{ version: '0', lessThan: '2.2', status: 'unknown', versionType: 'custom' }]],
    [
      [v('>', '1.0'), v('<', '2.0')],
      [
        { version: '1.0', status: 'affected', lessThan: '2.0', versionType: 'custom' },
        { version: '1.0', status: 'unaffected' },
      ],
    ],
    [
      [v('!<', '2.4.30'), v('<=', '2.4.48')],
      [{ version: '2.4.30', status: 'affected', lessThanOrEqual: '2.4.48', versionType: 'custom' }],
    ],
    // Not a range: the lower bound lies above the upper one (Atlassian-style lists).
    [
      [v('<', '8.13.3'), v('>=', '8.14.0'), v('<', '8.14.1')],
      [
        { version: '0', lessThan: '8.13.3', status: 'affected', versionType: 'custom' },
        { version: '8.14.0', status: 'affected', lessThan: '8.14.1', versionType: 'custom' },
      ],
    ],
  ])('%j', (input, expected) => expect(convertVersionData(input)).toEqual(expected));

  it('rejects an unknown operator', () => {
    expect(() => convertVersionData([v('~', '1')])).toThrow(/unknown version_affected operator "~"/);
  });
});

describe('mitre-cvelist-v5 inputs: directory tree, zip (with nested cves.zip), gzip, failures', () => {
  let dir: string;
  const basic = fs.readFileSync(BASIC, 'utf8');
  const withId = (id: string) => basic.replace('CVE-1900-1234', id);
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'advisory-cve5-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, data: string | Buffer) => {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, data);
    return file;
  };
  const tree: Array<[string, string]> = [
    ['cves/2024/0xxx/CVE-2024-0001.json', withId('CVE-2024-0001')],
    ['cves/2024/0xxx/CVE-2024-0002.json', '{ "dataType": "CVE_RECORD", '],
    ['cves/2024/1xxx/CVE-2024-1001.json', withId('CVE-2024-1001')],
    ['cves/1999/0xxx/CVE-1999-0001.json', withId('CVE-1999-0001')],
    ['cves/delta.json', '{"fetchTime":"2024-10-24T00:00:00Z","new":[]}'],
    ['cves/deltaLog.json', '[]'],
  ];

  it('walks a cvelistV5 tree, ignores delta.json, reports a broken file and goes on', async () => {
    for (const [name, data] of tree) write(`tree/${name}`, data);
    const items = await collect(mitreCvelistV5(path.join(dir, 'tree'), 'mitre-cvelist-v5'));
    expect(records(items).map((r) => r.cveMetadata.cveId)).toEqual(['CVE-1999-0001', 'CVE-2024-0001', 'CVE-2024-1001']);
    expect(rejected(items)).toEqual([
      {
        kind: 'rejected',
        sourceId: '',
        at: path.join(dir, 'tree/cves/2024/0xxx/CVE-2024-0002.json'),
        reason: expect.stringMatching(/^invalid JSON/),
      },
    ]);
    for (const r of records(items)) expect(contractProblems(r)).toEqual([]);
  });

  it('reads a release zip whose records sit in a nested cves.zip', async () => {
    const inner = await zipOf(tree);
    const file = write(
      'release.zip',
      await zipOf([
        ['cves.zip', inner],
        ['CVE-2023-0001.json.gz', gzipSync(withId('CVE-2023-0001'))],
      ]),
    );
    const items = await collect(mitreCvelistV5(file, 'mitre-cvelist-v5'));
    // Archive order (as written), not name order.
    expect(records(items).map((r) => r.cveMetadata.cveId)).toEqual([
      'CVE-2024-0001',
      'CVE-2024-1001',
      'CVE-1999-0001',
      'CVE-2023-0001',
    ]);
    expect(rejected(items).map((i) => i.at)).toEqual([`${file}#cves.zip#cves/2024/0xxx/CVE-2024-0002.json`]);
  });

  it('reads a gzipped single record and a JSON array of records', async () => {
    expect(
      records(
        await collect(mitreCvelistV5(write('one.json.gz', gzipSync(withId('CVE-2024-0005'))), 'mitre-cvelist-v5')),
      )[0]!.cveMetadata.cveId,
    ).toBe('CVE-2024-0005');
    const array = `[${withId('CVE-2024-0006')}, ${withId('CVE-2024-0007')}]`;
    const items = await collect(mitreCvelistV5(write('array.json', array), 'mitre-cvelist-v5'));
    expect(records(items).map((r) => r.cveMetadata.cveId)).toEqual(['CVE-2024-0006', 'CVE-2024-0007']);
  });

  it('reports each record that cannot be converted, with id, place and reason, and continues', async () => {
    const one = (id: string) => JSON.stringify(JSON.parse(withId(id)));
    const badOperator = JSON.stringify({
      data_type: 'CVE',
      data_version: '4.0',
      CVE_data_meta: { ID: 'CVE-2020-9999', STATE: 'PUBLIC' },
      affects: {
        vendor: {
          vendor_data: [
            {
              vendor_name: 'v',
              product: {
                product_data: [
                  { product_name: 'p', version: { version_data: [{ version_affected: '~', version_value: '1' }] } },
                ],
              },
            },
          ],
        },
      },
    });
    const lines = [
      one('CVE-2024-0010'),
      '{not json',
      '{"foo": 1}',
      badOperator,
      one('CVE-XXXX-1').replace('CVE-XXXX-1', 'CVE-24-1'),
      JSON.stringify({ dataType: 'CVE_RECORD', cveMetadata: { cveId: 'CVE-2024-0012', state: 'PUBLISHED' } }),
      JSON.stringify({
        dataType: 'CVE_RECORD',
        cveMetadata: { cveId: 'CVE-2024-0013', state: null },
        containers: { cna: {} },
      }),
      one('CVE-2024-0011'),
    ];
    const file = write('mixed.ndjson', lines.join('\n'));
    const items = await collect(mitreCvelistV5(file, 'mitre-cvelist-v5'));
    expect(records(items).map((r) => r.cveMetadata.cveId)).toEqual(['CVE-2024-0010', 'CVE-2024-0011']);
    expect(rejected(items)).toEqual([
      { kind: 'rejected', sourceId: '', at: `${file}:2`, reason: expect.stringMatching(/^invalid JSON/) },
      {
        kind: 'rejected',
        sourceId: '',
        at: `${file}:3`,
        reason: 'not a CVE record (no cveMetadata, no CVE_data_meta)',
      },
      {
        kind: 'rejected',
        sourceId: 'CVE-2020-9999',
        at: `${file}:4`,
        reason: 'unknown version_affected operator "~" (version 1)',
      },
      {
        kind: 'rejected',
        sourceId: 'CVE-24-1',
        at: `${file}:5`,
        reason: 'cveMetadata.cveId is not a CVE id: "CVE-24-1"',
      },
      {
        kind: 'rejected',
        sourceId: 'CVE-2024-0012',
        at: `${file}:6`,
        reason: 'containers.cna is missing or not an object',
      },
      { kind: 'rejected', sourceId: 'CVE-2024-0013', at: `${file}:7`, reason: 'cveMetadata.state is missing' },
    ]);
  });
});
