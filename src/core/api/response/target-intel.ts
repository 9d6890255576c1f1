import { type Static, type TOptional, Type } from '@sinclair/typebox';
import { Benchmark, Count, ExportEnd, FilterMatch, Instant } from './common.js';

/** One piece of software identified on the port; scanners add fields of their own (service, banner), always strings. */
export const Fingerprint = Type.Object(
  {
    cpe: Type.Optional(Type.String({ description: 'CPE 2.3 formatted string' })),
    vendor: Type.Optional(Type.String()),
    product: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
  },
  { $id: 'Fingerprint', additionalProperties: Type.String() },
);

const Literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { description },
  );

/** Why a record carries (or might carry) a CVE: from `explain=true`. */
export const CveEvidence = Type.Object(
  {
    cve: Type.String({ description: 'The CVE' }),
    source: Literals(['nvd', 'cna', 'adp', 'scanner'] as const, 'Who states it; `scanner` for a CVE the scan reported'),
    kind: Literals(
      [
        'exact_version',
        'version_range',
        'all_versions',
        'version_unknown',
        'uncomparable',
        'version_family',
        'scanner_reported',
      ] as const,
      "How the criterion relates to the record's version",
    ),
    confirmed: Type.Boolean({ description: 'Counts for `cve`, `contains_cve` and the `confirmed` filter' }),
    confidence: Literals(['high', 'medium', 'low'] as const, 'How sure the match is'),
    cpe: Type.Optional(Type.String({ description: "The record's CPE that matched" })),
    alias: Type.Optional(
      Type.String({ description: "The renamed name that matched, when the record's CPE was renamed" }),
    ),
    criterion: Type.Optional(
      Type.String({ description: 'The matched criterion (CPE match string or CVE 5 affected CPE)' }),
    ),
    range: Type.Optional(Type.String({ description: 'The version bounds that decided, as text' })),
    vulnerable: Type.Optional(
      Type.Boolean({ description: "The record's CPE is the vulnerable element, not a platform" }),
    ),
    configuration: Type.Optional(
      Literals(
        ['satisfied', 'conditional'] as const,
        '`conditional`: an AND configuration needs more than the record shows',
      ),
    ),
  },
  { $id: 'CveEvidence' },
);

/** One exposed service (VulnCheck's `api.TargetIntel`); enrichment fields appear only when known. */
export const TargetIntelRecord = Type.Object(
  {
    ip: Type.String({ description: 'IPv4 or IPv6 address' }),
    hostname: Type.String({ description: 'The most authoritative hostname reported; "" when none' }),
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
    timestamp: Instant('When the service was last observed'),
    date_added: Instant("When the record's first stored observation was made"),
    protocol: Literals(['tcp', 'udp'] as const, 'Transport protocol'),
    cpe: Type.Array(Type.String(), { description: 'Distinct CPEs of the fingerprints' }),
    cve: Type.Union([Type.Array(Type.String(), { minItems: 1 }), Type.Null()], {
      description:
        'CVEs of the service (scanner-reported and knowledge-confirmed); null when none, as VulnCheck serves it',
    }),
    vendor: Type.Array(Type.String(), { description: 'Distinct vendors of the fingerprints, without wildcards' }),
    product: Type.Array(Type.String(), { description: 'Distinct products of the fingerprints, without wildcards' }),
    version: Type.Array(Type.String(), { description: 'Distinct versions of the fingerprints, without wildcards' }),
    fingerprints: Type.Array(Fingerprint),
    contains_cve: Type.Boolean({ description: 'Whether `cve` lists any CVE' }),
    asn: Type.Optional(Type.String({ description: 'Autonomous system, AS<number>', pattern: '^AS\\d+$' })),
    as_name: Type.Optional(Type.String()),
    as_domain: Type.Optional(Type.String()),
    country: Type.Optional(Type.String()),
    country_code: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2', pattern: '^[A-Z]{2}$' })),
    classifications: Type.Optional(Type.Array(Type.String(), { minItems: 1, description: 'type[:product] values' })),
    cve_evidence: Type.Optional(
      Type.Array(CveEvidence, { description: 'With `explain=true`: why each CVE is (or may be) here, by CVE' }),
    ),
  },
  { $id: 'TargetIntelRecord' },
);
export type TargetIntelRecord = Static<typeof TargetIntelRecord>;

/** A parameter the endpoint accepts, as `_meta.parameters` lists them. */
const ParameterInfo = Type.Object(
  {
    name: Type.String(),
    format: Type.String({ description: 'What the value looks like' }),
    filtering: Type.String({ description: 'How it filters (exact, range, …), or paging, sort, display' }),
  },
  { $id: 'ParameterInfo' },
);

