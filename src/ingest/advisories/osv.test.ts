import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { feedProvenance } from '../../core/advisory/provenance.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems } from '../../../test/support/contract.js';
import { collect, zipOf } from '../../../test/support/streams.js';
import { derivePurl, osv, osvCveId, versionsFromRange } from './osv.js';
import type { AdvisoryItem, AdvisoryRecord, JsonObject } from './types.js';
import { fixture } from '../../../test/support/fixtures.js';

const GO_VULNDB = feedProvenance('go-vulndb');
const FEEDS = fixture('feeds');
const cna = (r: AdvisoryRecord) => r.containers.cna as JsonObject;
const affected = (r: AdvisoryRecord) => cna(r).affected as JsonObject[];

interface FeedRun {
  items: number;
  rejected: AdvisoryItem[];
  invalid: string[];
  withdrawn: number;
  keyedByOsvId: number;
  cveIdGroups: Map<string, string[]>;
  picked: Map<string, AdvisoryRecord>;
}

/** One pass over a feed: counts, contract problems, duplicates, and a few records kept by OSV id. */
async function runFeed(feed: string, file: string, pick: string[]): Promise<FeedRun> {
  const run: FeedRun = {
    items: 0,
    rejected: [],
    invalid: [],
    withdrawn: 0,
    keyedByOsvId: 0,
    cveIdGroups: new Map(),
    picked: new Map(),
  };
  for await (const item of osv(file, feed)) {
    run.items++;
    if (item.kind === 'rejected') {
      run.rejected.push(item);
      continue;
    }
    const r = item.record;
    const problems = contractProblems(r);
    if (problems.length > 0) run.invalid.push(`${item.sourceId}: ${problems.join('; ')}`);
    expect(cna(r).x_osvId).toBe(item.sourceId);
    if (r.cveMetadata.state === 'REJECTED') run.withdrawn++;
    if (r.cveMetadata.cveId === item.sourceId) run.keyedByOsvId++;
    const group = run.cveIdGroups.get(r.cveMetadata.cveId) ?? [];
    group.push(item.sourceId);
    run.cveIdGroups.set(r.cveMetadata.cveId, group);
    if (pick.includes(item.sourceId)) run.picked.set(item.sourceId, r);
  }
  return run;
}
const duplicates = (run: FeedRun) => [...run.cveIdGroups].filter(([, ids]) => ids.length > 1);

