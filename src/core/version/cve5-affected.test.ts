import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { affectedStatus, type Cve5Product, type Cve5VersionEntry } from './cve5-affected.js';
import { FIXTURES } from '../../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

const FIXTURE_URL = pathToFileURL(FIXTURES);

const product = (versions: Cve5VersionEntry[], defaultStatus?: string): Cve5Product => ({ versions, defaultStatus });

describe('affectedStatus: one row per rule of the CVE 5 status algorithm (§2.5)', () => {
  const changes: Cve5VersionEntry = {
    version: '1.0.0',
    lessThan: '*',
    versionType: 'semver',
    status: 'affected',
    // Deliberately in text order; clients MUST re-sort by version (1.2.0 < 1.9.0 < 1.10.0).
    changes: [
      { at: '1.10.0', status: 'unaffected' },
      { at: '1.2.0', status: 'unaffected' },
      { at: '1.9.0', status: 'affected' },
    ],
  };
  const rows: Array<[string, string, Cve5Product, string, string]> = [
    [
      'single version matches',
      '2.4.49',
      product([{ version: '2.4.49', status: 'affected' }], 'unaffected'),
      'affected',
      'exact',
    ],
    [
      'single version, other version → defaultStatus',
      '2.4.51',
      product([{ version: '2.4.49', status: 'affected' }], 'unaffected'),
      'unaffected',
      'exact',
    ],
    [
      'single version equal after normalisation',
      '1.0.0',
      product([{ version: '1.0', status: 'affected' }], 'unaffected'),
      'affected',
      'exact',
    ],
    [
      'lessThan: inside',
      '1.5',
      product([{ version: '1.0', lessThan: '2.0', versionType: 'semver', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      'lessThan excludes its bound',
      '2.0.0',
      product([{ version: '1.0.0', lessThan: '2.0.0', versionType: 'semver', status: 'affected' }], 'unaffected'),
      'unaffected',
      'exact',
    ],
    [
      'lower bound is inclusive',
      '1.0.0',
      product([{ version: '1.0.0', lessThan: '2.0.0', versionType: 'semver', status: 'affected' }], 'unaffected'),
      'affected',
      'exact',
    ],
    [
      'below the lower bound',
      '0.9.0',
      product([{ version: '1.0.0', lessThan: '2.0.0', versionType: 'semver', status: 'affected' }], 'unaffected'),
      'unaffected',
      'exact',
    ],
    [
      'lessThanOrEqual includes its bound',
      '2.0.0',
      product(
        [{ version: '1.0.0', lessThanOrEqual: '2.0.0', versionType: 'semver', status: 'affected' }],
        'unaffected',
      ),
      'affected',
      'exact',
    ],
    [
      'version "0" means no lower bound',
      '0.0.1',
      product([{ version: '0', lessThan: '2.0.0', versionType: 'semver', status: 'affected' }], 'unaffected'),
      'affected',
      'exact',
    ],
    [
      'lessThan "*" means no upper bound',
      '99.0.0',
      product([{ version: '1.0.0', lessThan: '*', versionType: 'semver', status: 'affected' }], 'unaffected'),
      'affected',
      'exact',
    ],
    [
      'lessThanOrEqual "*" (seen in practice) means no upper bound',
      '99.0.0',
      product([{ version: '1.0.0', lessThanOrEqual: '*', versionType: 'semver', status: 'affected' }], 'unaffected'),
      'affected',
      'exact',
    ],
    [
      'lessThan "2.*": the rest of the 2.x line is inside',
      '2.99.1',
      product([{ version: '2.0.0', lessThan: '2.*', versionType: 'semver', status: 'affected' }], 'unaffected'),
      'affected',
      'exact',
    ],
    [
      'lessThan "2.*": 3.0.0 is outside',
      '3.0.0',
      product([{ version: '2.0.0', lessThan: '2.*', versionType: 'semver', status: 'affected' }], 'unaffected'),
      'unaffected',
      'exact',
    ],
    [
      'lessThanOrEqual "1.2.*" (kernel style): 1.2.99 inside',
      '1.2.99',
      product(
        [{ version: '1.2.5', lessThanOrEqual: '1.2.*', versionType: 'semver', status: 'unaffected' }],
        'affected',
      ),
      'unaffected',
      'exact',
    ],
    [
      'lessThanOrEqual "1.2.*": 1.3.0-rc1 is on the next line',
      '1.3.0-rc1',
      product(
        [{ version: '1.2.5', lessThanOrEqual: '1.2.*', versionType: 'semver', status: 'unaffected' }],
        'affected',
      ),
      'affected',
      'exact',
    ],
    [
      'changes re-sorted per versionType: before the first change',
      '1.1.0',
      product([changes], 'unaffected'),
      'affected',
      'exact',
    ],
    ['changes: after 1.2.0', '1.5.0', product([changes], 'unaffected'), 'unaffected', 'exact'],
    ['changes: re-introduced at 1.9.0', '1.9.5', product([changes], 'unaffected'), 'affected', 'exact'],
    [
      'changes: fixed again at 1.10.0 (text order would say affected)',
      '1.11.0',
      product([changes], 'unaffected'),
      'unaffected',
      'exact',
    ],
    [
      'first matching entry wins',
      '1.5.0',
      product([
        { version: '1.0.0', lessThan: '2.0.0', versionType: 'semver', status: 'unaffected' },
        { version: '0', lessThan: '3.0.0', versionType: 'semver', status: 'affected' },
      ]),
      'unaffected',
      'exact',
    ],
    [
      'no match and no defaultStatus → unknown',
      '5.0.0',
      product([{ version: '1.0.0', status: 'affected' }]),
      'unknown',
      'exact',
    ],
    ['no versions at all → defaultStatus', '5.0.0', product([], 'affected'), 'affected', 'exact'],
    [
      'an entry with status unknown stays unknown',
      '1.0.0',
      product([{ version: '1.0.0', status: 'unknown' }], 'unaffected'),
      'unknown',
      'exact',
    ],
    [
      'custom: vendor comparator, heuristic',
      '7.4p1',
      product([{ version: '7.0', lessThan: '7.5', versionType: 'custom', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      'custom "0 <= v <= *" (CISA ADP style) is a claim, not an exact match',
      '2.4.49',
      product([{ version: '0', lessThanOrEqual: '*', versionType: 'custom', status: 'affected' }], 'unknown'),
      'affected',
      'heuristic',
    ],
    [
      'custom: outside, still heuristic',
      '7.5',
      product([{ version: '7.0', lessThan: '7.5', versionType: 'custom', status: 'affected' }], 'unaffected'),
      'unaffected',
      'heuristic',
    ],
    [
      'maven ordering (m1 < cr1)',
      '1.0.0-m1',
      product([{ version: '0', lessThan: '1.0.0-cr1', versionType: 'maven', status: 'affected' }], 'unaffected'),
      'affected',
      'exact',
    ],
    [
      'git range never decides',
      '5.15.50',
      product(
        [{ version: '446fda4f2682', lessThan: '97bc3683c249', versionType: 'git', status: 'affected' }],
        'unaffected',
      ),
      'unknown',
      'heuristic',
    ],
    [
      'git range, but the outcome is the same either way',
      '5.15.50',
      product(
        [{ version: '446fda4f2682', lessThan: '97bc3683c249', versionType: 'git', status: 'affected' }],
        'affected',
      ),
      'affected',
      'heuristic',
    ],
    [
      'git single commit equal to V',
      'deadbeef1234',
      product([{ version: 'deadbeef1234', versionType: 'git', status: 'affected' }], 'unaffected'),
      'affected',
      'exact',
    ],
    [
      'lower bound "unspecified" read as none, flagged',
      '1.0',
      product([{ version: 'unspecified', lessThan: '2.0', versionType: 'custom', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      'lower bound "n/a" read as none, flagged',
      '3.0',
      product([{ version: 'n/a', lessThan: '2.0', versionType: 'custom', status: 'affected' }], 'unaffected'),
      'unaffected',
      'heuristic',
    ],
    [
      'single "n/a": cannot tell, no defaultStatus',
      '1.0',
      product([{ version: 'n/a', status: 'affected' }]),
      'unknown',
      'heuristic',
    ],
    [
      'single "unspecified": cannot tell, defaultStatus unaffected',
      '1.0',
      product([{ version: 'unspecified', status: 'affected' }], 'unaffected'),
      'unknown',
      'heuristic',
    ],
    [
      'single "2.4.x": the whole line, flagged',
      '2.4.49',
      product([{ version: '2.4.x', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      'single "2.4.*": another line does not match',
      '2.5.0',
      product([{ version: '2.4.*', status: 'affected' }], 'unaffected'),
      'unaffected',
      'heuristic',
    ],
    [
      'lessThan "5.x" is a line bound too',
      '5.9',
      product([{ version: '5.0', lessThan: '5.x', versionType: 'custom', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      'single "*": every version, flagged',
      '1.0',
      product([{ version: '*', status: 'affected' }]),
      'affected',
      'heuristic',
    ],
    [
      '"< 2.4.50" stuffed into version: inside',
      '2.4.49',
      product([{ version: '< 2.4.50', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      '"< 2.4.50" stuffed into version: at the bound',
      '2.4.50',
      product([{ version: '< 2.4.50', status: 'affected' }], 'unaffected'),
      'unaffected',
      'heuristic',
    ],
    [
      '">= 1.3.0, < 1.3.19"',
      '1.3.5',
      product([{ version: '>= 1.3.0, < 1.3.19', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      '">= 1.3.0, < 1.3.19" below',
      '1.2.9',
      product([{ version: '>= 1.3.0, < 1.3.19', status: 'affected' }], 'unaffected'),
      'unaffected',
      'heuristic',
    ],
    [
      '"5.6.34 and earlier"',
      '5.6.34',
      product([{ version: '5.6.34 and earlier', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      '"before 7.0"',
      '7.0',
      product([{ version: 'before 7.0', status: 'affected' }], 'unaffected'),
      'unaffected',
      'heuristic',
    ],
    [
      '"2.11.0 through 2.12.2"',
      '2.12.2',
      product([{ version: '2.11.0 through 2.12.2', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      '"All versions < V4.1.1 Patch04" (Siemens)',
      '4.1.1',
      product([{ version: 'All versions < V4.1.1 Patch04', status: 'affected' }], 'unaffected'),
      'affected',
      'heuristic',
    ],
    [
      '"All versions < V4.1.1 Patch04" at the patch',
      'V4.1.1 Patch04',
      product([{ version: 'All versions < V4.1.1 Patch04', status: 'affected' }], 'unaffected'),
      'unaffected',
      'heuristic',
    ],
    [
      'unreadable range text is undecidable, not a mismatch',
      '1.0',
      product([{ version: 'systems deployed before June 29th', status: 'affected' }], 'unaffected'),
      'unknown',
      'heuristic',
    ],
    [
      'an unreadable upper bound is undecidable',
      '2.5',
      product([{ version: '2.2', lessThan: 'Apache SOAP*', versionType: 'custom', status: 'affected' }], 'unaffected'),
      'unknown',
      'heuristic',
    ],
    [
      'a list of versions as a bound (openEuler) is undecidable',
      '2.0.9-5',
      product(
        [{ version: '0', lessThanOrEqual: '2.0.9-6,2.1.2-3', versionType: 'patch', status: 'affected' }],
        'unaffected',
      ),
      'unknown',
      'heuristic',
    ],
    [
      'lessThan and lessThanOrEqual together are malformed',
      '1.5',
      product(
        [{ version: '1.0', lessThan: '2.0', lessThanOrEqual: '3.0', versionType: 'semver', status: 'affected' }],
        'unaffected',
      ),
      'unknown',
      'heuristic',
    ],
    [
      'an undecidable entry followed by a match that agrees',
      '1.5.0',
      product(
        [
          { version: 'abc', lessThan: 'def', versionType: 'git', status: 'affected' },
          { version: '1.0.0', lessThan: '2.0.0', versionType: 'semver', status: 'affected' },
        ],
        'unaffected',
      ),
      'affected',
      'heuristic',
    ],
    [
      'an undecidable entry followed by a match that disagrees',
      '1.5.0',
      product(
        [
          { version: 'abc', lessThan: 'def', versionType: 'git', status: 'affected' },
          { version: '1.0.0', lessThan: '2.0.0', versionType: 'semver', status: 'unaffected' },
        ],
        'unaffected',
      ),
      'unknown',
      'heuristic',
    ],
    [
      'an uncomparable version is unknown',
      'n/a',
      product([{ version: '0', lessThan: '*', versionType: 'semver', status: 'affected' }], 'affected'),
      'unknown',
      'exact',
    ],
    [
      'an unknown status word is unknown',
      '1.0',
      product([{ version: '1.0', status: 'fixed' }], 'unaffected'),
      'unknown',
      'exact',
    ],
  ];
  it.each(rows)('%s: %s', (_rule, version, productData, status, confidence) => {
    const result = affectedStatus(version, productData);
    expect({ status: result.status, confidence: result.confidence }, result.reason).toEqual({ status, confidence });
    expect(result.reason.length).toBeGreaterThan(0);
  });

  it('changes that cannot be ordered widen the outcome to unknown', () => {
    const entry: Cve5VersionEntry = {
      version: '0',
      lessThanOrEqual: '2.0.9-6',
      versionType: 'patch',
      status: 'affected',
      changes: [{ at: '0012-265-set-env.patch', status: 'unaffected' }],
    };
    // The patch name is comparable text to the vendor comparator but meaningless as a version;
    // either way the verdict must not be a confident "unaffected".
    expect(affectedStatus('2.0.9-6', product([entry], 'unaffected')).confidence).toBe('heuristic');
  });

  it('git changes: unknown when they could change the status', () => {
    const entry: Cve5VersionEntry = {
      version: '4.19.90',
      lessThan: '4.19.90-2401.3',
      versionType: 'git',
      status: 'affected',
      changes: [{ at: 'b2239f607df2 net/sched: cbs: fix', status: 'unaffected' }],
    };
    expect(affectedStatus('4.19.90-2312.1', product([entry], 'unaffected')).status).toBe('unknown');
  });
});

// ---------------------------------------------------------------------------------------------
// Real records

interface CveRecord {
  cveMetadata: { cveId: string };
  containers: {
    cna: { affected?: Cve5Product[] };
    adp?: Array<{ affected?: Cve5Product[]; providerMetadata?: { shortName?: string } }>;
  };
}

let vulnrichment: Map<string, CveRecord> | undefined;
function vulnrichmentRecord(id: string): CveRecord {
  vulnrichment ??= new Map(
    gunzipSync(readFileSync(new URL('cve5-vulnrichment.sample.ndjson.gz', FIXTURE_URL)))
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as CveRecord)
      .map((record) => [record.cveMetadata.cveId, record]),
  );
  const record = vulnrichment.get(id);
  if (!record) throw new Error(`${id} is not in the vulnrichment sample`);
  return record;
}

const cnaProducts = (id: string) => vulnrichmentRecord(id).containers.cna.affected ?? [];
const statusesFor = (version: string, products: Cve5Product[]) =>
  products.map((p) => affectedStatus(version, p).status);

describe('affectedStatus on real CVE 5 records (cisagov/vulnrichment)', () => {
  it('CVE-2019-25162 (Linux kernel): the git product never decides; the release product does', () => {
    const [gitProduct, releaseProduct] = cnaProducts('CVE-2019-25162') as [Cve5Product, Cve5Product];
    const rows: Array<[string, string]> = [
      ['4.2', 'unaffected'], // 0 <= v < 4.3
      ['4.3', 'affected'], // the introducing release, listed first
      ['4.14.290', 'affected'], // before the 4.14 backport → defaultStatus affected
      ['4.14.291', 'unaffected'], // 4.14.291 <= v <= 4.14.*
      ['4.14.400', 'unaffected'],
      ['5.15.60', 'affected'],
      ['5.15.61', 'unaffected'],
      ['6.0', 'unaffected'], // original_commit_for_fix: 6.0 <= v <= *
      ['6.6.1', 'unaffected'],
    ];
    for (const [version, status] of rows) {
      expect(affectedStatus(version, releaseProduct).status, version).toBe(status);
      expect(affectedStatus(version, gitProduct).status, `git product, ${version}`).toBe('unknown');
    }
    // custom / original_commit_for_fix entries are vendor-compared: heuristic, as the reference asks.
    expect(affectedStatus('5.15.61', releaseProduct).confidence).toBe('heuristic');
  });

  it('CVE-2022-41335 (Fortinet): semver ranges per product, and "1.2.*" line bounds', () => {
    const [switchManager, fortiOs, fortiProxy] = cnaProducts('CVE-2022-41335') as [
      Cve5Product,
      Cve5Product,
      Cve5Product,
    ];
    expect(affectedStatus('7.2.0', switchManager).status).toBe('affected');
    expect(affectedStatus('7.2.1', switchManager).status).toBe('unaffected');
    expect(affectedStatus('7.2.2', fortiOs)).toMatchObject({ status: 'affected', confidence: 'exact' });
    expect(affectedStatus('7.2.3', fortiOs)).toMatchObject({ status: 'unaffected', confidence: 'exact' });
    expect(affectedStatus('6.4.11', fortiOs).status).toBe('affected');
    expect(affectedStatus('6.4.12', fortiOs).status).toBe('unaffected');
    expect(affectedStatus('6.0.9', fortiOs).status).toBe('unaffected');
    expect(affectedStatus('1.2.99', fortiProxy).status).toBe('affected'); // 1.2.0 <= v < 1.2.*
    expect(affectedStatus('2.0.12', fortiProxy).status).toBe('unaffected');
  });

  it('CVE-2020-7924 (MongoDB): custom ranges, and a "0*" line bound', () => {
    const [tools, mongomirror] = cnaProducts('CVE-2020-7924') as [Cve5Product, Cve5Product];
    expect(affectedStatus('4.2.10', tools)).toMatchObject({ status: 'affected', confidence: 'heuristic' });
    expect(affectedStatus('4.2.11', tools).status).toBe('unaffected');
    expect(affectedStatus('100.1.9', tools).status).toBe('affected');
    expect(affectedStatus('0.9.1', mongomirror).status).toBe('affected');
    expect(affectedStatus('1.0.0', mongomirror).status).toBe('unaffected');
  });

  it('CVE-2020-11053 / CVE-2020-5245 / CVE-2016-8318: ranges stuffed into "version", read leniently', () => {
    const [oauth2Proxy] = cnaProducts('CVE-2020-11053') as [Cve5Product];
    expect(affectedStatus('5.1.0', oauth2Proxy)).toMatchObject({ status: 'affected', confidence: 'heuristic' });
    expect(affectedStatus('5.1.1', oauth2Proxy).status).toBe('unknown'); // no defaultStatus
    const [dropwizard] = cnaProducts('CVE-2020-5245') as [Cve5Product];
    expect(affectedStatus('1.3.18', dropwizard).status).toBe('affected');
    expect(affectedStatus('2.0.1', dropwizard).status).toBe('affected');
    expect(affectedStatus('2.0.2', dropwizard).status).toBe('unknown');
    const [mysql] = cnaProducts('CVE-2016-8318') as [Cve5Product];
    expect(affectedStatus('5.7.16', mysql).status).toBe('affected');
  });

  it('CVE-2018-0824: the CNA says only "n/a"; the CISA ADP container lists Windows 10 1607', () => {
    const record = vulnrichmentRecord('CVE-2018-0824');
    expect(statusesFor('1607', record.containers.cna.affected ?? [])).toEqual(['unknown']);
    const adp = record.containers.adp?.find((a) => a.providerMetadata?.shortName === 'CISA-ADP');
    const windows1607 = (adp?.affected ?? [])[0]!;
    expect(affectedStatus('1607', windows1607).status).toBe('affected');
    expect(affectedStatus('1703', windows1607).status).toBe('unknown'); // defaultStatus unknown
  });

  it('CVE-2022-40705: the CNA bound "Apache SOAP*" is unreadable; the ADP range is "2.2 <= v < *"', () => {
    const record = vulnrichmentRecord('CVE-2022-40705');
    expect(statusesFor('2.3', record.containers.cna.affected ?? [])).toEqual(['unknown']);
    const adp = record.containers.adp?.find((a) => a.affected)?.affected ?? [];
    expect(affectedStatus('2.3', adp[0]!)).toMatchObject({ status: 'affected', confidence: 'heuristic' });
    expect(affectedStatus('2.1', adp[0]!).status).toBe('unknown'); // below 2.2, defaultStatus unknown
  });
});

// ---------------------------------------------------------------------------------------------
// Apache HTTP Server CNA records

interface HttpdRecord {
  cveMetadata?: { cveId: string };
  containers?: { cna: { affected: Cve5Product[] } };
  CVE_data_meta?: { ID: string };
  affects?: {
    vendor: {
      vendor_data: Array<{
        product: {
          product_data: Array<{
            version: { version_data: Array<{ version_affected?: string; version_value: string }> };
          }>;
        };
      }>;
    };
  };
}

const httpd: HttpdRecord[] = gunzipSync(readFileSync(new URL('vendor/apache_httpd_cna_cve_json.jsonl.gz', FIXTURE_URL)))
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));

const httpdRecord = (id: string) =>
  httpd.find((r) => (r.cveMetadata?.cveId ?? r.CVE_data_meta?.ID) === id) as HttpdRecord;

/**
 * The older CVE JSON 4.0 httpd records list versions as `=` (that release) or `<=` (up to it).
 * For these tests they are re-expressed as CVE 5 entries; httpd enumerates what is affected, so
 * anything else is unaffected.
 */
function productFromCve4(record: HttpdRecord): Cve5Product {
  const data =
    record.affects?.vendor.vendor_data.flatMap((v) => v.product.product_data.flatMap((p) => p.version.version_data)) ??
    [];
  const versions = data.map((d): Cve5VersionEntry => {
    if (d.version_affected === '=') return { version: d.version_value, status: 'affected' };
    if (d.version_affected === '<=')
      return { version: '0', lessThanOrEqual: d.version_value, versionType: 'semver', status: 'affected' };
    throw new Error(`unexpected version_affected ${d.version_affected}`);
  });
  return { versions, defaultStatus: 'unaffected' };
}

describe('affectedStatus on the Apache HTTP Server CNA records', () => {
  it('CVE-2021-41773 itself is not in the data set, so its sibling CVE-2021-41524 (2.4.49 only) stands in', () => {
    expect(httpdRecord('CVE-2021-41773')).toBeUndefined();
    const product41524 = productFromCve4(httpdRecord('CVE-2021-41524'));
    expect(affectedStatus('2.4.49', product41524)).toMatchObject({ status: 'affected', confidence: 'exact' });
    expect(affectedStatus('2.4.51', product41524)).toMatchObject({ status: 'unaffected', confidence: 'exact' });
    expect(affectedStatus('2.4.48', product41524).status).toBe('unaffected');
  });

  it('CVE-2021-44790 ("<= 2.4.51" in CVE 4.0 form)', () => {
    const product44790 = productFromCve4(httpdRecord('CVE-2021-44790'));
    expect(affectedStatus('2.4.49', product44790).status).toBe('affected');
    expect(affectedStatus('2.4.51', product44790).status).toBe('affected');
    expect(affectedStatus('2.4.52', product44790).status).toBe('unaffected');
  });

  const cve5Rows: Array<[string, string, string]> = [
    ['CVE-2023-31122', '2.4.57', 'affected'], // 0 <= v <= 2.4.57
    ['CVE-2023-31122', '2.4.58', 'unaffected'],
    ['CVE-2024-38476', '2.4.0', 'affected'], // 2.4.0 <= v <= 2.4.59
    ['CVE-2024-38476', '2.4.59', 'affected'],
    ['CVE-2024-38476', '2.4.60', 'unaffected'],
    ['CVE-2024-38476', '2.2.34', 'unaffected'],
    ['CVE-2025-58098', '2.4.65', 'affected'], // 0 <= v < 2.4.66
    ['CVE-2025-58098', '2.4.66', 'unaffected'],
    ['CVE-2024-39884', '2.4.60', 'affected'], // the single version 2.4.60
    ['CVE-2024-39884', '2.4.61', 'unaffected'],
    ['CVE-2006-20001', '2.4.54', 'affected'], // version "2.4" is not SemVer: vendor fallback
    ['CVE-2006-20001', '2.4.55', 'unaffected'],
    ['CVE-2006-20001', '2.2.34', 'unaffected'],
  ];
  it.each(cve5Rows)('%s: %s is %s', (id, version, status) => {
    const [apache] = (httpdRecord(id).containers?.cna.affected ?? []) as [Cve5Product];
    expect(affectedStatus(version, apache).status).toBe(status);
  });

  it('a "2.4" lower bound under semver is compared heuristically, and says so', () => {
    const [apache] = (httpdRecord('CVE-2006-20001').containers?.cna.affected ?? []) as [Cve5Product];
    expect(affectedStatus('2.4.54', apache).confidence).toBe('heuristic');
    const [exact] = (httpdRecord('CVE-2024-38476').containers?.cna.affected ?? []) as [Cve5Product];
    expect(affectedStatus('2.4.54', exact).confidence).toBe('exact');
  });

  it('evaluates every CVE 5 httpd record without throwing, and never calls 2.4.49 unknown', () => {
    for (const record of httpd.filter((r) => r.containers)) {
      for (const apache of record.containers?.cna.affected ?? []) {
        expect(affectedStatus('2.4.49', apache).status, record.cveMetadata?.cveId).not.toBe('unknown');
      }
    }
  });
});
