import { type Static, Type } from '@sinclair/typebox';
import { CursorParameter, optional, Text, TokenParameter } from './common.js';

/** The filters of `/v4/advisory` and its export (CONTRACT.md §2.3); a cursor carries them. */
export const AdvisoryFilterProperties = {
  name: optional(Text('Feed name (GET /v4/advisory lists them); only that feed', 64)),
  cve_id: optional(Text('CVE id, or an advisory id such as GO-2022-0001 for records without one', 120)),
  vendor: optional(Text('Affected vendor; case-insensitive')),
  product: optional(Text('Affected product; case-insensitive')),
  platform: optional(Text('Affected platform; case-insensitive')),
  version: optional(Text('A concrete version (e.g. 2.4.49): advisories whose affected ranges hold it')),
  cpe: optional(Text('CPE 2.3 or 2.2 name naming a vendor or product: advisories whose applicability matches')),
  package_name: optional(Text('Affected package name; case-insensitive')),
  purl: optional(Text('Package URL; with a version, advisories whose ranges hold it')),
  reference_url: optional(Text('A reference URL; exact')),
  reference_tag: optional(Text('A reference tag; case-insensitive')),
  description_lang: optional(
    Type.String({
      description: 'Language tag of a description (en, en-US)',
      pattern: '^\\s*[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*\\s*$',
      maxLength: 35,
      examples: ['en', 'en-US'],
    }),
  ),
  updatedAfter: optional(Text('Updated after: a date, an RFC 3339 date-time or date math such as now-7d', 100)),
  updatedBefore: optional(Text('Updated before: a date, an RFC 3339 date-time or date math such as now-7d', 100)),
};
export const ADVISORY_FILTER_NAMES = Object.keys(AdvisoryFilterProperties) as AdvisoryFilterName[];
export type AdvisoryFilterName = keyof typeof AdvisoryFilterProperties;

export const AdvisoryFilters = Type.Object(AdvisoryFilterProperties, { additionalProperties: false });
export type AdvisoryFilters = Static<typeof AdvisoryFilters>;

export const AdvisoryQuery = Type.Object(
  {
    ...AdvisoryFilterProperties,
    page: optional(Type.Integer({ description: 'Page number', minimum: 1, maximum: 1_000_000 })),
    limit: optional(Type.Integer({ description: 'Records per page (default 10)', minimum: 1, maximum: 100 })),
    start_cursor: optional(
      Type.String({ description: 'Start a cursor walk (any value, even empty); page on with `cursor`', maxLength: 16 }),
    ),
    cursor: optional(CursorParameter),
    ...TokenParameter,
  },
  { additionalProperties: false },
);
export type AdvisoryQuery = Static<typeof AdvisoryQuery>;

export const AdvisoryExportQuery = Type.Object(
  { ...AdvisoryFilterProperties, ...TokenParameter },
  { additionalProperties: false },
);
export type AdvisoryExportQuery = Static<typeof AdvisoryExportQuery>;