describe('osv: go-vulndb (4,291 entries)', () => {
  let run: FeedRun;
  beforeAll(async () => {
    run = await runFeed('go-vulndb', `${FEEDS}/golang_vulndb_osv.jsonl.gz`, [
      'GO-2020-0001',
      'GO-2021-0051',
      'GO-2021-0067',
      'GO-2021-0097',
      'GO-2022-0617',
    ]);
  });

  it('converts every entry to a valid record; 397 without a CVE alias keep their GO id; no CVE id repeats', () => {
    expect(run.items).toBe(4291);
    expect(run.rejected).toEqual([]);
    expect(run.invalid).toEqual([]);
    expect(run.keyedByOsvId).toBe(397);
    expect(run.withdrawn).toBe(17);
    expect(duplicates(run)).toEqual([]);
  });

  it('GO-2020-0001: CVE alias as id, Go module package, symbols, purl derived, semver range', () => {
    const r = run.picked.get('GO-2020-0001')!;
    // Go vulndb's zero `modified` time is not a date: left out (kept verbatim), dateUpdated = published.
    expect(r.cveMetadata).toEqual({
      cveId: 'CVE-2020-36567',
      state: 'PUBLISHED',
      datePublished: '2021-04-14T20:04:52Z',
      dateUpdated: '2021-04-14T20:04:52Z',
      assignerOrgId: GO_VULNDB.orgId,
    });
    const c = cna(r);
    expect(c.title).toBe('Arbitrary log line injection in github.com/gin-gonic/gin');
    expect((c.descriptions as JsonObject[])[0]!.value).toMatch(/^The default Formatter for the Logger middleware/);
    expect(affected(r)).toEqual([
      {
        packageName: 'github.com/gin-gonic/gin',
        product: 'github.com/gin-gonic/gin',
        collectionURL: 'https://pkg.go.dev',
        packageURL: 'pkg:golang/github.com/gin-gonic/gin',
        versions: [{ version: '0', status: 'affected', lessThan: '1.6.0', versionType: 'semver' }],
        defaultStatus: 'unaffected',
        modules: ['github.com/gin-gonic/gin'],
        programRoutines: ['Default', 'Logger', 'LoggerWithConfig', 'LoggerWithFormatter', 'LoggerWithWriter'].map(
          (name) => ({ name }),
        ),
      },
    ]);
    expect(c.references).toEqual([
      { url: 'https://github.com/gin-gonic/gin/pull/2237', tags: ['fix'] },
      { url: 'https://github.com/gin-gonic/gin/commit/a71af9c144f9579f6dbe945341c1df37aaf09c0d', tags: ['fix'] },
    ]);
    expect(c.credits).toEqual([{ lang: 'en', value: '@thinkerou <thinkerou@gmail.com>' }]);
    expect(c.x_osvCredits).toEqual([{ name: '@thinkerou <thinkerou@gmail.com>' }]);
    expect(c.x_osvId).toBe('GO-2020-0001');
    expect(c.x_aliases).toEqual(['CVE-2020-36567', 'GHSA-6vm3-jj99-7229']);
    expect(c.x_osvModified).toBe('0001-01-01T00:00:00Z');
    expect(c.x_osvDatabaseSpecific).toEqual({ url: 'https://pkg.go.dev/vuln/GO-2020-0001', review_status: 'REVIEWED' });
    expect(c.x_osvSchemaVersion).toBe('1.3.1');
    expect((c.x_osvAffected as JsonObject[])[0]!.package).toEqual({
      name: 'github.com/gin-gonic/gin',
      ecosystem: 'Go',
    });
    expect(r.cveMetadata.assignerOrgId).toBe(GO_VULNDB.orgId);
    expect(c.providerMetadata).toEqual({ dateUpdated: '2021-04-14T20:04:52Z', ...GO_VULNDB });
  });

  it('GOOS restrictions become platforms; stdlib gets a derived purl; several CVE aliases → the first, sorted', () => {
    expect(affected(run.picked.get('GO-2021-0051')!)[0]!.platforms).toEqual(['windows']);
    expect(affected(run.picked.get('GO-2021-0067')!)[0]).toMatchObject({
      packageName: 'stdlib',
      packageURL: 'pkg:golang/stdlib',
      versions: [{ version: '1.16.0-0', status: 'affected', lessThan: '1.16.1', versionType: 'semver' }],
    });
    const multi = run.picked.get('GO-2021-0097')!;
    expect(multi.cveMetadata.cveId).toBe('CVE-2020-29242');
    expect(cna(multi).x_aliases).toHaveLength(8);
  });

  it('withdrawn → REJECTED with dateRejected (zero dates left out)', () => {
    const r = run.picked.get('GO-2022-0617')!;
    expect(r.cveMetadata).toEqual({
      cveId: 'CVE-2020-8562',
      state: 'REJECTED',
      dateRejected: '2024-08-21T16:25:56Z',
      assignerOrgId: GO_VULNDB.orgId,
    });
    expect(affected(r)[0]!.versions).toEqual([
      { version: '0', status: 'affected', lessThan: '*', versionType: 'semver' },
    ]);
  });
});

