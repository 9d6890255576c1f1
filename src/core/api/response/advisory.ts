import { type Static, Type } from '@sinclair/typebox';
import { AdvisoryRecord } from './advisory-record.js';
import { Count, ExportEnd, Href } from './common.js';

export { AdvisoryRecord } from './advisory-record.js';

/** `GET /v4/advisory` (VulnCheck's `search.V4AdvisoryReturnValue`). */
export const AdvisoryPage = Type.Object(
  {
    _meta: Type.Object(
      {
        total: Count('Records of the feeds read'),
        filtered: Count('Records the filters match'),
        page: Type.Integer({ minimum: 1, description: 'Page number; in a cursor walk, the page of the walk' }),
        pages: Count('ceil(filtered / limit)'),
        limit: Type.Integer({ minimum: 1, maximum: 100, description: 'Records per page' }),
        cursor: Type.Optional(Type.String({ description: 'The cursor this page continues' })),
        next_cursor: Type.Optional(
          Type.String({ description: 'In a cursor walk: continues it; absent on its last page', minLength: 1 }),
        ),
      },
      { $id: 'AdvisoryMeta' },
    ),
    data: Type.Array(AdvisoryRecord),
  },
  { $id: 'AdvisoryPage' },
);
export type AdvisoryPage = Static<typeof AdvisoryPage>;

/** `GET /v4/advisory/list` (VulnCheck's `search.V4ListFeedReturnValue`). */
export const AdvisoryFeeds = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          description: Type.String(),
          href: Href("The feed's records: /v4/advisory?name=<feed>"),
        },
        { $id: 'AdvisoryFeed' },
      ),
      { description: 'The feeds the token may read, by name' },
    ),
  },
  { $id: 'AdvisoryFeeds' },
);
export type AdvisoryFeeds = Static<typeof AdvisoryFeeds>;

/** One line of `GET /v4/advisory/export`: a record, or the closing line. */
export const AdvisoryExportLine = Type.Union([AdvisoryRecord, ExportEnd], {
  $id: 'AdvisoryExportLine',
  description: 'One NDJSON line: a record, then after the last record the closing `_meta` line',
});
export type AdvisoryExportLine = Static<typeof AdvisoryExportLine>;
