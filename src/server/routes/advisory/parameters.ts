import { Type } from '@sinclair/typebox';

/** The filters of `GET /v4/advisory` (CONTRACT.md §2.3); a cursor carries them. */
export const FILTER_PARAMETERS = [
  'name',
  'cve_id',
  'vendor',
  'product',
  'platform',
  'version',
  'cpe',
  'package_name',
  'purl',
  'reference_url',
  'reference_tag',
  'description_lang',
  'updatedAfter',
  'updatedBefore',
] as const;
export type FilterParameter = (typeof FILTER_PARAMETERS)[number];

export const PAGING_PARAMETERS = ['page', 'limit', 'start_cursor', 'cursor'] as const;

export type RawParams = Partial<Record<string, string>>;

/** Every parameter is an optional single string; anything else (unknown names, repeats) is a 400. */
export const advisoryQuerystring = Type.Object(
  Object.fromEntries(
    [...FILTER_PARAMETERS, ...PAGING_PARAMETERS, 'token'].map((name) => [name, Type.Optional(Type.String())]),
  ),
  { additionalProperties: false },
);

/** The filter parameters present (non-empty), in a canonical order. */
export function filterParams(raw: RawParams): Record<string, string> {
  const filters: Record<string, string> = {};
  for (const name of FILTER_PARAMETERS) {
    const value = raw[name];
    if (value !== undefined && value !== '') filters[name] = value;
  }
  return filters;
}