describe('osv: pypa (2,661 entries)', () => {
  let run: FeedRun;
  beforeAll(async () => {
    run = await runFeed('pypa', `${FEEDS}/pypa_advisory_database_osv.jsonl.gz`, [
      'PYSEC-2021-335',
      'PYSEC-2021-875',
      'PYSEC-2022-42969',
      'PYSEC-2024-55',
      'PYSEC-2023-120',
    ]);
  });

  it('converts every entry to a valid record; 13 keep their PYSEC id; 10 withdrawn', () => {
    expect(run.items).toBe(2661);
    expect(run.rejected).toEqual([]);
    expect(run.invalid).toEqual([]);
    expect(run.keyedByOsvId).toBe(13);
    expect(run.withdrawn).toBe(10);
  });

  it('emits entries sharing a CVE id as they come: 344 CVE ids carry 937 records (593 more than ids)', () => {
    const dups = duplicates(run);
    expect(dups).toHaveLength(344);
    expect(dups.reduce((n, [, ids]) => n + ids.length, 0)).toBe(937);
    expect(run.cveIdGroups.get('CVE-2021-32807')).toEqual(['PYSEC-2021-335', 'PYSEC-2021-875']);
    // Different packages: keying the store by cveId alone would lose one of them.
    expect(affected(run.picked.get('PYSEC-2021-335')!)[0]!.packageName).toBe('accesscontrol');
    expect(affected(run.picked.get('PYSEC-2021-875')!)[0]!.packageName).toBe('zope');
  });

  it('PYSEC-2021-335: GIT range (repo, versionType git), ECOSYSTEM ranges (python), explicit versions', () => {
    const r = run.picked.get('PYSEC-2021-335')!;
    expect(r.cveMetadata).toEqual({
      cveId: 'CVE-2021-32807',
      state: 'PUBLISHED',
      datePublished: '2021-07-30T22:15:00Z',
      dateUpdated: '2021-09-26T23:32:08.989778Z',
      assignerOrgId: feedProvenance('pypa').orgId,
    });
    const a = affected(r)[0]!;
    expect(a).toMatchObject({
      packageName: 'accesscontrol',
      collectionURL: 'https://pypi.org',
      packageURL: 'pkg:pypi/accesscontrol',
      repo: 'https://github.com/zopefoundation/AccessControl',
      defaultStatus: 'unaffected',
    });
    const versions = a.versions as JsonObject[];
    // The GIT range last: it orders commits, and must not leave a release undecided.
    expect(versions.slice(0, 2)).toEqual([
      { version: '4.0', status: 'affected', lessThan: '4.3', versionType: 'python' },
      { version: '5.0', status: 'affected', lessThan: '5.2', versionType: 'python' },
    ]);
    expect(versions.at(-1)).toEqual({
      version: '0',
      status: 'affected',
      lessThan: 'b42dd4badf803bb9fb71ac34cd9cb0c249262f2c',
      versionType: 'git',
    });
    const listed = versions.slice(2, -1);
    expect(listed.every((v) => v.status === 'affected' && Object.keys(v).length === 2)).toBe(true);
    expect(listed.map((v) => v.version)).toContain('4.2');
    expect(cna(r).references).toContainEqual({
      url: 'https://github.com/zopefoundation/AccessControl/security/advisories/GHSA-qcx9-j53g-ccgf',
      tags: ['advisory'],
    });
    expect(cna(r).title).toBeUndefined(); // no summary: details is the description
  });

  it('last_affected → lessThanOrEqual; summary → title; an entry without any date', () => {
    expect(affected(run.picked.get('PYSEC-2022-42969')!)[0]!.versions).toContainEqual({
      version: '0',
      status: 'affected',
      lessThanOrEqual: '1.11.0',
      versionType: 'python',
    });
    expect(cna(run.picked.get('PYSEC-2023-120')!).title).toBe(
      'aiohttp.web.Application vulnerable to HTTP request smuggling via llhttp HTTP request parser',
    );
    const undated = run.picked.get('PYSEC-2024-55')!;
    expect(undated.cveMetadata).toEqual({
      cveId: 'PYSEC-2024-55',
      state: 'PUBLISHED',
      assignerOrgId: feedProvenance('pypa').orgId,
    });
    expect(cna(undated).x_osvModified).toBe('0001-01-01T00:00:00Z');
  });
});

