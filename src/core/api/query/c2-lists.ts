import { type Static, Type } from '@sinclair/typebox';
import { optional, TokenParameter, Words } from './common.js';

/** The body formats of the C2 lists, as VulnCheck's document names them: `txt` and `text` are one format. */
export const C2_LIST_FORMATS = ['text', 'txt', 'json'] as const;
export type C2ListFormat = (typeof C2_LIST_FORMATS)[number];

/** `GET /v3/tags/vulncheck-c2` and `GET /v3/pdns/vulncheck-c2`. */
export const C2ListQuery = Type.Object(
  {
    format: optional(
      Words(
        C2_LIST_FORMATS,
        'text or txt (default): one entry per line, as text/plain; json: an array of entries with their C2 families',
      ),
    ),
    ...TokenParameter,
  },
  { additionalProperties: false },
);
export type C2ListQuery = Static<typeof C2ListQuery>;
