/**
 * Real CVE 5.1 records (test/fixtures/cve5-vulnrichment.sample.ndjson.gz): CNA and CISA-ADP
 * `affected[]` entries with CPEs. Expectations were read off the records (quoted in each row).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCpe } from '../cpe.js';
import { evaluateApplicability } from './evaluate.js';
import { applicabilityOfRecord } from './extract.js';
import type { ContextCpe, CveApplicability, CveEvidence } from './types.js';
import { fixture } from '../../../test/support/fixtures.js';
import { pathToFileURL } from 'node:url';

const DATA = pathToFileURL(fixture('cve5-vulnrichment.sample.ndjson.gz'));
const WANTED = [
  'CVE-1999-0006',
  'CVE-2020-15778',
  'CVE-2022-3996',
  'CVE-2022-26916',
  'CVE-2023-27522',
  'CVE-2024-39894',
];

const records = new Map<string, unknown>();

beforeAll(() => {
  const text = gunzipSync(readFileSync(DATA)).toString('utf8');
  for (const line of text.split('\n')) {
    const id = WANTED.find((cve) => line.includes(`"cveId": "${cve}"`) || line.includes(`"cveId":"${cve}"`));
    if (!id) continue;
    const record = JSON.parse(line) as { cveMetadata: { cveId: string } };
    if (record.cveMetadata.cveId === id) records.set(id, record);
  }
  expect([...records.keys()].sort()).toEqual([...WANTED].sort());
});

const app = (cve: string): CveApplicability => {
  const result = applicabilityOfRecord(records.get(cve), 'mitre-cvelist-v5');
  if (!result) throw new Error(`${cve}: no applicability`);
  return result;
};
const fp = (short: string): ContextCpe => ({
  cpe: `cpe:2.3:${short}`,
  wfn: parseCpe(`cpe:2.3:${short}`),
  role: 'fingerprint',
});
const os = (short: string): ContextCpe => ({ cpe: `cpe:2.3:${short}`, wfn: parseCpe(`cpe:2.3:${short}`), role: 'os' });
const summary = (e: CveEvidence) =>
  `${e.source}:${e.kind}/${e.configuration}/${e.confidence}/${e.confirmed ? 'confirmed' : 'unconfirmed'}`;

describe('CISA-ADP and CNA affected entries with CPEs (vulnrichment records)', () => {
  const rows: Array<{ rule: string; cve: string; context: ContextCpe[]; expected: string[] }> = [
    // CVE-2023-27522: CNA has no CPEs; CISA-ADP: apache:http_server:* with 2.4.30 <= v <= 2.4.55 (custom), defaultStatus unknown.
    {
      rule: 'CVE-2023-27522 httpd 2.4.49: inside the ADP range, custom → medium',
      cve: 'CVE-2023-27522',
      context: [fp('a:apache:http_server:2.4.49:*:*:*:*:*:*:*')],
      expected: ['adp:version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'CVE-2023-27522 httpd 2.4.55: at lessThanOrEqual',
      cve: 'CVE-2023-27522',
      context: [fp('a:apache:http_server:2.4.55:*:*:*:*:*:*:*')],
      expected: ['adp:version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'CVE-2023-27522 httpd 2.4.56: outside, and defaultStatus unknown keeps it unknown',
      cve: 'CVE-2023-27522',
      context: [fp('a:apache:http_server:2.4.56:*:*:*:*:*:*:*')],
      expected: ['adp:uncomparable/conditional/low/unconfirmed'],
    },
    // CVE-2020-15778: CISA-ADP openbsd:openssh:* with 0 <= v <= 8.3p1 (custom).
    {
      rule: 'CVE-2020-15778 openssh 8.3 p1: at lessThanOrEqual 8.3p1 (update folded)',
      cve: 'CVE-2020-15778',
      context: [fp('a:openbsd:openssh:8.3:p1:*:*:*:*:*:*')],
      expected: ['adp:version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'CVE-2020-15778 openssh 8.4 p1: past it, status unknown',
      cve: 'CVE-2020-15778',
      context: [fp('a:openbsd:openssh:8.4:p1:*:*:*:*:*:*')],
      expected: ['adp:uncomparable/conditional/low/unconfirmed'],
    },
    {
      rule: 'CVE-2020-15778 openssh without a version',
      cve: 'CVE-2020-15778',
      context: [fp('a:openbsd:openssh:*:*:*:*:*:*:*:*')],
      expected: ['adp:version_unknown/conditional/low/unconfirmed'],
    },
    // CVE-2024-39894: CISA-ADP openbsd:openssh:9.5:- (the range start, update NA) with 9.5 <= v <= 9.7 (custom).
    {
      rule: "CVE-2024-39894 openssh 9.6 p1: the versions decide, not the CPE's version 9.5 and update NA",
      cve: 'CVE-2024-39894',
      context: [fp('a:openbsd:openssh:9.6:p1:*:*:*:*:*:*')],
      expected: ['adp:version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'CVE-2024-39894 openssh 9.7 p1 is past lessThanOrEqual 9.7: unknown',
      cve: 'CVE-2024-39894',
      context: [fp('a:openbsd:openssh:9.7:p1:*:*:*:*:*:*')],
      expected: ['adp:uncomparable/conditional/low/unconfirmed'],
    },
    // CVE-2022-3996: CISA-ADP openssl:openssl:3.0.0 (the range start as the CPE version) with 3.0.0 <= v < 3.0.7 (custom); netapp entries with version NA.
    {
      rule: 'CVE-2022-3996 OpenSSL 3.0.5: the entry versions decide, not the CPE version 3.0.0',
      cve: 'CVE-2022-3996',
      context: [fp('a:openssl:openssl:3.0.5:*:*:*:*:*:*:*')],
      expected: ['adp:version_range/satisfied/medium/confirmed'],
    },
    {
      rule: 'CVE-2022-3996 ontap_9 9.8 against the NA CPE: never',
      cve: 'CVE-2022-3996',
      context: [fp('a:netapp:ontap_9:9.8:*:*:*:*:*:*:*')],
      expected: [],
    },
    // CVE-2022-26916: Microsoft CNA, CPEs carry the fixed build, versions 10.0.0 <= v < fixed (custom), platforms listed, no defaultStatus.
    {
      rule: 'CVE-2022-26916 Windows Server 2016 before the fixed build: affected, but only on the listed platforms',
      cve: 'CVE-2022-26916',
      context: [fp('o:microsoft:windows_server_2016:10.0.14393.4000:*:*:*:*:*:*:*')],
      expected: ['cna:version_range/conditional/low/unconfirmed'],
    },
    {
      rule: 'CVE-2022-26916 Windows Server 2016 at the fixed build (the CPE version): never confirmed',
      cve: 'CVE-2022-26916',
      context: [fp('o:microsoft:windows_server_2016:10.0.14393.5066:*:*:*:*:*:*:*')],
      expected: ['cna:uncomparable/conditional/low/unconfirmed'],
    },
    {
      rule: "CVE-2022-26916 as the host's OS guess: no evidence on the record",
      cve: 'CVE-2022-26916',
      context: [os('o:microsoft:windows_server_2016:10.0.14393.4000:*:*:*:*:*:*:*')],
      expected: [],
    },
    // CVE-1999-0006: CISA-ADP qualcomm:qpopper:2.4 with the single version 2.4 affected, defaultStatus unknown.
    {
      rule: 'CVE-1999-0006 qpopper 2.4: a single listed version',
      cve: 'CVE-1999-0006',
      context: [fp('a:qualcomm:qpopper:2.4:*:*:*:*:*:*:*')],
      expected: ['adp:exact_version/satisfied/high/confirmed'],
    },
  ];

  it.each(rows)('$rule', ({ cve, context, expected }) => {
    expect(evaluateApplicability(app(cve), context).map(summary)).toEqual(expected);
  });

  it('statements come from the containers that name CPEs, with the ADP provider', () => {
    expect(app('CVE-2023-27522').statements.map((s) => [s.source, s.provider, s.affected.length])).toEqual([
      ['adp', 'CISA-ADP', 1],
    ]);
    expect(app('CVE-2022-26916').statements.map((s) => [s.source, s.provider])).toEqual([['cna', 'microsoft']]);
  });

  it('the range text quotes the deciding entry', () => {
    const [row] = evaluateApplicability(app('CVE-2023-27522'), [fp('a:apache:http_server:2.4.49:*:*:*:*:*:*:*')]);
    expect(row).toMatchObject({
      criterion: 'cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*',
      range: '2.4.30 <= v <= 2.4.55 (custom)',
    });
  });
});
