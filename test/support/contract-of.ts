/**
 * Which schema of the official contract each Vulnscope path answers with, as a function giving a
 * body's problems (`[]` when valid); undefined for paths VulnCheck does not have.
 */
import fs from 'node:fs';
import { describeErrors, validateAgainst } from './contract.js';
import { fixture } from './fixtures.js';
import { type OpenApi, OpenApiValidator } from './openapi-validator.js';

export type Problems = (body: unknown) => string[];

const subset =
  (name: string): Problems =>
  (body) =>
    describeErrors(validateAgainst(name, body));

let lookups: OpenApiValidator | undefined;
/** `/v3/index` is in the lookups part of the official document. */
const lookup =
  (name: string): Problems =>
  (body) => {
    lookups ??= new OpenApiValidator(
      JSON.parse(fs.readFileSync(fixture('contract/vulncheck-openapi.lookups.json'), 'utf8')) as OpenApi,
      'contract-lookups',
    );
    return lookups.componentProblems(name, body);
  };

/**
 * The C2 lists: the official document declares every 200 body a string, which the text format is;
 * the JSON format's array of entries is Vulnscope's own shape (the document gives none), the
 * accepted deviation.
 */
const lookupList =
  (path: string): Problems =>
  (body) => {
    if (Array.isArray(body)) return [];
    lookups ??= new OpenApiValidator(
      JSON.parse(fs.readFileSync(fixture('contract/vulncheck-openapi.lookups.json'), 'utf8')) as OpenApi,
      'contract-lookups',
    );
    return lookups.responseProblems(path, 'get', 200, 'application/json', body);
  };

/** The value a JSON pointer (without escapes) names. */
const valueAt = (value: unknown, pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], value);

/**
 * `api.TargetIntel.cve` is a non-nullable array in the contract, while VulnCheck serves `null` on a
 * record without a CVE and so does Vulnscope (DESIGN.md): that `type` error is the one accepted deviation.
 */
const acceptingNullCve =
  (name: string): Problems =>
  (body) =>
    describeErrors(
      validateAgainst(name, body).filter(
        (error) =>
          !(
            error.keyword === 'type' &&
            error.instancePath.endsWith('/cve') &&
            valueAt(body, error.instancePath) === null
          ),
      ),
    );

export const CONTRACT_ERROR: Problems = subset('search.ErrorResponse');

const CONTRACT: Record<string, Problems> = {
  '/v3/index/target-intel': acceptingNullCve('render.ResponseWithMetadata-array_api_TargetIntel-paginate_Pagination'),
  '/v3/search/cpe': subset('render.ResponseWithMetadata-search_Responses-search_ResponseMetadata'),
  '/v4/advisory': subset('search.V4AdvisoryReturnValue'),
  '/v4/advisory/list': subset('search.V4ListFeedReturnValue'),
  '/v4/backup': subset('backup.ListBackupsResponse'),
  '/v4/backup/{feed}': subset('backup.BackupResponse'),
  '/v3/backup': subset('render.Response-array_params_IndexBackupList'),
  '/v3/backup/{index}': subset(
    'render.ResponseWithMetadata-v3controllers_BackupResponseData-v3controllers_BackupResponseMetadata',
  ),
  '/v3/index': lookup('render.Response-array_params_IndexList'),
  '/v3/search/cve': lookup('render.ResponseWithMetadata-array_index_CveSearchHit-index_CveSearchMeta'),
  '/v3/purl': lookup('render.ResponseWithMetadata-v3controllers_PurlResponseData-v3controllers_PurlResponseMetadata'),
  '/v3/purls': lookup(
    'render.ResponseWithMetadata-v3controllers_PurlsResponseData-v3controllers_PurlsResponseMetadata',
  ),
  '/v3/cpe': lookup('render.ResponseWithMetadata-array_string-v3controllers_ResponseMetadata'),
  '/v3/entitlements': lookup('models.Entitlements'),
  '/v3/tags/vulncheck-c2': lookupList('/v3/tags/vulncheck-c2'),
  '/v3/pdns/vulncheck-c2': lookupList('/v3/pdns/vulncheck-c2'),
};

/** Export lines are the contract's records (the closing line is Vulnscope's own). */
const CONTRACT_LINE: Record<string, Problems> = {
  '/v3/index/target-intel/export': acceptingNullCve('api.TargetIntel'),
  '/v4/advisory/export': subset('advisory.MitreCVEListV5Ref'),
};

const isClosingLine = (line: unknown) => typeof line === 'object' && line !== null && '_meta' in line;

/** The contract's problems with a 200 body (or one export line) of `path`; undefined when the contract has no such path. */
export function contractOf(path: string): Problems | undefined {
  const line = CONTRACT_LINE[path];
  if (line) return (body) => (isClosingLine(body) ? [] : line(body));
  return CONTRACT[path];
}
