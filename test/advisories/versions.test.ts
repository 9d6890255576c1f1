import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { ADVISORY, advisory, cveIds, loadRecords } from './support.js';

/** The `version` filter through the API: CVE 5 `affected` semantics per version type. */
const RECORDS = [
  // semver range with an exclusive bound, and a second range with an inclusive one
  advisory('CVE-2024-1001', {
    affected: [
      {
        vendor: 'Acme',
        product: 'Widget',
        versions: [
          { version: '1.0.0', lessThan: '1.4.2', versionType: 'semver', status: 'affected' },
          { version: '2.0.0', lessThanOrEqual: '2.1.0', versionType: 'semver', status: 'affected' },
        ],
        defaultStatus: 'unaffected',
      },
    ],
  }),
  // changes: affected from 3.0.0, fixed in 3.2.0 — listed out of order, re-sorted as the schema requires
  advisory('CVE-2024-1002', {
    affected: [
      {
        vendor: 'Acme',
        product: 'Widget',
        versions: [
          {
            version: '3.0.0',
            lessThan: '*',
            versionType: 'semver',
            status: 'affected',
            changes: [
              { at: '3.2.0', status: 'unaffected' },
              { at: '3.1.0', status: 'affected' },
            ],
          },
        ],
      },
    ],
  }),
  // defaultStatus: every version affected except one
  advisory('CVE-2024-1003', {
    affected: [
      {
        vendor: 'Acme',
        product: 'Legacy',
        versions: [{ version: '1.4.1', status: 'unaffected' }],
        defaultStatus: 'affected',
      },
    ],
  }),
  // git: commit ranges cannot be decided for a release version
  advisory('CVE-2024-1004', {
    affected: [
      {
        vendor: 'Linux',
        product: 'Linux',
        versions: [{ version: '1da177e4c3f4', lessThan: '5f2e8a9c1b2d', versionType: 'git', status: 'affected' }],
      },
    ],
  }),
  // custom: the vendor's own scheme, ordered only by a guess
  advisory('CVE-2024-1005', {
    affected: [
      {
        vendor: 'Acme',
        product: 'Gizmo',
        versions: [{ version: '0', lessThan: '9.0', versionType: 'custom', status: 'affected' }],
      },
    ],
  }),
  // Python (PEP 440) range on a package, and a Maven one
  advisory('CVE-2024-1006', {
    affected: [
      {
        collectionURL: 'https://pypi.org',
        packageName: 'acme-lib',
        versions: [{ version: '0', lessThan: '1.4.2rc1', versionType: 'python', status: 'affected' }],
        defaultStatus: 'unaffected',
      },
      {
        packageURL: 'pkg:maven/org.acme/acme-core',
        packageName: 'org.acme:acme-core',
        versions: [{ version: '1.0', lessThan: '1.4.2', versionType: 'maven', status: 'affected' }],
        defaultStatus: 'unaffected',
      },
    ],
  }),
  // another vendor at the same versions: only found without a vendor filter
  advisory('CVE-2024-1007', {
    affected: [{ vendor: 'Other', product: 'Thing', versions: [{ version: '1.4.1', status: 'affected' }] }],
  }),
];

describe.each(engineCases())('/v4/advisory version semantics ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadRecords(t.storage, 'versions', RECORDS);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each<[string, string, string[]]>([
    ['semver inside the first range', 'version=1.4.1', ['CVE-2024-1001', 'CVE-2024-1006', 'CVE-2024-1007']],
    ['semver lessThan is exclusive', 'version=1.4.2&vendor=acme', ['CVE-2024-1003']],
    ['semver pre-release below the bound', 'version=1.4.2-rc.1&vendor=acme&product=widget', ['CVE-2024-1001']],
    ['lessThanOrEqual includes the bound', 'version=2.1.0&vendor=acme&product=widget', ['CVE-2024-1001']],
    ['above lessThanOrEqual', 'version=2.1.1&vendor=acme&product=widget', []],
    ['changes: affected before the first change', 'version=3.0.9&product=widget', ['CVE-2024-1002']],
    ['changes: still affected at 3.1.x', 'version=3.1.4&product=widget', ['CVE-2024-1002']],
    ['changes: unaffected from 3.2.0', 'version=3.2.0&product=widget', []],
    ['defaultStatus affected', 'version=7.0.0&product=legacy', ['CVE-2024-1003']],
    ['defaultStatus affected, but this version unaffected', 'version=1.4.1&product=legacy', []],
    ['git ranges never match', 'version=5.10.0&vendor=linux', []],
    ['custom ranges never match', 'version=4.0&product=gizmo', []],
    ['PEP 440 pre-release ordering (1.4.2rc1 bound)', 'package_name=acme-lib&version=1.4.2b1', ['CVE-2024-1006']],
    ['PEP 440 at the bound', 'package_name=acme-lib&version=1.4.2rc1', []],
    ['purl version acts as version (PyPI)', 'purl=pkg:pypi/acme_lib@1.4.1', ['CVE-2024-1006']],
    ['purl version (Maven)', 'purl=pkg:maven/org.acme/acme-core@1.4.1', ['CVE-2024-1006']],
    ['purl version outside (Maven)', 'purl=pkg:maven/org.acme/acme-core@1.4.2', []],
    ['version checked against the filtered vendor only', 'version=1.4.1&vendor=other', ['CVE-2024-1007']],
  ])('%s', async (_label, query, expected) => {
    const response = await t.get(`${ADVISORY}?name=versions&${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(cveIds(response.body)).toEqual(expected);
    expect(response.body._meta.filtered).toBe(expected.length);
    expect(response.body._meta.total).toBe(RECORDS.length);
  });

  it.each<[string, RegExp]>([
    ['version=*', /parameter "version" must be a concrete version/],
    ['version=n/a', /parameter "version" must be a concrete version/],
    ['purl=pkg:pypi/acme-lib@latest', /parameter "purl" must be a concrete version/],
    ['purl=pypi/acme-lib', /parameter "purl": invalid purl/],
    ['purl=pkg:pypi/acme-lib@1.0&version=2.0', /parameters "purl" and "version" name different versions/],
    ['cpe=cpe:2.3:a:*:*', /parameter "cpe" must name a vendor or a product/],
    ['cpe=not-a-cpe', /parameter "cpe"/],
  ])('400 for %s', async (query, message) => {
    const response = await t.get(`${ADVISORY}?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: true, errors: [expect.stringMatching(message)] });
  });
});