describe('osv: rustsec (1,206 entries)', () => {
  let run: FeedRun;
  beforeAll(async () => {
    run = await runFeed('rustsec', `${FEEDS}/rustsec_advisory_db_osv.jsonl.gz`, [
      'RUSTSEC-2024-0445',
      'RUSTSEC-2016-0001',
      'RUSTSEC-2019-0036',
      'RUSTSEC-2016-0005',
    ]);
  });

  it('converts every entry to a valid record; 685 keep their RUSTSEC id; 13 withdrawn; 20 CVE ids repeat', () => {
    expect(run.items).toBe(1206);
    expect(run.rejected).toEqual([]);
    expect(run.invalid).toEqual([]);
    expect(run.keyedByOsvId).toBe(685);
    expect(run.withdrawn).toBe(13);
    expect(duplicates(run)).toHaveLength(20);
    expect(run.cveIdGroups.get('CVE-2019-25010')).toEqual(['RUSTSEC-2019-0036', 'RUSTSEC-2020-0036']);
  });

  it('CVSS severities become contract metrics (v3.0 scored, v4.0 parsed); affects.os → platforms', () => {
    const v4 = run.picked.get('RUSTSEC-2024-0445')!;
    expect(v4.cveMetadata.cveId).toBe('CVE-2024-51756');
    expect((cna(v4).metrics as JsonObject[])[0]).toMatchObject({
      format: 'CVSS',
      cvssV4_0: { version: '4.0', attackRequirements: 'PRESENT', vulnConfidentialityImpact: 'LOW' },
    });
    expect(cna(v4).x_osvSeverity).toEqual([
      { type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L/AT:P/PR:L/UI:N/VC:L/VI:L/VA:L/SC:N/SI:N/SA:N' },
    ]);
    expect(affected(v4)[0]).toMatchObject({
      packageName: 'cap-primitives',
      collectionURL: 'https://crates.io',
      packageURL: 'pkg:cargo/cap-primitives',
      platforms: ['windows'],
    });
    const v3 = run.picked.get('RUSTSEC-2016-0001')!;
    expect((cna(v3).metrics as JsonObject[])[0]!.cvssV3_0).toMatchObject({
      baseScore: 8.1,
      baseSeverity: 'HIGH',
      vectorString: 'CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H',
    });
  });

  it('an advisory without CVE alias is served under its RUSTSEC id; nulls inside x_osvAffected are removed', () => {
    const r = run.picked.get('RUSTSEC-2016-0005')!;
    expect(r.cveMetadata.cveId).toBe('RUSTSEC-2016-0005');
    expect(cna(r).x_aliases).toBeUndefined();
    const raw = (cna(r).x_osvAffected as JsonObject[])[0]!;
    expect(raw.ecosystem_specific).toEqual({ affects: { arch: [], os: [], functions: [] } }); // affected_functions: null omitted
    expect(raw.database_specific).toEqual({ categories: [], informational: 'unmaintained' }); // cvss: null omitted
    expect(affected(r)[0]!.versions).toEqual([
      { version: '0.0.0-0', status: 'affected', lessThan: '0.2.37-0', versionType: 'semver' },
    ]);
  });
});

describe('osv inputs and failures', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'advisory-osv-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const entry = (id: string, extra: JsonObject = {}) =>
    JSON.stringify({
      id,
      modified: '2024-01-02T00:00:00Z',
      published: '2024-01-01T00:00:00Z',
      aliases: ['CVE-2024-1111'],
      details: 'd',
      affected: [
        {
          package: { ecosystem: 'npm', name: '@scope/pkg' },
          ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { fixed: '1.2.3' }] }],
        },
      ],
      ...extra,
    });

  it('reads a directory of .json files and an OSV all.zip, reporting a broken entry and going on', async () => {
    fs.mkdirSync(path.join(dir, 'osv'));
    fs.writeFileSync(path.join(dir, 'osv/GHSA-aaaa-bbbb-cccc.json'), entry('GHSA-aaaa-bbbb-cccc'));
    fs.writeFileSync(path.join(dir, 'osv/GHSA-bad.json'), '{"id": 5}');
    fs.writeFileSync(path.join(dir, 'osv/README.md'), '#');
    const items = await collect(osv(path.join(dir, 'osv'), 'ghsa-local'));
    expect(items).toEqual([
      { kind: 'record', sourceId: 'GHSA-aaaa-bbbb-cccc', record: expect.any(Object) },
      { kind: 'rejected', sourceId: '', at: path.join(dir, 'osv/GHSA-bad.json'), reason: 'OSV entry without id' },
    ]);
    const r = (items[0] as { record: AdvisoryRecord }).record;
    expect(contractProblems(r)).toEqual([]);
    expect(affected(r)[0]).toMatchObject({
      packageName: '@scope/pkg',
      collectionURL: 'https://registry.npmjs.org',
      packageURL: 'pkg:npm/%40scope/pkg',
    });
    // Whatever the id prefix (GHSA here), the provider is the feed that serves the entry.
    expect(cna(r).providerMetadata).toEqual({ dateUpdated: '2024-01-02T00:00:00Z', ...feedProvenance('ghsa-local') });

    const zip = path.join(dir, 'all.zip');
    fs.writeFileSync(
      zip,
      await zipOf([
        ['GHSA-1.json', entry('GHSA-1')],
        ['GHSA-2.json', entry('GHSA-2', { withdrawn: '2024-02-01T00:00:00Z', references: 'oops' })],
      ]),
    );
    const zipped = await collect(osv(zip, 'ghsa-local'));
    expect(zipped.map((i) => i.sourceId)).toEqual(['GHSA-1', 'GHSA-2']);
    const withdrawn = (zipped[1] as { record: AdvisoryRecord }).record;
    expect(withdrawn.cveMetadata).toMatchObject({
      cveId: 'CVE-2024-1111',
      state: 'REJECTED',
      dateRejected: '2024-02-01T00:00:00Z',
    });
    expect(cna(withdrawn).x_osvReferences).toBe('oops');
    expect(contractProblems(withdrawn)).toEqual([]);
  });
});

