/**
 * The SDK's parameter and result types, each derived from the schema the server validates or
 * answers with (`src/core/api`): no second copy to drift.
 */
import type { Static } from '@sinclair/typebox';
import type {
  AdvisoryExportLine as AdvisoryExportLineSchema,
  AdvisoryFeeds as AdvisoryFeedsSchema,
  AdvisoryPage as AdvisoryPageSchema,
  AdvisoryRecord as AdvisoryRecordSchema,
  CpeSearchPage as CpeSearchPageSchema,
  ENDPOINTS,
  EndpointName,
  ExportEnd as ExportEndSchema,
  TargetIntelExportLine as TargetIntelExportLineSchema,
  TargetIntelFacets as TargetIntelFacetsSchema,
  TargetIntelPage as TargetIntelPageSchema,
  TargetIntelRecord as TargetIntelRecordSchema,
  V3Backup as V3BackupSchema,
  V3BackupList as V3BackupListSchema,
  V3IndexList as V3IndexListSchema,
  V4Backup as V4BackupSchema,
  V4BackupList as V4BackupListSchema,
} from '../core/api/index.js';

/** An endpoint's query parameters, less `token` (the client sends it as a header). */
export type QueryOf<K extends EndpointName> = Omit<Static<(typeof ENDPOINTS)[K]['query']>, 'token'>;

export type TargetIntelQuery = QueryOf<'targetIntel'>;
export type TargetIntelFacetsQuery = QueryOf<'targetIntelFacets'>;
export type TargetIntelExportQuery = QueryOf<'targetIntelExport'>;
export type CpeSearchQuery = QueryOf<'cpeSearch'>;
export type AdvisoryQuery = QueryOf<'advisories'>;
export type AdvisoryExportQuery = QueryOf<'advisoryExport'>;
export type CveSearchQuery = QueryOf<'searchCve'>;

/** An endpoint's 200 body. */
export type ResultOf<K extends EndpointName> = Static<(typeof ENDPOINTS)[K]['response']>;
export type CveSearchPage = ResultOf<'searchCve'>;
export type CveSearchHit = CveSearchPage['data'][number];
export type PurlQuery = QueryOf<'purl'>;
export type PurlResult = ResultOf<'purl'>;
export type PurlsResult = ResultOf<'purls'>;
export type CpeLookupQuery = QueryOf<'cpeLookup'>;
export type CpeLookup = ResultOf<'cpeLookup'>;
export type Entitlements = ResultOf<'entitlements'>;
export type OpenApiDocument = ResultOf<'openapiLookup'>;
export type TokenList = ResultOf<'tokens'>;
export type Token = ResultOf<'tokenSelf'>;
export type CreatedToken = ResultOf<'createToken'>;
export type RevokedToken = ResultOf<'revokeToken'>;
/** `POST /v3/tokens`'s body: a name, and (admin tokens) feeds and a rate limit; a child token's feeds. */
export type NewToken = Static<(typeof ENDPOINTS)['createToken']['body']>;
export type C2Addresses = Static<(typeof ENDPOINTS)['c2Addresses']['alsoProduces']['application/json']>;
export type C2Hostnames = Static<(typeof ENDPOINTS)['c2Hostnames']['alsoProduces']['application/json']>;

/** A cursor walk's query: the filters, sort, order, limit and display flags; the walk pages itself. */
export type TargetIntelWalkQuery = Omit<TargetIntelQuery, 'page' | 'start_cursor' | 'cursor'>;
export type AdvisoryWalkQuery = Omit<AdvisoryQuery, 'page' | 'start_cursor' | 'cursor'>;
export type CveSearchWalkQuery = Omit<CveSearchQuery, 'page' | 'start_cursor' | 'cursor'>;

export type TargetIntelPage = Static<typeof TargetIntelPageSchema>;
export type TargetIntelRecord = Static<typeof TargetIntelRecordSchema>;
export type TargetIntelFacets = Static<typeof TargetIntelFacetsSchema>;
export type TargetIntelExportLine = Static<typeof TargetIntelExportLineSchema>;
export type CpeSearchPage = Static<typeof CpeSearchPageSchema>;
export type AdvisoryPage = Static<typeof AdvisoryPageSchema>;
export type AdvisoryRecord = Static<typeof AdvisoryRecordSchema>;
export type AdvisoryExportLine = Static<typeof AdvisoryExportLineSchema>;
/** The closing line of an export: `{"_meta": {"complete": true, "records": N}}`. */
export type ExportEnd = Static<typeof ExportEndSchema>;
export type AdvisoryFeeds = Static<typeof AdvisoryFeedsSchema>;
export type V4BackupList = Static<typeof V4BackupListSchema>;
export type V4Backup = Static<typeof V4BackupSchema>;
export type V3BackupList = Static<typeof V3BackupListSchema>;
export type V3IndexList = Static<typeof V3IndexListSchema>;
export type V3Backup = Static<typeof V3BackupSchema>;
