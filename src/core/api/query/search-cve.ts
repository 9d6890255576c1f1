import { type Static, Type } from '@sinclair/typebox';
import { CVE_PATTERN, optional, TokenParameter } from './common.js';

/** Hits per page by default (the official document says 500; 100 keeps a default page of target-intel records near 3 ms) and at most. */
export const CVE_SEARCH_DEFAULT_LIMIT = 100;
export const CVE_SEARCH_MAX_LIMIT = 1000;

/** `GET /v3/search/cve`: every record of the token's feeds and of target-intel that mentions a CVE. */
export const CveSearchQuery = Type.Object(
  {
    cve: Type.String({
      description: 'CVE id to search for (CVE-YYYY-NNNN); case-insensitive',
      pattern: CVE_PATTERN,
      examples: ['CVE-2021-44228'],
      maxLength: 32,
    }),
    page: optional(Type.Integer({ description: 'Page number (page mode; page × limit ≤ 10,000)', minimum: 1 })),
    limit: optional(
      Type.Integer({
        description: `Hits per page (default ${CVE_SEARCH_DEFAULT_LIMIT})`,
        minimum: 1,
        maximum: CVE_SEARCH_MAX_LIMIT,
      }),
    ),
    cursor: optional(
      Type.String({
        description: 'Continue a cursor walk with `_meta.next_cursor`; an empty value starts one',
        maxLength: 4096,
      }),
    ),
    start_cursor: optional(
      Type.String({ description: 'Start a cursor walk (any value, even empty); page on with `cursor`', maxLength: 16 }),
    ),
    ...TokenParameter,
  },
  { additionalProperties: false },
);
export type CveSearchQuery = Static<typeof CveSearchQuery>;
