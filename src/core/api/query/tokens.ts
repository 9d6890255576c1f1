import { type Static, Type } from '@sinclair/typebox';
import { optional } from './common.js';

export const TokenIdPath = Type.Object({
  id: Type.Integer({ minimum: 1, description: 'Token id (GET /v3/tokens lists them)' }),
});
export type TokenIdPath = Static<typeof TokenIdPath>;

/** `POST /v3/tokens`: the token to create. Admin is never granted here. */
export const NewTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Who or what the token is for' }),
    feeds: optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 1000,
        description:
          'Advisory feeds it may read, by name; `["*"]` for every feed, `[]` for none. Default: those of the creating token (a child) or the server default (an admin creating). A child may name only feeds its parent may read.',
      }),
    ),
    rate_limit: optional(
      Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('unlimited')], {
        description:
          "Its own budget, requests per window of each endpoint group, or `unlimited`; admin tokens only: a child token spends its parent's budget",
      }),
    ),
  },
  { additionalProperties: false, title: 'NewToken', description: 'The token to create' },
);
export type NewTokenBody = Static<typeof NewTokenBody>;
