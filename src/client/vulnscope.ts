import { ENDPOINTS, type EndpointName } from '../core/api/index.js';
import { VulnscopeServerError } from './errors.js';
import { exportRecords } from './ndjson.js';
import { type CallOptions, resolveOptions, type VulnscopeOptions } from './options.js';
import { type QueryValues, Transport } from './transport.js';
import type {
  AdvisoryExportQuery,
  AdvisoryFeeds,
  AdvisoryPage,
  AdvisoryQuery,
  AdvisoryRecord,
  AdvisoryWalkQuery,
  CpeSearchPage,
  CpeSearchQuery,
  CveSearchHit,
  CveSearchPage,
  CveSearchQuery,
  CveSearchWalkQuery,
  PurlQuery,
  CpeLookup,
  CpeLookupQuery,
  CreatedToken,
  Entitlements,
  NewToken,
  RevokedToken,
  Token,
  TokenList,
  OpenApiDocument,
  C2Addresses,
  C2Hostnames,
  PurlResult,
  PurlsResult,
  TargetIntelExportQuery,
  TargetIntelFacets,
  TargetIntelFacetsQuery,
  TargetIntelPage,
  TargetIntelQuery,
  TargetIntelRecord,
  TargetIntelWalkQuery,
  V3Backup,
  V3BackupList,
  V3IndexList,
  V4Backup,
  V4BackupList,
} from './types.js';

/** The path of an endpoint with its `:name` parameters filled in. */
function pathOf(name: EndpointName, params: Record<string, string> = {}): string {
  return ENDPOINTS[name].path.replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(params[key] ?? ''));
}

/**
 * A client of a Vulnscope (or VulnCheck-compatible) server: one method per endpoint of
 * `ENDPOINTS`, cursor walks and exports as async iterables, every failure a `VulnscopeApiError`.
 *
 * ```ts
 * const vulnscope = new Vulnscope(); // VULNSCOPE_URL, VULNSCOPE_TOKEN
 * for await (const record of vulnscope.targetIntelRecords({ cve: 'CVE-2021-41773', limit: 2000 })) …
 * ```
 */
export class Vulnscope {
  private readonly transport: Transport;

  constructor(options: VulnscopeOptions = {}) {
    this.transport = new Transport(resolveOptions(options));
  }

  /** `GET /v3/index/target-intel`: one page (offset paging, or one step of a cursor walk). */
  targetIntel(query: TargetIntelQuery = {}, options?: CallOptions): Promise<TargetIntelPage> {
    return this.json('targetIntel', query, options);
  }

  /** Every page of a target-intel cursor walk (`start_cursor=true`, then `cursor=_meta.next_cursor`). */
  targetIntelPages(query: TargetIntelWalkQuery = {}, options?: CallOptions): AsyncGenerator<TargetIntelPage> {
    return this.walk<TargetIntelPage>((cursor) =>
      this.targetIntel(cursor ? { ...query, cursor } : { ...query, start_cursor: true }, options),
    );
  }

  /** Every record of a target-intel cursor walk. */
  async *targetIntelRecords(
    query: TargetIntelWalkQuery = {},
    options?: CallOptions,
  ): AsyncGenerator<TargetIntelRecord> {
    for await (const page of this.targetIntelPages(query, options)) yield* page.data ?? [];
  }

  /** `GET /v3/index/target-intel/facets`: exact counts per value of up to 10 fields. */
  targetIntelFacets(query: TargetIntelFacetsQuery, options?: CallOptions): Promise<TargetIntelFacets> {
    return this.json('targetIntelFacets', query, options);
  }

  /** `GET /v3/index/target-intel/export`: every matching record, streamed; a cut export throws. */
  targetIntelExport(query: TargetIntelExportQuery = {}, options?: CallOptions): AsyncGenerator<TargetIntelRecord> {
    return this.export<TargetIntelRecord>('targetIntelExport', query, options);
  }

  /** `GET /v3/search/cpe`: CPE names like the one asked for, each with its CVEs. */
  cpeSearch(query: CpeSearchQuery = {}, options?: CallOptions): Promise<CpeSearchPage> {
    return this.json('cpeSearch', query, options);
  }

  /** `GET /v3/search/cve`: one page of the feed records and target-intel records that mention a CVE. */
  searchCve(query: CveSearchQuery, options?: CallOptions): Promise<CveSearchPage> {
    return this.json('searchCve', query, options);
  }

