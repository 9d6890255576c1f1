import { describe, expect, it } from 'vitest';
import { UUID_NAMESPACES, uuidV5 } from '../uuid.js';
import { FEED_NAMESPACE, feedProvenance, withProvenance } from './provenance.js';

// Expected org ids from Python: uuid.uuid5(uuid.UUID(FEED_NAMESPACE), name).
const FEEDS: Array<[string, string, string]> = [
  ['mitre-cvelist-v5', '407efa4b-3b78-5d7a-9865-09af73908873', 'mitre-cvelist-v5'],
  ['nist-nvd2', 'df30bc48-3ff2-527d-8de7-1b477a9f3828', 'nist-nvd2'],
  ['cisa-kev', 'e90e4dbb-2229-5f9f-9454-7616ddf82fc9', 'cisa-kev'],
  ['go-vulndb', 'a8574c52-4429-510c-84f8-9a9716c36e1b', 'go-vulndb'],
  ['pypa', 'cf28c84d-148e-5925-97d6-13150a0e130e', 'pypa'],
  ['rustsec', '1358d6c0-914b-59df-b546-e856b748566d', 'rustsec'],
  ['kev-local', 'c4f1771c-20f2-50f3-9244-a134ca942fda', 'kev-local'],
  // CVE 5 short names are at most 32 characters; the org id still names the whole feed.
  ['a-feed-name-longer-than-thirty-two-characters', '', 'a-feed-name-longer-than-thirty-t'],
];

describe('feedProvenance', () => {
  it.each(FEEDS)('%s', (feed, orgId, shortName) => {
    const provenance = feedProvenance(feed);
    expect(provenance.orgId).toBe(orgId || uuidV5(FEED_NAMESPACE, feed));
    expect(provenance.shortName).toBe(shortName);
  });

  it('is a version-5 UUID in a namespace that is not one of the RFC ones', () => {
    expect(feedProvenance('cisa-kev').orgId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(Object.values(UUID_NAMESPACES)).not.toContain(FEED_NAMESPACE);
  });
});

type Json = Record<string, unknown>;
const CNA_ORG = '8254265b-2729-46b6-b9e3-3dfca2d5bfca';
const KEV = feedProvenance('cisa-kev');

const record = (cveMetadata: Json, cna: Json): Json => ({
  dataType: 'CVE_RECORD',
  dataVersion: '5.0',
  cveMetadata: { cveId: 'CVE-2024-0001', state: 'PUBLISHED', ...cveMetadata },
  containers: { cna: { title: 't', ...cna } },
});

/** Input (cveMetadata extras, cna extras) → expected assignerOrgId and providerMetadata. */
const CASES: Array<[string, Json, Json, string, Json]> = [
  ['nothing named: all from the feed', {}, {}, KEV.orgId, { orgId: KEV.orgId, shortName: KEV.shortName }],
  [
    'a provider with a date only: the feed, date kept first',
    {},
    { providerMetadata: { dateUpdated: '2024-01-01T00:00:00Z' } },
    KEV.orgId,
    { dateUpdated: '2024-01-01T00:00:00Z', orgId: KEV.orgId, shortName: KEV.shortName },
  ],
  [
    'an assigner named (NVD sourceIdentifier UUID): kept; the provider is the feed',
    { assignerOrgId: CNA_ORG },
    {},
    CNA_ORG,
    { orgId: KEV.orgId, shortName: KEV.shortName },
  ],
  [
    'a CVE 5 record: everything its own',
    { assignerOrgId: CNA_ORG },
    { providerMetadata: { orgId: CNA_ORG, shortName: 'mitre' } },
    CNA_ORG,
    { orgId: CNA_ORG, shortName: 'mitre' },
  ],
  [
    'a provider org id without a short name: no short name is made up for it',
    { assignerOrgId: CNA_ORG },
    { providerMetadata: { orgId: CNA_ORG } },
    CNA_ORG,
    { orgId: CNA_ORG },
  ],
  [
    'a provider short name without an org id: the name stays, the org id is the feed',
    {},
    { providerMetadata: { shortName: 'acme' } },
    KEV.orgId,
    { shortName: 'acme', orgId: KEV.orgId },
  ],
  [
    'empty strings are not names',
    { assignerOrgId: ' ' },
    { providerMetadata: { orgId: '', shortName: '' } },
    KEV.orgId,
    { orgId: KEV.orgId, shortName: KEV.shortName },
  ],
];

describe('withProvenance', () => {
  it.each(CASES)('%s', (_label, meta, cna, assignerOrgId, providerMetadata) => {
    const input = record(meta, cna);
    const before = JSON.stringify(input);
    const output = withProvenance(input, 'cisa-kev') as {
      cveMetadata: Json;
      containers: { cna: Json };
    };
    expect(output.cveMetadata.assignerOrgId).toBe(assignerOrgId);
    expect(output.containers.cna.providerMetadata).toEqual(providerMetadata);
    // Member order kept, additions last: a filled record serialises the same way wherever it is filled.
    expect(Object.keys(output.containers.cna.providerMetadata as Json)).toEqual(Object.keys(providerMetadata));
    expect(JSON.stringify(input)).toBe(before);
    expect(JSON.stringify(withProvenance(output, 'cisa-kev'))).toBe(JSON.stringify(output));
  });

  it('returns a complete record itself', () => {
    const input = record({ assignerOrgId: CNA_ORG }, { providerMetadata: { orgId: CNA_ORG, shortName: 'mitre' } });
    expect(withProvenance(input, 'cisa-kev')).toBe(input);
  });

  it.each([null, 'text', [], {}, { cveMetadata: {}, containers: {} }])('leaves %j alone', (value) => {
    expect(withProvenance(value, 'cisa-kev')).toBe(value);
  });
});
