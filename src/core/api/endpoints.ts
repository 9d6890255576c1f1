import type { TSchema } from '@sinclair/typebox';
import {
  AdvisoryExportQuery,
  C2ListQuery,
  AdvisoryQuery,
  CpeLookupQuery,
  CpeSearchQuery,
  CveSearchQuery,
  FeedPath,
  IndexPath,
  PurlQuery,
  PurlsBody,
  TargetIntelExportQuery,
  TargetIntelFacetsQuery,
  TargetIntelQuery,
  NewTokenBody,
  NoQuery,
  TokenIdPath,
  TokenOnlyQuery,
} from './query/index.js';
import {
  AdvisoryExportLine,
  AdvisoryFeeds,
  AdvisoryPage,
  CpeLookup,
  C2AddressList,
  C2HostnameList,
  C2ListText,
  CpeSearchPage,
  CveSearchPage,
  PurlResult,
  PurlsResult,
  Entitlements,
  OpenApiDocument,
  TargetIntelExportLine,
  TargetIntelFacets,
  TargetIntelPage,
  V3Backup,
  V3BackupList,
  V3IndexList,
  V4Backup,
  V4BackupList,
  CreatedToken,
  RevokedToken,
  Token,
  TokenList,
} from './response/index.js';

/** One endpoint of the API, as both the server and the client read it. */
export interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE';
  /** Fastify-style path: `:name` marks a path parameter. */
  path: string;
  /** The official client's operationId where VulnCheck has the endpoint, else Vulnscope's own. */
  operationId: string;
  summary: string;
  tags: string[];
  query: TSchema;
  params?: TSchema;
  /** The JSON request body (POST only). */
  body?: TSchema;
  /** The body's media type when it is not JSON. */
  produces?: 'application/x-ndjson' | 'text/plain';
  /** The 200 body; for NDJSON, one line of it. */
  response: TSchema;
  /** Other media types the 200 body takes when a parameter asks for them, with their schemas. */
  alsoProduces?: Readonly<Record<string, TSchema>>;
  /** The success status when it is not 200 (a creation's 201). */
  status?: 201;
  /** Error answers of this endpoint besides those every route can give, with what each means. */
  errors?: Readonly<Record<string, string>>;
}

const TOKENS_TAG = ['tokens'];

