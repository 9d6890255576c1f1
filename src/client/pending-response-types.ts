/**
 * Stand-ins for the 200-response schemas that `src/core/api/response` will export under the same
 * names; deleted once they land (the SDK then imports them from `../core/api/index.js`).
 */
import { Type } from '@sinclair/typebox';

const Loose = Type.Record(Type.String(), Type.Unknown());

export const TargetIntelRecord = Type.Object({
  ip: Type.Optional(Type.String()),
  port: Type.Optional(Type.Integer()),
  hostname: Type.Optional(Type.String()),
  timestamp: Type.Optional(Type.String()),
  date_added: Type.Optional(Type.String()),
  cve: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  contains_cve: Type.Optional(Type.Boolean()),
  asn: Type.Optional(Type.String()),
  country_code: Type.Optional(Type.String()),
});
export const TargetIntelPage = Type.Object({
  _benchmark: Type.Optional(Type.Number()),
  _meta: Type.Object({
    total_documents: Type.Optional(Type.Integer()),
    next_cursor: Type.Optional(Type.String()),
    page: Type.Optional(Type.Integer()),
    limit: Type.Optional(Type.Integer()),
  }),
  data: Type.Array(TargetIntelRecord),
});
export const TargetIntelFacets = Type.Object({
  _benchmark: Type.Optional(Type.Number()),
  _meta: Type.Object({ total_documents: Type.Optional(Type.Integer()) }),
  data: Type.Record(
    Type.String(),
    Type.Object({
      values: Type.Array(Type.Object({ value: Type.Union([Type.String(), Type.Number()]), count: Type.Integer() })),
      missing: Type.Integer(),
      other: Type.Integer(),
    }),
  ),
});
export const TargetIntelExportLine = TargetIntelRecord;

export const AdvisoryRecord = Loose;
export const AdvisoryPage = Type.Object({
  _meta: Type.Object({
    total: Type.Optional(Type.Integer()),
    filtered: Type.Optional(Type.Integer()),
    page: Type.Optional(Type.Integer()),
    pages: Type.Optional(Type.Integer()),
    limit: Type.Optional(Type.Integer()),
    cursor: Type.Optional(Type.String()),
    next_cursor: Type.Optional(Type.String()),
  }),
  data: Type.Array(AdvisoryRecord),
});
export const AdvisoryFeeds = Type.Object({
  data: Type.Array(
    Type.Object({ name: Type.String(), description: Type.Optional(Type.String()), href: Type.Optional(Type.String()) }),
  ),
});
export const AdvisoryExportLine = AdvisoryRecord;

export const CpeSearchPage = Type.Object({
  _benchmark: Type.Optional(Type.Number()),
  _meta: Type.Object({
    total_documents: Type.Optional(Type.Integer()),
    page: Type.Optional(Type.Integer()),
    total_pages: Type.Optional(Type.Integer()),
    limit: Type.Optional(Type.Integer()),
  }),
  data: Type.Array(
    Type.Object({
      cpe: Type.Optional(Type.String()),
      cpe_struct: Type.Optional(Loose),
      cves: Type.Array(Type.String()),
    }),
  ),
});

export const V4BackupList = Type.Object({
  data: Type.Array(
    Type.Object({
      name: Type.String(),
      href: Type.Optional(Type.String()),
      available: Type.Boolean(),
      backup_written_at: Type.Optional(Type.String()),
    }),
  ),
});
export const V4Backup = Type.Object({
  feed: Type.Optional(Type.String()),
  available: Type.Optional(Type.Boolean()),
  url_mrap: Type.Optional(Type.String()),
  url_expires: Type.Optional(Type.String()),
  url_ttl_minutes: Type.Optional(Type.Integer()),
  sha256: Type.Optional(Type.String()),
});
const IndexItem = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  href: Type.Optional(Type.String()),
});
export const V3BackupList = Type.Object({ _benchmark: Type.Optional(Type.Number()), data: Type.Array(IndexItem) });
export const V3IndexList = Type.Object({ _benchmark: Type.Optional(Type.Number()), data: Type.Array(IndexItem) });
export const V3Backup = Type.Object({
  _benchmark: Type.Optional(Type.Number()),
  _meta: Type.Optional(Loose),
  data: Type.Array(
    Type.Object({
      filename: Type.Optional(Type.String()),
      sha256: Type.Optional(Type.String()),
      date_added: Type.Optional(Type.String()),
      url: Type.Optional(Type.String()),
      url_ttl_minutes: Type.Optional(Type.Integer()),
      url_expires: Type.Optional(Type.String()),
    }),
  ),
});
export const ErrorBody = Type.Object({ error: Type.Boolean(), errors: Type.Array(Type.String()) });