describe('osv helpers', () => {
  it('versionsFromRange: introduced/fixed, last_affected, limit, open ranges', () => {
    expect(
      versionsFromRange(
        {
          events: [
            { introduced: '0' },
            { fixed: '1.0' },
            { introduced: '2.0' },
            { last_affected: '2.5' },
            { introduced: '3.0' },
          ],
        },
        'semver',
      ),
    ).toEqual([
      { version: '0', status: 'affected', lessThan: '1.0', versionType: 'semver' },
      { version: '2.0', status: 'affected', lessThanOrEqual: '2.5', versionType: 'semver' },
      { version: '3.0', status: 'affected', lessThan: '*', versionType: 'semver' },
    ]);
    expect(versionsFromRange({ events: [{ introduced: 'abc' }, { limit: 'def' }] }, 'git')).toEqual([
      { version: 'abc', status: 'affected', lessThan: 'def', versionType: 'git' },
    ]);
    expect(versionsFromRange({ events: [{ fixed: '1.0' }] }, 'semver')).toEqual([
      { version: '0', status: 'affected', lessThan: '1.0', versionType: 'semver' },
    ]);
    expect(versionsFromRange({}, 'semver')).toEqual([]);
  });

  it('derivePurl', () => {
    expect(derivePurl('PyPI', 'Django_REST.framework')).toBe('pkg:pypi/django-rest-framework');
    expect(derivePurl('crates.io', 'serde')).toBe('pkg:cargo/serde');
    expect(derivePurl('Go', 'golang.org/x/net')).toBe('pkg:golang/golang.org/x/net');
    expect(derivePurl('npm', 'lodash')).toBe('pkg:npm/lodash');
    expect(derivePurl('Maven', 'org.apache.logging.log4j:log4j-core')).toBe(
      'pkg:maven/org.apache.logging.log4j/log4j-core',
    );
    expect(derivePurl('Debian:12', 'openssl')).toBeUndefined();
    expect(derivePurl('constructor', 'x')).toBeUndefined();
  });

  it('osvCveId', () => {
    expect(osvCveId('GO-1', ['GHSA-x', 'CVE-2020-10000', 'CVE-2020-9999', 'CVE-2021-0001'])).toBe('CVE-2020-9999');
    expect(osvCveId('GO-1', ['CVE-2020-1'])).toBe('GO-1'); // not a CVE id
    expect(osvCveId('GO-1', ['GHSA-x'])).toBe('GO-1');
  });
});
