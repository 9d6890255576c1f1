/**
 * `/v3/purl` answers from the advisory index (affected entries from the match index, CVE ids kept
 * per record) exactly as the reference that reads and parses every matched record does: over the
 * PyPA and Go OSV samples and hand-built CVE 5 records, for every version the samples name, before
 * and after the ids are kept, and after loads that change, remove and add records.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdvisoryRecord } from '../../src/ingest/advisories/types.js';
import { AdvisoryIndex } from '../../src/search/advisories/advisory-index.js';
import { lookupPurlByRecords } from '../../src/server/routes/purl/by-records.js';
import { lookupPurl, RecordBudget } from '../../src/server/routes/purl/lookup.js';
import { parsePurlQuestion, type PurlQuestion } from '../../src/server/routes/purl/parse.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { advisory, loadRealFeed, loadRecords } from '../advisories/support.js';
import { engineCases } from '../support/engines.js';
import { fixture } from '../support/fixtures.js';

type Json = Record<string, any>;

const osvEntries = (file: string, count: number): Json[] =>
  zlib
    .gunzipSync(fs.readFileSync(fixture(file)))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, count)
    .map((line) => JSON.parse(line) as Json);

/** Each package of the samples at every version its ranges name, and 0.0.1 (before most of them). */
function samplePurls(entries: Json[], type: string, prefix: string): string[] {
  const purls = new Set<string>();
  for (const entry of entries) {
    for (const affected of entry.affected ?? []) {
      const name = affected.package?.name as string | undefined;
      if (!name) continue;
      const versions = new Set(['0.0.1']);
      for (const range of affected.ranges ?? []) {
        for (const event of range.events ?? []) {
          for (const version of Object.values(event) as string[]) if (version !== '0') versions.add(version);
        }
      }
      for (const version of versions) purls.add(`pkg:${type}/${name.replace('@', '%40')}@${prefix}${version}`);
    }
  }
  return [...purls];
}

const range = (version: string, lessThan: string) => ({ version, lessThan, status: 'affected', versionType: 'semver' });
const widget = (versions: object[], extra: Json = {}) => ({
  packageURL: 'pkg:npm/widget',
  versions,
  defaultStatus: 'unaffected',
  ...extra,
});

/** CVE 5 records: aliases, an entry without a fix before one with, ADP entries, a CVE id that is not one. */
const CVE5: AdvisoryRecord[] = [
  advisory('CVE-2099-2001', { affected: [widget([range('1.0.0', '1.5.0')])], x_aliases: ['CVE-2099-9001', 'GHSA-x'] }),
  advisory('CVE-2099-2002', {
    affected: [
      widget([{ version: '1.0.0', lessThanOrEqual: '1.4.0', status: 'affected', versionType: 'semver' }]),
      widget([range('1.2.0', '1.3.1')]),
    ],
  }),
  advisory(
    'CVE-2099-2003',
    { affected: [{ vendor: 'acme', product: 'widget' }] },
    {
      adp: [{ affected: [widget([range('1.0.0', '2.0.0')])] }],
    },
  ),
  advisory('NOT-A-CVE-1', { affected: [widget([range('1.0.0', '1.2.0')])], x_aliases: ['CVE-2099-9002'] }),
  advisory('CVE-2099-2005', {
    affected: [
      widget([
        range('1.0.0', '1.1.0'),
        {
          version: '1.1.0',
          status: 'affected',
          versionType: 'semver',
          lessThan: '3.0.0',
          changes: [{ at: '1.2.5', status: 'unaffected' }],
        },
      ]),
    ],
  }),
];
const WIDGET = ['0.9.0', '1.0.0', '1.1.0', '1.2.0', '1.2.7', '1.3.0', '1.4.0', '1.9.0', '2.5.0'].map(
  (version) => `pkg:npm/widget@${version}`,
);

describe.each(engineCases())('/v3/purl from the index, as from the records ($name)', (engine) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  let index: AdvisoryIndex;
  const FEEDS = ['go-vulndb', 'mitre-cvelist-v5', 'pypa'];

  beforeAll(async () => {
    const fresh = await engine.fresh();
    drop = fresh.drop;
    storage = await createStorage(fresh.config);
    await loadRealFeed(storage, 'pypa');
    await loadRealFeed(storage, 'go-vulndb');
    await loadRecords(storage, 'mitre-cvelist-v5', CVE5);
    index = new AdvisoryIndex(storage.advisories);
    await index.build();
  }, 300_000);
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  const questions = (purls: string[]) => {
    const out: PurlQuestion[] = [];
    for (const purl of purls) {
      try {
        out.push(parsePurlQuestion(purl, 'purl'));
      } catch {
        // A sample version that is not a concrete version (the route answers 400): nothing to compare.
      }
    }
    return out;
  };

  async function expectSameAnswers(purls: string[]) {
    let found = 0;
    for (const question of questions(purls)) {
      const expected = await lookupPurlByRecords(index, FEEDS, question);
      for (const pass of ['first', 'kept']) {
        const answer = await lookupPurl(index, FEEDS, question, new RecordBudget());
        expect(answer, `${question.key}@${question.version} (${pass})`).toEqual(expected);
      }
      found += expected.total;
    }
    return found;
  }

  it.each<[string, () => string[], number]>([
    [
      'PyPA sample versions',
      () => samplePurls(osvEntries('feeds/pypa_advisory_database_osv.jsonl.gz', 200), 'pypi', ''),
      100,
    ],
    ['Go sample versions', () => samplePurls(osvEntries('feeds/golang_vulndb_osv.jsonl.gz', 300), 'golang', 'v'), 100],
    ['CVE 5 records', () => WIDGET, 10],
  ])('%s', async (_name, purls, least) => {
    expect(await expectSameAnswers(purls())).toBeGreaterThanOrEqual(least);
  });

  it('follows loads: a record changed, one removed, one added, and a feed reloaded as before', async () => {
    const [, second, ...rest] = CVE5;
    const changed = advisory('CVE-2099-2001', {
      affected: [widget([range('1.0.0', '1.6.0')])],
      x_aliases: ['CVE-2099-9003'],
    });
    const added = advisory('CVE-2099-2006', { affected: [widget([range('0.1.0', '9.0.0')])] });
    const steps: Array<[string, AdvisoryRecord[], 'replace' | 'merge', string[]]> = [
      ['changed', [changed, second!, ...rest], 'replace', ['CVE-2099-9003']],
      ['removed', [changed, ...rest], 'replace', ['CVE-2099-9003']],
      ['added', [added], 'merge', ['CVE-2099-2006', 'CVE-2099-9003']],
      ['reloaded', CVE5, 'replace', ['CVE-2099-9001']],
    ];
    for (const [step, records, mode, cves] of steps) {
      await loadRecords(storage, 'mitre-cvelist-v5', records, mode);
      await expectSameAnswers(WIDGET);
      const answer = await lookupPurl(
        index,
        FEEDS,
        parsePurlQuestion('pkg:npm/widget@1.0.0', 'purl'),
        new RecordBudget(),
      );
      expect(answer.cves, step).toEqual(expect.arrayContaining(cves));
    }
  });
});
