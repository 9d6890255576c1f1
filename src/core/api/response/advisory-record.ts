/**
 * The CVE record as `/v4/advisory` serves it: CVE JSON 5 narrowed to the types of VulnCheck's
 * `advisory.*` schemas (CONTRACT.md §2.3). Records pass through from the feeds, so every object is
 * open: a member whose source type conflicts with these is served beside it as `x_<name>`.
 */
import { type Static, type TProperties, Type } from '@sinclair/typebox';

const Str = Type.String();
const Strings = Type.Array(Str);
const Obj = (properties: TProperties, $id: string) => Type.Object(properties, { $id });
const Opt = Type.Optional;

const LangValue = Obj({ lang: Opt(Str), value: Opt(Str) }, 'AdvisoryText');
const Texts = Opt(Type.Array(LangValue));

const Version = Obj(
  {
    version: Opt(Str),
    versionType: Opt(Str),
    status: Opt(Str),
    lessThan: Opt(Str),
    lessThanOrEqual: Opt(Str),
    changes: Opt(Type.Array(Type.Object({ at: Opt(Str), status: Opt(Str) }))),
  },
  'AdvisoryVersion',
);

const Affected = Obj(
  {
    vendor: Opt(Str),
    product: Opt(Str),
    collectionURL: Opt(Str),
    packageName: Opt(Str),
    packageURL: Opt(Str),
    repo: Opt(Str),
    cpes: Opt(Strings),
    modules: Opt(Strings),
    programFiles: Opt(Strings),
    programRoutines: Opt(Type.Array(Type.Object({ name: Opt(Str) }))),
    platforms: Opt(Strings),
    defaultStatus: Opt(Str),
    versions: Opt(Type.Array(Version)),
  },
  'AdvisoryAffected',
);

const Reference = Obj({ url: Opt(Str), name: Opt(Str), tags: Opt(Strings) }, 'AdvisoryReference');

const ProblemType = Obj(
  {
    descriptions: Opt(
      Type.Array(
        Type.Object({
          cweId: Opt(Str),
          description: Opt(Str),
          lang: Opt(Str),
          type: Opt(Str),
          references: Opt(Type.Array(Reference)),
        }),
      ),
    ),
  },
  'AdvisoryProblemType',
);

/** A CVSS object: the vector, the score and the metric names of its version, all strings but the score. */
const Cvss = (names: string[], $id: string) =>
  Obj(
    {
      ...Object.fromEntries(names.map((name) => [name, Opt(Str)])),
      version: Opt(Str),
      vectorString: Opt(Str),
      baseScore: Opt(Type.Number()),
    },
    $id,
  );
const CVSS3 = [
  'attackVector',
  'attackComplexity',
  'privilegesRequired',
  'userInteraction',
  'scope',
  'confidentialityImpact',
  'integrityImpact',
  'availabilityImpact',
  'baseSeverity',
];

const Metric = Obj(
  {
    format: Opt(Str),
    scenarios: Texts,
    cvssV2_0: Opt(
      Cvss(
        [
          'accessVector',
          'attackComplexity',
          'authentication',
          'confidentialityImpact',
          'integrityImpact',
          'availabilityImpact',
        ],
        'CvssV2',
      ),
    ),
    cvssV3_0: Opt(Cvss(CVSS3, 'CvssV30')),
    cvssV3_1: Opt(Cvss(CVSS3, 'CvssV31')),
    cvssV4_0: Opt(
      Cvss(
        [
          'attackVector',
          'attackComplexity',
          'attackRequirements',
          'privilegesRequired',
          'userInteraction',
          'vulnConfidentialityImpact',
          'vulnIntegrityImpact',
          'vulnAvailabilityImpact',
          'subConfidentialityImpact',
          'subIntegrityImpact',
          'subAvailabilityImpact',
          'automatable',
          'recovery',
          'safety',
          'valueDensity',
          'vulnerabilityResponseEffort',
          'providerUrgency',
          'baseSeverity',
        ],
        'CvssV40',
      ),
    ),
    other: Opt(Type.Object({ type: Opt(Str), content: Opt(Type.Object({})) })),
  },
  'AdvisoryMetric',
);

const CpeMatch = Type.Object({
  criteria: Opt(Str),
  matchCriteriaId: Opt(Str),
  vulnerable: Opt(Type.Boolean()),
  versionStartIncluding: Opt(Str),
  versionStartExcluding: Opt(Str),
  versionEndIncluding: Opt(Str),
  versionEndExcluding: Opt(Str),
});

