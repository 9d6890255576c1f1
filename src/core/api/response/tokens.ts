import { type Static, Type } from '@sinclair/typebox';
import { Instant } from './common.js';

const Properties = {
  id: Type.Integer({ minimum: 1, description: 'Token id' }),
  name: Type.String({ description: 'Who or what the token is for' }),
  created_at: Instant('When it was created'),
  last_used_at: Type.Union([Instant('When it was last used'), Type.Null()], {
    description: 'When it was last used; null if never',
  }),
  expires_at: Instant(
    "When it expires unless used before: its last use (or creation) plus the server's token idle days; a child token's is no later than its parent's",
  ),
  state: Type.Unsafe<'active' | 'revoked' | 'expired'>({
    type: 'string',
    enum: ['active', 'revoked', 'expired'],
    description: 'active, revoked, or expired (a child token is revoked or expired with its parent)',
  }),
  feeds: Type.Array(Type.String(), {
    description: 'The advisory feeds it may read: names, `["*"]` for every feed, `[]` for none',
  }),
  rate_limit: Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('unlimited'), Type.Literal('default')], {
    description:
      "Its budget setting: requests per window of each endpoint group, `unlimited`, or `default` (the server's); a child token's is its parent's, which it spends",
  }),
  budgets: Type.Array(Type.String(), {
    description: 'The budget it spends per endpoint group, as /v3/entitlements writes it (`index=600/60s`)',
  }),
  admin: Type.Boolean({ description: 'Whether it may list, create and revoke every token' }),
  parent_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: 'The token that created it over HTTP; null for tokens made on the server',
  }),
  child: Type.Boolean({
    description:
      "Whether it is a child token (created by a non-admin token): it spends its parent's budget and lives no longer than it",
  }),
};

/** A token as the token endpoints show it; never its secret. */
export const Token = Type.Object(Properties, { $id: 'Token', description: 'A token (never its secret)' });
export type Token = Static<typeof Token>;

/** `GET /v3/tokens`. */
export const TokenList = Type.Object(
  { data: Type.Array(Token, { description: 'Every token (admin), or those the calling token created' }) },
  { $id: 'TokenList' },
);
export type TokenList = Static<typeof TokenList>;

/** `POST /v3/tokens`: the new token, its secret shown this once. */
export const CreatedToken = Type.Object(
  {
    token: Type.String({ description: 'The secret: shown only in this answer, never again; store it now' }),
    ...Properties,
  },
  { $id: 'CreatedToken' },
);
export type CreatedToken = Static<typeof CreatedToken>;

/** `DELETE /v3/tokens/{id}`: the token as revoked. */
export const RevokedToken = Type.Object(
  {
    ...Properties,
    children_revoked: Type.Integer({ minimum: 0, description: 'Child tokens revoked with it' }),
  },
  { $id: 'RevokedToken' },
);
export type RevokedToken = Static<typeof RevokedToken>;