const Order = Literals(['asc', 'desc'] as const, 'Sort direction');

/** `_meta` of a target-intel page (VulnCheck's `paginate.Pagination`). */
export const TargetIntelMeta = Type.Object(
  {
    timestamp: Instant('When the query ran'),
    index: Type.Literal('target-intel'),
    limit: Type.Integer({ minimum: 1, description: 'Records per page' }),
    total_documents: Count('Records the filters match'),
    sort: Literals(['timestamp', 'date_added', 'ip', 'port'] as const, 'Sort field'),
    order: Order,
    page: Type.Integer({ minimum: 1, description: 'Page number; in a cursor walk, the page of the walk' }),
    total_pages: Count('ceil(total_documents / limit)'),
    max_pages: Count('Pages reachable by offset paging (10,000 records deep); a cursor walk reaches all'),
    first_item: Type.Integer({ minimum: 1, description: '(page − 1) × limit + 1' }),
    last_item: Count('first_item + records on this page − 1'),
    matches: Type.Array(FilterMatch, { description: 'The active filters' }),
    parameters: Type.Array(ParameterInfo, { description: 'Every parameter the endpoint knows' }),
    show_pages: Type.Boolean(),
    show_query: Type.Boolean(),
    pages: Type.Optional(
      Type.Array(Type.String(), { description: 'With show_pages=true: page links, "..." for a gap' }),
    ),
    opensearch_query: Type.Optional(
      Type.Object({}, { description: 'With show_query=true: the query as the server understood it' }),
    ),
    cursor: Type.Optional(Type.String({ description: 'The cursor this page continues' })),
    next_cursor: Type.Optional(
      Type.String({ description: 'In a cursor walk: continues it; absent on its last page', minLength: 1 }),
    ),
  },
  { $id: 'TargetIntelMeta' },
);

/** `GET /v3/index/target-intel`. */
export const TargetIntelPage = Type.Object(
  { _benchmark: Benchmark, _meta: TargetIntelMeta, data: Type.Array(TargetIntelRecord) },
  { $id: 'TargetIntelPage' },
);
export type TargetIntelPage = Static<typeof TargetIntelPage>;

/** The fields facets count, in the order the host index numbers their term kinds. */
export const FACET_FIELD_NAMES = [
  'country',
  'country_code',
  'asn',
  'as_name',
  'port',
  'protocol',
  'vendor',
  'product',
  'version',
  'cpe',
  'cve',
  'classifications',
  'date_added',
  'timestamp',
] as const;

const FacetCounts = Type.Object(
  {
    values: Type.Array(
      Type.Object({
        value: Type.Union([Type.String(), Type.Integer()], {
          description: 'A value as the filters compare it: port a number, days YYYY-MM-DD',
        }),
        count: Type.Integer({ minimum: 1, description: 'Matching records holding it' }),
      }),
      { description: 'The top N values, by count descending, then value ascending' },
    ),
    missing: Count('Matching records without a value for the field'),
    other: Count('Matching records holding a value not in `values`'),
  },
  { $id: 'FacetCounts' },
);

const facetData = {} as Record<(typeof FACET_FIELD_NAMES)[number], TOptional<typeof FacetCounts>>;
for (const field of FACET_FIELD_NAMES) facetData[field] = Type.Optional(FacetCounts);

/** `GET /v3/index/target-intel/facets`. */
export const TargetIntelFacets = Type.Object(
  {
    _benchmark: Benchmark,
    _meta: Type.Object({
      timestamp: Instant('When the query ran'),
      index: Type.Literal('target-intel'),
      total_documents: Count('Records the filters match'),
      matches: Type.Array(FilterMatch, { description: 'The active filters' }),
      fields: Type.Array(
        Type.Object({
          field: Literals(FACET_FIELD_NAMES, 'A counted field'),
          top: Type.Integer({ minimum: 1, maximum: 1000, description: 'How many values were asked for' }),
        }),
        { description: 'The counted fields, in the order asked' },
      ),
    }),
    data: Type.Object(facetData, { additionalProperties: false, description: 'One entry per requested field' }),
  },
  { $id: 'TargetIntelFacets' },
);
export type TargetIntelFacets = Static<typeof TargetIntelFacets>;

/** One line of `GET /v3/index/target-intel/export`: a record, or the closing line. */
export const TargetIntelExportLine = Type.Union([TargetIntelRecord, ExportEnd], {
  $id: 'TargetIntelExportLine',
  description: 'One NDJSON line: a record, then after the last record the closing `_meta` line',
});
export type TargetIntelExportLine = Static<typeof TargetIntelExportLine>;
