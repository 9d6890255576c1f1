import { type Static, Type } from '@sinclair/typebox';
import { Benchmark, Count, Instant } from './common.js';

const Attribute = (description: string) => Type.String({ description: `${description}; "*" for ANY, "-" for NA` });

/** A CPE name's attributes (VulnCheck's `api.CPE`), as the CPE 2.3 formatted string binds them. */
export const CpeStruct = Type.Object(
  {
    part: Attribute('a, o or h'),
    vendor: Attribute('Vendor'),
    product: Attribute('Product'),
    version: Attribute('Version'),
    update: Attribute('Update'),
    edition: Attribute('Edition'),
    language: Attribute('Language'),
    sw_edition: Attribute('Software edition'),
    target_sw: Attribute('Target software'),
    target_hw: Attribute('Target hardware'),
    other: Attribute('Other'),
  },
  { $id: 'CpeStruct' },
);

/** `GET /v3/search/cpe` (VulnCheck's `render.ResponseWithMetadata-search_Responses-search_ResponseMetadata`). */
export const CpeSearchPage = Type.Object(
  {
    _benchmark: Benchmark,
    _meta: Type.Object(
      {
        timestamp: Instant('When the query ran'),
        limit: Type.Integer({ minimum: 1, description: 'Names per page' }),
        total_documents: Count('Names the attributes match'),
        sort: Type.Literal('_id', { description: 'Names are ordered by the CPE string' }),
        order: Type.Union([Type.Literal('asc'), Type.Literal('desc')]),
        page: Type.Integer({ minimum: 1 }),
        total_pages: Count('ceil(total_documents / limit)'),
        max_pages: Count('Pages reachable (10,000 names deep)'),
        first_item: Count('(page − 1) × limit + 1; 0 when the page is empty'),
        last_item: Count('first_item + names on this page − 1; 0 when the page is empty'),
      },
      { $id: 'CpeSearchMeta' },
    ),
    data: Type.Array(
      Type.Object(
        {
          cpe: Type.String({ description: 'The CPE 2.3 formatted name' }),
          cpe_struct: CpeStruct,
          cves: Type.Array(Type.String(), {
            description: 'CVEs linked to the name (with isVulnerable=true, only where it is the vulnerable element)',
          }),
        },
        { $id: 'CpeSearchResult' },
      ),
    ),
  },
  { $id: 'CpeSearchPage' },
);
export type CpeSearchPage = Static<typeof CpeSearchPage>;
