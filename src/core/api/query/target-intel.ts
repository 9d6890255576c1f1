import { type Static, Type } from '@sinclair/typebox';
import { CursorParameter, CVE_PATTERN, DateOrDateTime, Flag, Order, optional, Text, TokenParameter } from './common.js';

const Protocol = (description: string) => Type.Union([Type.Literal('tcp'), Type.Literal('udp')], { description });

/**
 * The filters of `/v3/index/target-intel`, its facets and its export; a cursor carries them.
 * Each description ends with how the filter matches.
 */
export const TargetIntelFilterProperties = {
  cidr: optional(Text('IPv4 or IPv6 CIDR block or address; range', 64)),
  hostname: optional(Text('Hostnames, comma-separated; substring')),
  domain: optional(Text('Domains, comma-separated; suffix of a hostname')),
  cve: optional(
    Type.String({
      description: 'CVE id (CVE-YYYY-NNNN); exact',
      pattern: CVE_PATTERN,
      examples: ['CVE-2021-44228'],
      maxLength: 32,
    }),
  ),
  vendor: optional(Text('Vendor; exact, case-insensitive, follows renames')),
  product: optional(Text('Product; exact, case-insensitive, follows renames')),
  version: optional(Text('Version; exact, case-insensitive')),
  cpe: optional(Text('CPE 2.3 or 2.2 name; CPE name matching')),
  asn: optional(
    Type.String({
      description: 'Autonomous system (AS<number>); exact',
      pattern: '^([Aa][Ss])?\\d{1,10}$',
      examples: ['AS13335'],
    }),
  ),
  country: optional(Text('Country name; exact, case-insensitive', 100)),
  country_code: optional(
    Type.String({ description: 'ISO 3166-1 alpha-2 country code; exact', pattern: '^[A-Za-z]{2}$', examples: ['US'] }),
  ),
  protocol: optional(Protocol('Transport protocol; exact')),
  transport: optional(Protocol("Transport protocol (the official clients' name for `protocol`); exact")),
  port: optional(Type.Integer({ description: 'Port; exact', minimum: 1, maximum: 65535 })),
  contains_cve: optional(Flag('Whether the record lists at least one CVE')),
  confirmed: optional(Flag('Whether the record lists at least one confirmed CVE')),
  classifications: optional(Text('Classifications as type[:product], comma-separated; any of them')),
  id: optional(Type.Integer({ description: 'Record id; exact', minimum: 1, maximum: 4_294_967_295 })),
  date: optional(
    Type.String({
      description: 'Day the record was first seen (YYYY-MM-DD)',
      format: 'date',
      examples: ['2026-11-01'],
    }),
  ),
  pubStartDate: optional(DateOrDateTime('First seen at or after')),
  pubEndDate: optional(DateOrDateTime('First seen at or before')),
  updatedAtStartDate: optional(DateOrDateTime('Last seen at or after')),
  updatedAtEndDate: optional(DateOrDateTime('Last seen at or before')),
  lastModStartDate: optional(DateOrDateTime('Last seen at or after (alias of updatedAtStartDate)')),
  lastModEndDate: optional(DateOrDateTime('Last seen at or before (alias of updatedAtEndDate)')),
};
export const TARGET_INTEL_FILTER_NAMES = Object.keys(TargetIntelFilterProperties) as TargetIntelFilterName[];
export type TargetIntelFilterName = keyof typeof TargetIntelFilterProperties;

export const TargetIntelFilters = Type.Object(TargetIntelFilterProperties, { additionalProperties: false });
export type TargetIntelFilters = Static<typeof TargetIntelFilters>;

export const TARGET_INTEL_SORTS = ['timestamp', 'date_added', 'ip', 'port'] as const;

export const TargetIntelQuery = Type.Object(
  {
    ...TargetIntelFilterProperties,
    page: optional(Type.Integer({ description: 'Page number (offset paging, up to 10,000 records deep)', minimum: 1 })),
    limit: optional(
      Type.Integer({
        description: 'Records per page: 1–100 with page, 1–2,000 in a cursor walk (default 100)',
        minimum: 1,
        maximum: 2000,
      }),
    ),
    start_cursor: optional(Flag('Start a cursor walk (true); page on with `cursor`')),
    cursor: optional(CursorParameter),
    sort: optional(
      Type.Union(
        TARGET_INTEL_SORTS.map((sort) => Type.Literal(sort)),
        { description: 'Sort field (default timestamp)' },
      ),
    ),
    order: optional(Order),
    explain: optional(Flag('Add `cve_evidence` to each record: the fingerprint, criterion and range that matched')),
    show_pages: optional(Flag('Add page links to `_meta`')),
    show_query: optional(Flag('Add the query as the server understood it to `_meta`')),
    ...TokenParameter,
  },
  { additionalProperties: false },
);
export type TargetIntelQuery = Static<typeof TargetIntelQuery>;

export const TargetIntelFacetsQuery = Type.Object(
  {
    ...TargetIntelFilterProperties,
    fields: Type.String({
      description:
        'Up to 10 fields to count, comma-separated, each with an optional :N for its top N (default 10, at most 1,000): country, country_code, asn, as_name, port, protocol, vendor, product, version, cpe, cve, classifications, date_added, timestamp',
      minLength: 1,
      maxLength: 1000,
      examples: ['country_code,port:20,product'],
    }),
    ...TokenParameter,
  },
  { additionalProperties: false },
);
export type TargetIntelFacetsQuery = Static<typeof TargetIntelFacetsQuery>;

export const TargetIntelExportQuery = Type.Object(
  { ...TargetIntelFilterProperties, ...TokenParameter },
  { additionalProperties: false },
);
export type TargetIntelExportQuery = Static<typeof TargetIntelExportQuery>;