  /** Every hit of a `/v3/search/cve` cursor walk, feeds first, then target-intel. */
  async *searchCveHits(query: CveSearchWalkQuery, options?: CallOptions): AsyncGenerator<CveSearchHit> {
    const pages = this.walk<CveSearchPage>((cursor) =>
      this.searchCve(cursor ? { ...query, cursor } : { ...query, start_cursor: 'true' }, options),
    );
    for await (const page of pages) yield* page.data ?? [];
  }

  /** `GET /v3/purl`: the CVEs and advisories affecting one package version. */
  purl(query: PurlQuery, options?: CallOptions): Promise<PurlResult> {
    return this.json('purl', query, options);
  }

  /** `POST /v3/purls`: the same for up to 100 package versions at once. */
  async purls(purls: string[], options?: CallOptions): Promise<PurlsResult> {
    return this.transport.json<PurlsResult>(await this.transport.post(pathOf('purls'), purls, options));
  }

  /** `GET /v3/cpe`: the CVE ids whose applicability matches a CPE (2.2 or 2.3). */
  cpeLookup(query: CpeLookupQuery, options?: CallOptions): Promise<CpeLookup> {
    return this.json('cpeLookup', query, options);
  }

  /** `GET /v3/entitlements`: the feeds this token may read and its rate limits. */
  entitlements(options?: CallOptions): Promise<Entitlements> {
    return this.json('entitlements', {}, options);
  }

  /** `GET /v3/tokens`: every token (admin token), or the tokens this token created; never their secrets. */
  tokens(options?: CallOptions): Promise<TokenList> {
    return this.json('tokens', {}, options);
  }

  /** `GET /v3/tokens/self`: this token: its feeds, budget, state, last use, expiry, admin flag and parent. */
  tokenSelf(options?: CallOptions): Promise<Token> {
    return this.json('tokenSelf', {}, options);
  }

  /**
   * `POST /v3/tokens`: creates a token (an admin token: any non-admin token; another token: a child
   * token, at most 10). The answer's `token` is the secret, shown this once.
   */
  async createToken(token: NewToken, options?: CallOptions): Promise<CreatedToken> {
    return this.transport.json<CreatedToken>(await this.transport.post(pathOf('createToken'), token, options));
  }

  /** `DELETE /v3/tokens/{id}`: revokes a token (and the child tokens it created); answers it as revoked. */
  async revokeToken(id: number, options?: CallOptions): Promise<RevokedToken> {
    const path = pathOf('revokeToken', { id: String(id) });
    return this.transport.json<RevokedToken>(await this.transport.delete(path, options));
  }

  /** `GET /v3/openapi`: the server's OpenAPI document. */
  openapiLookup(options?: CallOptions): Promise<OpenApiDocument> {
    return this.json('openapiLookup', {}, options);
  }

  /** `GET /v3/tags/vulncheck-c2?format=json`: the addresses classified c2, each with its families. */
  c2Addresses(options?: CallOptions): Promise<C2Addresses> {
    return this.json('c2Addresses', { format: 'json' }, options);
  }

  /** `GET /v3/pdns/vulncheck-c2?format=json`: the hostnames classified c2, each with its families. */
  c2Hostnames(options?: CallOptions): Promise<C2Hostnames> {
    return this.json('c2Hostnames', { format: 'json' }, options);
  }

  /** `GET /v4/advisory`: one page of advisories (by page, or one step of a cursor walk). */
  advisories(query: AdvisoryQuery = {}, options?: CallOptions): Promise<AdvisoryPage> {
    return this.json('advisories', query, options);
  }

  /** Every page of an advisory cursor walk (`start_cursor`, then `cursor=_meta.next_cursor`). */
  advisoryPages(query: AdvisoryWalkQuery = {}, options?: CallOptions): AsyncGenerator<AdvisoryPage> {
    return this.walk<AdvisoryPage>((cursor) =>
      this.advisories(cursor ? { ...query, cursor } : { ...query, start_cursor: 'true' }, options),
    );
  }

  /** Every advisory of a cursor walk. */
  async *advisoryRecords(query: AdvisoryWalkQuery = {}, options?: CallOptions): AsyncGenerator<AdvisoryRecord> {
    for await (const page of this.advisoryPages(query, options)) yield* page.data ?? [];
  }