/** CVE 5.1 `cpeApplicability`, wrapped as VulnCheck's Go type serialises it. */
const CpeApplicability = Obj(
  {
    mcpeapplicability: Opt(
      Type.Object({
        operator: Opt(Str),
        negate: Opt(Type.Boolean()),
        nodes: Opt(
          Type.Array(
            Type.Object({ operator: Opt(Str), negate: Opt(Type.Boolean()), cpeMatch: Opt(Type.Array(CpeMatch)) }),
          ),
        ),
      }),
    ),
    stringValue: Opt(Str),
  },
  'AdvisoryCpeApplicability',
);

const TaxonomyMapping = Obj(
  {
    taxonomyName: Opt(Str),
    taxonomyVersion: Opt(Str),
    taxonomyRelations: Opt(
      Type.Array(Type.Object({ taxonomyId: Opt(Str), relationshipName: Opt(Str), relationshipValue: Opt(Str) })),
    ),
  },
  'AdvisoryTaxonomyMapping',
);

/** What the CNA container and every ADP container may hold. */
const CONTAINER = {
  title: Opt(Str),
  descriptions: Texts,
  affected: Opt(Type.Array(Affected)),
  references: Opt(Type.Array(Reference)),
  problemTypes: Opt(Type.Array(ProblemType)),
  metrics: Opt(Type.Array(Metric)),
  providerMetadata: Opt(
    Obj({ orgId: Opt(Str), shortName: Opt(Str), dateUpdated: Opt(Str) }, 'AdvisoryProviderMetadata'),
  ),
  credits: Opt(Type.Array(Obj({ lang: Opt(Str), value: Opt(Str), type: Opt(Str), user: Opt(Str) }, 'AdvisoryCredit'))),
  impacts: Opt(Type.Array(Obj({ capecId: Opt(Str), descriptions: Texts }, 'AdvisoryImpact'))),
  configurations: Texts,
  workarounds: Texts,
  solutions: Texts,
  exploits: Texts,
  timeline: Opt(Type.Array(Obj({ lang: Opt(Str), time: Opt(Str), value: Opt(Str) }, 'AdvisoryTimelineEntry'))),
  taxonomyMappings: Opt(Type.Array(TaxonomyMapping)),
  cpeApplicability: Opt(Type.Array(CpeApplicability)),
  datePublic: Opt(Str),
  tags: Opt(Strings),
  source: Opt(
    Type.Array(Type.Integer(), { description: "VulnCheck's type; a CVE 5 `source` object is served as `x_source`" }),
  ),
};

const Cna = Type.Object(
  {
    ...CONTAINER,
    dateAssigned: Opt(Str),
    rejectedReasons: Opt(Type.Array(LangValue, { description: 'Only on REJECTED records' })),
    replacedBy: Opt(Type.Array(Str, { description: 'Only on REJECTED records' })),
  },
  { $id: 'AdvisoryCna', description: "The CNA's container" },
);

const Adp = Type.Object(CONTAINER, { $id: 'AdvisoryAdp', description: 'An ADP container (CISA-ADP, …)' });

/** One advisory (VulnCheck's `advisory.MitreCVEListV5Ref`). */
export const AdvisoryRecord = Type.Object(
  {
    dataType: Type.Literal('CVE_RECORD'),
    dataVersion: Type.Literal('5.0', { description: "A source's other version is kept as `x_dataVersion`" }),
    cveMetadata: Type.Object(
      {
        cveId: Type.String({
          description: 'The CVE id, or the advisory id (GO-2022-0001, …) of a record without one',
          minLength: 1,
        }),
        state: Type.String({ description: 'PUBLISHED or REJECTED' }),
        assignerOrgId: Opt(Str),
        assignerShortName: Opt(Str),
        requesterUserId: Opt(Str),
        serial: Opt(Type.Integer()),
        dateReserved: Opt(Str),
        datePublished: Opt(Str),
        dateUpdated: Opt(Str),
        dateRejected: Opt(Str),
      },
      { $id: 'AdvisoryMetadata' },
    ),
    containers: Type.Object({ cna: Cna, adp: Opt(Type.Array(Adp)) }, { $id: 'AdvisoryContainers' }),
  },
  { $id: 'AdvisoryRecord' },
);
export type AdvisoryRecord = Static<typeof AdvisoryRecord>;
