import { type Static, Type } from '@sinclair/typebox';
import { Benchmark, Count, Instant } from './common.js';
import { CpeStruct } from './cpe-search.js';

/** `GET /v3/cpe` (VulnCheck's `render.ResponseWithMetadata-array_string-v3controllers_ResponseMetadata`). */
export const CpeLookup = Type.Object(
  {
    _benchmark: Benchmark,
    _meta: Type.Object(
      {
        cpe: Type.String({ description: 'The CPE as sent' }),
        cpe_struct: CpeStruct,
        timestamp: Instant('When the query ran'),
        total_documents: Count('CVEs listed'),
      },
      { $id: 'CpeLookupMeta' },
    ),
    data: Type.Array(Type.String({ description: 'A CVE id' }), {
      description:
        'CVE ids, ascending: those covering the CPE itself and every CPE name it matches (with isVulnerable=true, only where it is the vulnerable element)',
    }),
  },
  { $id: 'CpeLookup' },
);
export type CpeLookup = Static<typeof CpeLookup>;
