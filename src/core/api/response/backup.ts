import { type Static, Type } from '@sinclair/typebox';
import { Benchmark, Href, Instant, Sha256 } from './common.js';

const SignedUrl = (description: string) =>
  Href(`${description}: a signed URL of the archive, fetched without a token until it expires`);
const TtlMinutes = Type.Integer({ minimum: 1, description: 'How long a signed URL lasts, in minutes' });

/** `GET /v4/backup` (VulnCheck's `backup.ListBackupsResponse`). */
export const V4BackupList = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: 'Feed name' }),
          href: Href("The feed's backup: /v4/backup/<feed>"),
          available: Type.Boolean({ description: 'Whether an archive has been written' }),
          backup_written_at: Type.Optional(Instant('When the latest archive was written; absent when none')),
        },
        { $id: 'V4BackupListItem' },
      ),
      { description: 'The feeds the token may read, by name' },
    ),
  },
  { $id: 'V4BackupList' },
);
export type V4BackupList = Static<typeof V4BackupList>;

/** The regions VulnCheck serves archives from; a self-hosted server gives its one URL under each name. */
const V4_URLS = {
  url_mrap: SignedUrl('Multi-region URL'),
  'url_us-east-1': SignedUrl('Same URL'),
  'url_eu-west-2': SignedUrl('Same URL'),
  'url_ap-southeast-2': SignedUrl('Same URL'),
};

/** `GET /v4/backup/{feed}` (VulnCheck's `backup.BackupResponse`): URLs only once an archive exists. */
export const V4Backup = Type.Union(
  [
    Type.Object(
      {
        feed: Type.String(),
        available: Type.Literal(true),
        sha256: Sha256,
        url_ttl_minutes: TtlMinutes,
        url_expires: Instant('When the URLs expire'),
        ...V4_URLS,
      },
      { title: 'Available backup' },
    ),
    Type.Object(
      { feed: Type.String(), available: Type.Literal(false) },
      { title: 'No backup yet', additionalProperties: false },
    ),
  ],
  { $id: 'V4Backup', description: "A feed's latest archive" },
);
export type V4Backup = Static<typeof V4Backup>;

const IndexListItem = Type.Object(
  {
    name: Type.String({ description: 'Index name' }),
    description: Type.String(),
    href: Href('Where its details are'),
  },
  { $id: 'V3IndexListItem' },
);

/** `GET /v3/backup` (VulnCheck's `render.Response-array_params_IndexBackupList`). */
export const V3BackupList = Type.Object(
  {
    _benchmark: Benchmark,
    data: Type.Array(IndexListItem, { description: 'target-intel, and cpecve once it has an archive' }),
  },
  { $id: 'V3BackupList' },
);
export type V3BackupList = Static<typeof V3BackupList>;

/** `GET /v3/index` (VulnCheck's `render.Response-array_params_IndexList`). */
export const V3IndexList = Type.Object(
  {
    _benchmark: Benchmark,
    data: Type.Array(IndexListItem, { description: 'target-intel, and cpecve once it has an archive' }),
  },
  { $id: 'V3IndexList' },
);
export type V3IndexList = Static<typeof V3IndexList>;

/** `GET /v3/backup/{index}` (VulnCheck's `render.ResponseWithMetadata-v3controllers_BackupResponseData-…`). */
export const V3Backup = Type.Object(
  {
    _benchmark: Benchmark,
    _meta: Type.Object({ timestamp: Instant('When the query ran'), index: Type.String() }),
    data: Type.Array(
      Type.Object(
        {
          filename: Type.String({ description: 'The zip file name', pattern: '\\.zip$' }),
          sha256: Sha256,
          date_added: Instant('When the archive was written; changes whenever the archive does'),
          url: SignedUrl('Download URL'),
          url_mrap: SignedUrl('Same URL'),
          'url_us-east-1': SignedUrl('Same URL'),
          'url_us-west-2': SignedUrl('Same URL'),
          'url_eu-west-2': SignedUrl('Same URL'),
          'url_ap-southeast-2': SignedUrl('Same URL'),
          'url_il-central-1': SignedUrl('Same URL'),
          'url_me-central-1': SignedUrl('Same URL'),
          url_ttl_minutes: TtlMinutes,
          url_expires: Instant('When the URLs expire'),
        },
        { $id: 'V3BackupArchive' },
      ),
      { minItems: 1, description: 'The kept archives, newest first' },
    ),
  },
  { $id: 'V3Backup' },
);
export type V3Backup = Static<typeof V3Backup>;

/** The signed download of an archive: the zip's bytes. */
export const BackupArchive = Type.String({
  $id: 'BackupArchive',
  format: 'binary',
  contentMediaType: 'application/zip',
  description: 'The zip archive',
});