/** Every token-authenticated endpoint; the server registers each, the SDK has a method for each. */
export const ENDPOINTS = {
  targetIntel: {
    method: 'GET',
    path: '/v3/index/target-intel',
    operationId: 'index_target-intel_get',
    summary: 'Target intelligence: exposed services by CVE, network, ASN, country, product or classification',
    tags: ['indices'],
    query: TargetIntelQuery,
    response: TargetIntelPage,
  },
  targetIntelFacets: {
    method: 'GET',
    path: '/v3/index/target-intel/facets',
    operationId: 'index_target-intel_facets_get',
    summary: 'Exact counts of the target-intel matches per value of up to 10 fields',
    tags: ['indices'],
    query: TargetIntelFacetsQuery,
    response: TargetIntelFacets,
  },
  targetIntelExport: {
    method: 'GET',
    path: '/v3/index/target-intel/export',
    operationId: 'index_target-intel_export_get',
    summary: 'Every target-intel match as NDJSON, uncapped; the last line says the export is complete',
    tags: ['indices'],
    query: TargetIntelExportQuery,
    response: TargetIntelExportLine,
    produces: 'application/x-ndjson',
  },
  cpeSearch: {
    method: 'GET',
    path: '/v3/search/cpe',
    operationId: 'search_cpe_get',
    summary: 'CPE search: the CPE names matching the attributes, and the CVEs linked to each',
    tags: ['endpoints'],
    query: CpeSearchQuery,
    response: CpeSearchPage,
  },
  advisories: {
    method: 'GET',
    path: '/v4/advisory',
    operationId: 'v4QueryAdvisories',
    summary: 'Advisories in CVE-record shape from the loaded feeds, by page or cursor',
    tags: ['advisory'],
    query: AdvisoryQuery,
    response: AdvisoryPage,
  },
  advisoryExport: {
    method: 'GET',
    path: '/v4/advisory/export',
    operationId: 'v4ExportAdvisories',
    summary: 'Every matching advisory as NDJSON, uncapped; the last line says the export is complete',
    tags: ['advisory'],
    query: AdvisoryExportQuery,
    response: AdvisoryExportLine,
    produces: 'application/x-ndjson',
  },
  advisoryFeeds: {
    method: 'GET',
    path: '/v4/advisory/list',
    operationId: 'v4ListAdvisoryFeeds',
    summary: 'The advisory feeds this token may read',
    tags: ['advisory'],
    query: TokenOnlyQuery,
    response: AdvisoryFeeds,
  },
  backups: {
    method: 'GET',
    path: '/v4/backup',
    operationId: 'v4ListBackups',
    summary: 'Backups of the advisory feeds the token may read',
    tags: ['backup'],
    query: TokenOnlyQuery,
    response: V4BackupList,
  },
  backup: {
    method: 'GET',
    path: '/v4/backup/:feed',
    operationId: 'v4GetBackupByName',
    summary: "A feed's backup: a signed download URL, its size and checksum",
    tags: ['backup'],
    query: TokenOnlyQuery,
    params: FeedPath,
    response: V4Backup,
  },
  indexBackups: {
    method: 'GET',
    path: '/v3/backup',
    operationId: 'backup_get',
    summary: 'The v3 index backups',
    tags: ['endpoints'],
    query: TokenOnlyQuery,
    response: V3BackupList,
  },
  indexes: {
    method: 'GET',
    path: '/v3/index',
    operationId: 'index_get',
    summary: 'The v3 indexes',
    tags: ['index'],
    query: TokenOnlyQuery,
    response: V3IndexList,
  },
  indexBackup: {
    method: 'GET',
    path: '/v3/backup/:index',
    operationId: 'backup_index_get',
    summary: 'The kept backups of a v3 index, newest first, each with a signed download URL',
    tags: ['endpoints'],
    query: TokenOnlyQuery,
    params: IndexPath,
    response: V3Backup,
  },
  searchCve: {
    method: 'GET',
    path: '/v3/search/cve',
    operationId: 'search_cve_get',
    summary: 'Every advisory of the readable feeds and every target-intel record that mentions a CVE',
    tags: ['endpoints'],
    query: CveSearchQuery,
    response: CveSearchPage,
  },
  purl: {
    method: 'GET',
    path: '/v3/purl',
    operationId: 'purl_get',
    summary: 'The CVEs and advisories (OSV, CVE 5) affecting one package version, named by its purl',
    tags: ['endpoints'],
    query: PurlQuery,
    response: PurlResult,
  },
  purls: {
    method: 'POST',
    path: '/v3/purls',
    operationId: 'purls_post',
    summary: 'The CVEs and advisories affecting each of up to 100 package versions (a JSON array of purls)',
    tags: ['endpoints'],
    query: NoQuery,
    body: PurlsBody,
    response: PurlsResult,
  },
  cpeLookup: {
    method: 'GET',
    path: '/v3/cpe',
    operationId: 'cpe_get',
    summary: 'The CVEs of a CPE (2.2 or 2.3): of the name itself and of every CPE name it matches',
    tags: ['endpoints'],
    query: CpeLookupQuery,
    response: CpeLookup,
  },
  entitlements: {
    method: 'GET',
    path: '/v3/entitlements',
    operationId: 'entitlements_get',
    summary: "The calling token's entitlements: the feeds it may read and its rate limits",
    tags: ['endpoints'],
    query: TokenOnlyQuery,
    response: Entitlements,
  },
  openapiLookup: {
    method: 'GET',
    path: '/v3/openapi',
    operationId: 'openapi_get',
    summary: 'This OpenAPI document (the one /openapi.json serves), with a token',
    tags: ['endpoints'],
    query: TokenOnlyQuery,
    response: OpenApiDocument,
  },
  c2Addresses: {
    method: 'GET',
    path: '/v3/tags/vulncheck-c2',
    operationId: 'tags_vulncheck-c2_get',
    summary: 'The IP addresses classified c2 in the index (rolling window) and the classification lists',
    tags: ['endpoints'],
    query: C2ListQuery,
    produces: 'text/plain',
    response: C2ListText,
    alsoProduces: { 'application/json': C2AddressList },
  },
  c2Hostnames: {
    method: 'GET',
    path: '/v3/pdns/vulncheck-c2',
    operationId: 'pdns_vulncheck-c2_get',
    summary: 'The hostnames of the records classified c2 in the index (rolling window)',
    tags: ['endpoints'],
    query: C2ListQuery,
    produces: 'text/plain',
    response: C2ListText,
    alsoProduces: { 'application/json': C2HostnameList },
  },
  tokens: {
    method: 'GET',
    path: '/v3/tokens',
    operationId: 'tokens_get',
    summary: 'The tokens an admin token manages (every token), or those the calling token created',
    tags: TOKENS_TAG,
    query: TokenOnlyQuery,
    response: TokenList,
  },
  tokenSelf: {
    method: 'GET',
    path: '/v3/tokens/self',
    operationId: 'tokens_self_get',
    summary: 'The calling token: its feeds, budget, state, last use, expiry, admin flag and parent',
    tags: TOKENS_TAG,
    query: TokenOnlyQuery,
    response: Token,
  },
  createToken: {
    method: 'POST',
    path: '/v3/tokens',
    operationId: 'tokens_post',
    summary:
      'Create a token (admin: any non-admin token; others: a child token, at most 10); its secret is in this answer only',
    tags: TOKENS_TAG,
    query: NoQuery,
    body: NewTokenBody,
    response: CreatedToken,
    status: 201,
    errors: {
      '403':
        "Forbidden: a child token cannot create tokens, a child may read only its parent's feeds, admin is granted only on the server, or a cookie-authenticated request without this server's Origin",
      '409': 'Conflict: the calling token already has 10 child tokens that are not revoked',
    },
  },
  revokeToken: {
    method: 'DELETE',
    path: '/v3/tokens/:id',
    operationId: 'tokens_delete',
    summary: 'Revoke a token (admin: any; others: one they created), and the child tokens it created',
    tags: TOKENS_TAG,
    query: NoQuery,
    params: TokenIdPath,
    response: RevokedToken,
    errors: {
      '403':
        "Forbidden: a token revoking itself (only an admin may), or a cookie-authenticated request without this server's Origin",
      '404': 'Not Found: no such token, or one the calling token did not create',
    },
  },
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;
