import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engineCases } from '../support/engines.js';
import { ADVISORY, advisory, cveIds, loadRecords } from './support.js';

/**
 * Which version and CPE queries are answered and which are refused, on both engines: a `cpe` must
 * name a vendor or a product without wildcards (they select the criteria to compare); a `version`
 * without any product is answered through the structure that holds every product.
 */
const RECORDS = [
  advisory('CVE-2024-2001', {
    affected: [
      {
        vendor: 'Apache',
        product: 'HTTP Server',
        cpes: ['cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*'],
        versions: [{ version: '2.4.0', lessThan: '2.4.50', versionType: 'semver', status: 'affected' }],
      },
    ],
  }),
  advisory('CVE-2024-2002', {
    affected: [
      {
        vendor: 'Apache',
        product: 'Tomcat',
        cpes: ['cpe:2.3:a:apache:tomcat:*:*:*:*:*:*:*:*'],
        versions: [{ version: '9.0.0', lessThan: '9.0.80', versionType: 'semver', status: 'affected' }],
      },
    ],
  }),
];

describe.each(engineCases())('/v4/advisory version and cpe scope ($name)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
    await loadRecords(t.storage, 'scope', RECORDS);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each<[string, string, string[]]>([
    ['version alone: every product', 'version=2.4.49', ['CVE-2024-2001']],
    ['version with a vendor: its products', 'vendor=apache&version=9.0.1', ['CVE-2024-2002']],
    ['cpe with a concrete vendor, product ANY', 'cpe=cpe:2.3:a:apache:*:2.4.49', ['CVE-2024-2001']],
    ['cpe with a concrete vendor, product pattern', 'cpe=cpe:2.3:a:apache:tom*:9.0.1', ['CVE-2024-2002']],
    ['cpe with vendor ANY, concrete product', 'cpe=cpe:2.3:a:*:http_server:2.4.49', ['CVE-2024-2001']],
    ['cpe with a vendor pattern, concrete product', 'cpe=cpe:2.3:a:apa*:tomcat', ['CVE-2024-2002']],
  ])('%s', async (_label, query, expected) => {
    const response = await t.get(`${ADVISORY}?name=scope&${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(cveIds(response.body)).toEqual(expected);
  });

  const refusal =
    /^parameter "cpe" must name a vendor or a product without wildcards \(e\.g\. cpe:2\.3:a:apache:http_server:\*\)$/;
  it.each<string>([
    'cpe=cpe:2.3:a:*:*',
    'cpe=cpe:2.3:a:*:*:2.4.49',
    'cpe=cpe:2.3:a:apa*:*:2.4.49',
    'cpe=cpe:2.3:a:*:http_serv*',
    'cpe=cpe:2.3:a:apa*:http*',
    'cpe=cpe:2.3:a:-:-',
  ])('400 for %s', async (query) => {
    const response = await t.get(`${ADVISORY}?name=scope&${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: true, errors: [expect.stringMatching(refusal)] });
  });
});
