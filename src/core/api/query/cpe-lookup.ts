import { type Static, Type } from '@sinclair/typebox';
import { Flag, optional, Text, TokenParameter } from './common.js';

/** `GET /v3/cpe`: the CVEs of one CPE (2.2 URI or 2.3 formatted string). */
export const CpeLookupQuery = Type.Object(
  {
    cpe: Text(
      'CPE 2.3 formatted string or CPE 2.2 URI; missing trailing attributes are ANY; a version of * (or none) covers every version, a trailing * a version prefix',
      500,
    ),
    isVulnerable: optional(Flag('Only CVEs where the CPE is the vulnerable element (default false)')),
    ...TokenParameter,
  },
  { additionalProperties: false },
);
export type CpeLookupQuery = Static<typeof CpeLookupQuery>;
