import { type Static, Type } from '@sinclair/typebox';
import { TokenParameter } from './common.js';

/** Endpoints without parameters: the unauthenticated probes, and state-changing ones (`?token=` is refused there). */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/** Endpoints whose only query parameter is the token. */
export const TokenOnlyQuery = Type.Object(TokenParameter, { additionalProperties: false });
export type TokenOnlyQuery = Static<typeof TokenOnlyQuery>;

/** A name the server does not hold is a 404, so the path declares no pattern of its own. */
export const FeedPath = Type.Object({ feed: Type.String({ description: 'Feed name (GET /v4/backup lists them)' }) });
export type FeedPath = Static<typeof FeedPath>;
export const IndexPath = Type.Object({ index: Type.String({ description: 'Index name (GET /v3/backup lists them)' }) });
export type IndexPath = Static<typeof IndexPath>;

/** The signed, token-free download of a backup archive; a missing or wrong signature is a 403. */
export const DownloadPath = Type.Object({
  kind: Type.String({ description: 'Backup family: v3 or v4' }),
  name: Type.String({ description: 'Feed or index name' }),
  file: Type.String({ description: 'Archive file name' }),
});
export const DownloadQuery = Type.Object({
  expires: Type.Optional(Type.String({ description: 'Expiry of the signed URL (Unix seconds)' })),
  signature: Type.Optional(Type.String({ description: 'HMAC signature of the URL' })),
});
