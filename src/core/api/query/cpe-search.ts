import { type Static, Type } from '@sinclair/typebox';
import { Flag, Order, Words, optional, Text, TokenParameter } from './common.js';

/** `GET /v3/search/cpe`: CVEs whose applicability names a CPE like the one asked for. */
export const CpeSearchQuery = Type.Object(
  {
    part: optional(Words(['a', 'o', 'h'], 'CPE part: a (application), o (operating system), h (hardware)')),
    vendor: optional(Text('CPE vendor', 200)),
    product: optional(Text('CPE product', 200)),
    version: optional(Text('CPE version; a trailing * matches versions that start with it', 200)),
    isVulnerable: optional(Flag('Only CVEs where the CPE is the vulnerable element')),
    page: optional(Type.Integer({ description: 'Page number (page × limit ≤ 10,000)', minimum: 1 })),
    limit: optional(Type.Integer({ description: 'Results per page (default 100)', minimum: 1, maximum: 100 })),
    sort: optional(Words(['_id'], 'Sort field: the CVE id')),
    order: optional(Order),
    ...TokenParameter,
  },
  { additionalProperties: false },
);
export type CpeSearchQuery = Static<typeof CpeSearchQuery>;
