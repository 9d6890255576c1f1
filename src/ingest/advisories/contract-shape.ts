/**
 * The property types of the contract's `advisory.*` schemas (vulncheck-openapi.subset.json), as
 * data: the adapters move every member whose type conflicts with them to an `x_<name>` member
 * beside it. The schemas only declare `type`/`items`/`$ref` (no required, no enums, no formats), so
 * types are all that can conflict. `contract-shape.test.ts` checks this transcription against the
 * contract file.
 */

export type Primitive = 'string' | 'number' | 'integer' | 'boolean' | 'object';
export type Shape = Primitive | ObjectShape | ArrayShape;
export interface ObjectShape {
  kind: 'object';
  props: Record<string, Shape>;
}
export interface ArrayShape {
  kind: 'array';
  items: Shape;
}

const obj = (props: Record<string, Shape>): ObjectShape => ({ kind: 'object', props });
const arr = (items: Shape): ArrayShape => ({ kind: 'array', items });

const ProgramRoutine = obj({ name: 'string' });
const VersionChange = obj({ at: 'string', status: 'string' });
const MVersion = obj({
  changes: arr(VersionChange),
  lessThan: 'string',
  lessThanOrEqual: 'string',
  status: 'string',
  version: 'string',
  versionType: 'string',
});
const MAffected = obj({
  collectionURL: 'string',
  cpes: arr('string'),
  defaultStatus: 'string',
  modules: arr('string'),
  packageName: 'string',
  packageURL: 'string',
  platforms: arr('string'),
  product: 'string',
  programFiles: arr('string'),
  programRoutines: arr(ProgramRoutine),
  repo: 'string',
  vendor: 'string',
  versions: arr(MVersion),
});
const MDescriptions = obj({ lang: 'string', value: 'string' });
const MCPEMatch = obj({
  criteria: 'string',
  matchCriteriaId: 'string',
  versionEndExcluding: 'string',
  versionEndIncluding: 'string',
  versionStartExcluding: 'string',
  versionStartIncluding: 'string',
  vulnerable: 'boolean',
});
const MNodes = obj({ cpeMatch: arr(MCPEMatch), negate: 'boolean', operator: 'string' });
const MCPEApplicability = obj({ negate: 'boolean', nodes: arr(MNodes), operator: 'string' });
const CustomCPE = obj({ mcpeapplicability: MCPEApplicability, stringValue: 'string' });
const Credit = obj({ lang: 'string', type: 'string', user: 'string', value: 'string' });
const Impact = obj({ capecId: 'string', descriptions: arr(MDescriptions) });
const MCvssV20 = obj({
  accessVector: 'string',
  attackComplexity: 'string',
  authentication: 'string',
  availabilityImpact: 'string',
  baseScore: 'number',
  confidentialityImpact: 'string',
  integrityImpact: 'string',
  vectorString: 'string',
  version: 'string',
});
const MCvssV30 = obj({
  attackComplexity: 'string',
  attackVector: 'string',
  availabilityImpact: 'string',
  baseScore: 'number',
  baseSeverity: 'string',
  confidentialityImpact: 'string',
  integrityImpact: 'string',
  privilegesRequired: 'string',
  scope: 'string',
  userInteraction: 'string',
  vectorString: 'string',
  version: 'string',
});
const MCvssV31 = obj({
  attackComplexity: 'string',
  attackVector: 'string',
  availabilityImpact: 'string',
  baseScore: 'number',
  baseSeverity: 'string',
  confidentialityImpact: 'string',
  integrityImpact: 'string',
  privilegesRequired: 'string',
  scope: 'string',
  userInteraction: 'string',
  vectorString: 'string',
  version: 'string',
});
const MCvssV40 = obj({
  attackComplexity: 'string',
  attackRequirements: 'string',
  attackVector: 'string',
  automatable: 'string',
  baseScore: 'number',
  baseSeverity: 'string',
  privilegesRequired: 'string',
  providerUrgency: 'string',
  recovery: 'string',
  safety: 'string',
  subAvailabilityImpact: 'string',
  subConfidentialityImpact: 'string',
  subIntegrityImpact: 'string',
  userInteraction: 'string',
  valueDensity: 'string',
  vectorString: 'string',
  version: 'string',
  vulnAvailabilityImpact: 'string',
  vulnConfidentialityImpact: 'string',
  vulnIntegrityImpact: 'string',
  vulnerabilityResponseEffort: 'string',
});
const MetricsOther = obj({ content: 'object', type: 'string' });
const MetricScenario = obj({ lang: 'string', value: 'string' });
const Metric = obj({
  cvssV2_0: MCvssV20,
  cvssV3_0: MCvssV30,
  cvssV3_1: MCvssV31,
  cvssV4_0: MCvssV40,
  format: 'string',
  other: MetricsOther,
  scenarios: arr(MetricScenario),
});
const MReference = obj({ name: 'string', tags: arr('string'), url: 'string' });
const PTMDescriptions = obj({
  cweId: 'string',
  description: 'string',
  lang: 'string',
  references: arr(MReference),
  type: 'string',
});
const MProblemTypes = obj({ descriptions: arr(PTMDescriptions) });
const MProviderMetadata = obj({ dateUpdated: 'string', orgId: 'string', shortName: 'string' });
const TaxonomyRelation = obj({ relationshipName: 'string', relationshipValue: 'string', taxonomyId: 'string' });
const TaxonomyMapping = obj({
  taxonomyName: 'string',
  taxonomyRelations: arr(TaxonomyRelation),
  taxonomyVersion: 'string',
});
const Timeline = obj({ lang: 'string', time: 'string', value: 'string' });
const ADPContainer = obj({
  affected: arr(MAffected),
  configurations: arr(MDescriptions),
  cpeApplicability: arr(CustomCPE),
  credits: arr(Credit),
  datePublic: 'string',
  descriptions: arr(MDescriptions),
  exploits: arr(MDescriptions),
  impacts: arr(Impact),
  metrics: arr(Metric),
  problemTypes: arr(MProblemTypes),
  providerMetadata: MProviderMetadata,
  references: arr(MReference),
  solutions: arr(MDescriptions),
  source: arr('integer'),
  tags: arr('string'),
  taxonomyMappings: arr(TaxonomyMapping),
  timeline: arr(Timeline),
  title: 'string',
  workarounds: arr(MDescriptions),
});
const MCna = obj({
  affected: arr(MAffected),
  configurations: arr(MDescriptions),
  cpeApplicability: arr(CustomCPE),
  credits: arr(Credit),
  dateAssigned: 'string',
  datePublic: 'string',
  descriptions: arr(MDescriptions),
  exploits: arr(MDescriptions),
  impacts: arr(Impact),
  metrics: arr(Metric),
  problemTypes: arr(MProblemTypes),
  providerMetadata: MProviderMetadata,
  references: arr(MReference),
  rejectedReasons: arr(MDescriptions),
  replacedBy: arr('string'),
  solutions: arr(MDescriptions),
  source: arr('integer'),
  tags: arr('string'),
  taxonomyMappings: arr(TaxonomyMapping),
  timeline: arr(Timeline),
  title: 'string',
  workarounds: arr(MDescriptions),
});
const MContainers = obj({ adp: arr(ADPContainer), cna: MCna });
const MCveMetadata = obj({
  assignerOrgId: 'string',
  assignerShortName: 'string',
  cveId: 'string',
  datePublished: 'string',
  dateRejected: 'string',
  dateReserved: 'string',
  dateUpdated: 'string',
  requesterUserId: 'string',
  serial: 'integer',
  state: 'string',
});
const MitreCVEListV5Ref = obj({
  containers: MContainers,
  cveMetadata: MCveMetadata,
  dataType: 'string',
  dataVersion: 'string',
});

/** Every `advisory.*` component schema, by name without the `advisory.` prefix. */
export const ADVISORY_SHAPES: Record<string, ObjectShape> = {
  ProgramRoutine,
  VersionChange,
  MVersion,
  MAffected,
  MDescriptions,
  MCPEMatch,
  MNodes,
  MCPEApplicability,
  CustomCPE,
  Credit,
  Impact,
  MCvssV20,
  MCvssV30,
  MCvssV31,
  MCvssV40,
  MetricsOther,
  MetricScenario,
  Metric,
  MReference,
  PTMDescriptions,
  MProblemTypes,
  MProviderMetadata,
  TaxonomyRelation,
  TaxonomyMapping,
  Timeline,
  ADPContainer,
  MCna,
  MContainers,
  MCveMetadata,
  MitreCVEListV5Ref,
};

export const RECORD_SHAPE = MitreCVEListV5Ref;
