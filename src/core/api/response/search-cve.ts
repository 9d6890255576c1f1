import { type Static, Type } from '@sinclair/typebox';
import { AdvisoryRecord } from './advisory-record.js';
import { Benchmark, Count, Instant } from './common.js';
import { TargetIntelRecord } from './target-intel.js';

/** One record that mentions the CVE (VulnCheck's `index.CveSearchHit`). */
export const CveSearchHit = Type.Object(
  {
    index: Type.String({ description: 'Where the record was found: an advisory feed name, or target-intel' }),
    id: Type.String({
      description: "The record's id within its index: the advisory id, or the target-intel record id",
    }),
    source: Type.Union([AdvisoryRecord, TargetIntelRecord], {
      description: 'The record as its own endpoint serves it (/v4/advisory, /v3/index/target-intel)',
    }),
  },
  { $id: 'CveSearchHit' },
);

/** Hits per index (VulnCheck's `index.IndexCountEntry`). */
export const CveSearchIndexCount = Type.Object(
  {
    index: Type.String({ description: 'Feed name or target-intel' }),
    doc_count: Count('Hits in that index'),
  },
  { $id: 'CveSearchIndexCount' },
);

/** `_meta` of a CVE search (VulnCheck's `index.CveSearchMeta`). */
export const CveSearchMeta = Type.Object(
  {
    timestamp: Instant('When the search ran'),
    cve: Type.String({ description: 'The CVE searched for, upper-case' }),
    limit: Type.Integer({ minimum: 1, description: 'Hits per page' }),
    page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page number (page mode only)' })),
    total_pages: Type.Optional(Count('ceil(total_count / limit) (page mode only)')),
    total_count: Count('Hits in every index searched'),
    current_count: Count('Hits on this page'),
    queried_index_count: Count('Indexes searched: the feeds the token may read, and target-intel'),
    indices_with_hits: Count('Indexes with at least one hit'),
    top_index_counts: Type.Array(CveSearchIndexCount, {
      description: 'Hits per index, most first, at most 10',
      maxItems: 10,
    }),
    next_cursor: Type.Optional(
      Type.String({ description: 'In a cursor walk: continues it; absent on its last page', minLength: 1 }),
    ),
  },
  { $id: 'CveSearchMeta' },
);

/** `GET /v3/search/cve` (VulnCheck's `render.ResponseWithMetadata-array_index_CveSearchHit-index_CveSearchMeta`). */
export const CveSearchPage = Type.Object(
  { _benchmark: Benchmark, _meta: CveSearchMeta, data: Type.Array(CveSearchHit) },
  { $id: 'CveSearchPage' },
);
export type CveSearchPage = Static<typeof CveSearchPage>;
