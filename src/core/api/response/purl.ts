import { type Static, Type } from '@sinclair/typebox';
import { Benchmark, Count, Instant } from './common.js';

/** A purl's components as parsed (VulnCheck's `purl.PackageURLJSON`); absent parts are empty. */
export const PurlStruct = Type.Object(
  {
    type: Type.String({ description: 'Package type, e.g. npm, pypi, golang' }),
    namespace: Type.String({ description: 'Namespace (npm scope, Maven group, Go module path prefix); "" when none' }),
    name: Type.String(),
    version: Type.String(),
    qualifiers: Type.Array(Type.Object({ key: Type.String(), value: Type.String() }, { $id: 'PurlQualifier' }), {
      description: 'Qualifiers in key order',
    }),
    subpath: Type.String({ description: '"" when none' }),
  },
  { $id: 'PurlStruct' },
);

/** One advisory affecting the package version (VulnCheck's `api.OSSPackageVulnerability`). */
export const PurlVulnerability = Type.Object(
  {
    detection: Type.String({ description: 'The advisory id: the OSV id (GHSA-…, PYSEC-…, GO-…) or the CVE id' }),
    fixed_version: Type.Optional(
      Type.String({ description: 'The version that fixes it; absent when the advisory names none' }),
    ),
  },
  { $id: 'PurlVulnerability' },
);

const Cves = Type.Array(Type.String({ description: 'CVE id' }), {
  description: 'CVE ids of the advisories, and the CVE aliases of OSV advisories, sorted',
});
const Vulnerabilities = Type.Array(PurlVulnerability, { description: 'Each advisory, in (feed, CVE id) order' });

/** `GET /v3/purl` (VulnCheck's `render.ResponseWithMetadata-v3controllers_PurlResponseData-v3controllers_PurlResponseMetadata`). */
export const PurlResult = Type.Object(
  {
    _benchmark: Benchmark,
    _meta: Type.Object(
      {
        purl_struct: PurlStruct,
        timestamp: Instant('When the query ran'),
        total_documents: Count(
          'Advisories affecting the package version (vulnerabilities may list fewer: at most 1,000)',
        ),
      },
      { $id: 'PurlMeta' },
    ),
    data: Type.Object({ cves: Cves, vulnerabilities: Vulnerabilities }, { $id: 'PurlData' }),
  },
  { $id: 'PurlResult' },
);
export type PurlResult = Static<typeof PurlResult>;

/** `POST /v3/purls` (VulnCheck's `render.ResponseWithMetadata-v3controllers_PurlsResponseData-v3controllers_PurlsResponseMetadata`). */
export const PurlsResult = Type.Object(
  {
    _benchmark: Benchmark,
    _meta: Type.Object(
      {
        timestamp: Instant('When the query ran'),
        total_documents: Count('Purls answered: one finding per purl of the request, in its order'),
      },
      { $id: 'PurlsMeta' },
    ),
    data: Type.Array(
      Type.Object(
        {
          purl: Type.String({ description: 'The purl as sent' }),
          purl_struct: PurlStruct,
          cves: Cves,
          vulnerabilities: Vulnerabilities,
        },
        { $id: 'PurlFinding' },
      ),
    ),
  },
  { $id: 'PurlsResult' },
);
export type PurlsResult = Static<typeof PurlsResult>;
