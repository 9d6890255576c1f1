import { type Static, Type } from '@sinclair/typebox';
import { TokenParameter } from './common.js';

/** Longest purl accepted, in the query and in each item of a batch. */
export const PURL_MAX_LENGTH = 500;
/** Most purls in one `POST /v3/purls`. */
export const PURLS_MAX_ITEMS = 100;

const Purl = (description: string) =>
  Type.String({ description, minLength: 1, maxLength: PURL_MAX_LENGTH, examples: ['pkg:npm/lodash@4.17.15'] });

/** `GET /v3/purl`: the vulnerabilities of one package version. */
export const PurlQuery = Type.Object(
  {
    purl: Purl(
      'Package URL with a version, e.g. pkg:pypi/django@3.2.0 (qualifiers and subpath are echoed, not matched)',
    ),
    ...TokenParameter,
  },
  { additionalProperties: false },
);
export type PurlQuery = Static<typeof PurlQuery>;

/** `POST /v3/purls`: the request body, a JSON array of purls. */
export const PurlsBody = Type.Array(Purl('Package URL with a version'), {
  title: 'purls',
  description: `Package URLs with versions, at most ${PURLS_MAX_ITEMS}`,
  maxItems: PURLS_MAX_ITEMS,
});
export type PurlsBody = Static<typeof PurlsBody>;
