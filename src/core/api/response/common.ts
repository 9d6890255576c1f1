import { Type } from '@sinclair/typebox';

/** Server-side processing time of the request, as VulnCheck's v3 envelopes carry it. */
export const Benchmark = Type.Number({
  description: 'Server-side processing time of the request, in seconds (0.0021 = 2.1 ms)',
  minimum: 0,
});

/** An RFC 3339 UTC instant. */
export const Instant = (description: string) => Type.String({ description, format: 'date-time' });

export const Count = (description: string) => Type.Integer({ description, minimum: 0 });

export const Href = (description: string) => Type.String({ description, format: 'uri' });

export const Sha256 = Type.String({ description: 'SHA-256 of the archive, lowercase hex', pattern: '^[0-9a-f]{64}$' });

/** An active filter, echoed in `_meta.matches`. */
export const FilterMatch = Type.Object(
  {
    field: Type.String({ description: 'The parameter name' }),
    value: Type.String({ description: 'Its value as given' }),
  },
  { $id: 'FilterMatch', description: 'An active filter of the request' },
);

/** The closing line of every NDJSON export: a client that does not see it knows the export was cut. */
export const ExportEnd = Type.Object(
  {
    _meta: Type.Object(
      {
        complete: Type.Literal(true, { description: 'The export ran to its end' }),
        records: Count('Record lines sent before this one'),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'ExportEnd',
    additionalProperties: false,
    description: 'The last line of an export; a stream that ends without it was cut short',
  },
);