  /** `GET /v4/advisory/export`: every matching advisory, streamed; a cut export throws. */
  advisoryExport(query: AdvisoryExportQuery = {}, options?: CallOptions): AsyncGenerator<AdvisoryRecord> {
    return this.export<AdvisoryRecord>('advisoryExport', query, options);
  }

  /** `GET /v4/advisory/list`: the feeds this token may read. */
  advisoryFeeds(options?: CallOptions): Promise<AdvisoryFeeds> {
    return this.json('advisoryFeeds', {}, options);
  }

  /** `GET /v4/backup`: the backups of the feeds this token may read. */
  backups(options?: CallOptions): Promise<V4BackupList> {
    return this.json('backups', {}, options);
  }

  /** `GET /v4/backup/{feed}`: a feed's backup, with a signed download URL and its sha256. */
  backup(feed: string, options?: CallOptions): Promise<V4Backup> {
    return this.json('backup', {}, options, { feed });
  }

  /** `GET /v3/backup`: the indexes that have backups. */
  indexBackups(options?: CallOptions): Promise<V3BackupList> {
    return this.json('indexBackups', {}, options);
  }

  /** `GET /v3/index`: the v3 indexes. */
  indexes(options?: CallOptions): Promise<V3IndexList> {
    return this.json('indexes', {}, options);
  }

  /** `GET /v3/backup/{index}`: an index's kept backups, newest first, with signed download URLs. */
  indexBackup(index: string, options?: CallOptions): Promise<V3Backup> {
    return this.json('indexBackup', {}, options, { index });
  }

  /**
   * Opens a signed download URL (a backup's `url` or `url_mrap`) without the token: those URLs
   * carry their own signature and may point elsewhere. Resolves with the 200 response.
   */
  async download(url: string, options?: CallOptions): Promise<Response> {
    const { response, deadline } = await this.transport.open(url, options);
    // The body is the caller's to read, at its own pace: the answer arrived in time.
    deadline.clear();
    return response;
  }

  private async json<T>(
    name: EndpointName,
    query: object,
    options: CallOptions | undefined,
    params?: Record<string, string>,
  ): Promise<T> {
    const answer = await this.transport.get(pathOf(name, params), query as QueryValues, options);
    return this.transport.json<T>(answer);
  }

  private async *export<T>(name: EndpointName, query: object, options: CallOptions | undefined): AsyncGenerator<T> {
    const answer = await this.transport.get(pathOf(name), query as QueryValues, options, 'application/x-ndjson');
    yield* exportRecords<T>(answer);
  }

  private async *walk<P extends { _meta?: { next_cursor?: string | undefined } }>(
    page: (cursor: string | undefined) => Promise<P>,
  ): AsyncGenerator<P> {
    let cursor: string | undefined;
    do {
      const next = await page(cursor);
      yield next;
      const following = next._meta?.next_cursor;
      // A server that hands back the cursor it was given would keep a walk going for ever.
      if (following !== undefined && following === cursor) {
        throw new VulnscopeServerError('the server answered a cursor with the same cursor: the walk cannot go on', {});
      }
      cursor = following;
    } while (cursor);
  }
}

/** The method of each endpoint (a test holds that every endpoint has one). */
export const METHOD_OF_ENDPOINT = {
  targetIntel: 'targetIntel',
  targetIntelFacets: 'targetIntelFacets',
  targetIntelExport: 'targetIntelExport',
  cpeSearch: 'cpeSearch',
  advisories: 'advisories',
  advisoryExport: 'advisoryExport',
  advisoryFeeds: 'advisoryFeeds',
  backups: 'backups',
  backup: 'backup',
  indexBackups: 'indexBackups',
  indexes: 'indexes',
  indexBackup: 'indexBackup',
  searchCve: 'searchCve',
  purl: 'purl',
  purls: 'purls',
  cpeLookup: 'cpeLookup',
  entitlements: 'entitlements',
  openapiLookup: 'openapiLookup',
  c2Addresses: 'c2Addresses',
  c2Hostnames: 'c2Hostnames',
  tokens: 'tokens',
  tokenSelf: 'tokenSelf',
  createToken: 'createToken',
  revokeToken: 'revokeToken',
} as const satisfies Record<EndpointName, keyof Vulnscope>;
