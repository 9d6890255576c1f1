/**
 * Advisory adapters turn advisory sources (CVE List V5, NVD CVE API 2.0, CISA KEV, OSV feeds)
 * into records in the shape `/v4/advisory` serves (`advisory.MitreCVEListV5Ref`, CONTRACT.md §2.3).
 * Mapping rules: docs/advisory-feeds.md.
 */

/** Extension members (`x_…`) are allowed wherever the contract's objects are open (all of them). */
type Extensions = { [extension: `x_${string}`]: unknown };

/** Exactly what /v4/advisory serves (`advisory.MitreCVEListV5Ref`), plus `x_*` extension members. */
export interface AdvisoryRecord extends Extensions {
  dataType: 'CVE_RECORD';
  dataVersion: '5.0';
  cveMetadata: {
    cveId: string;
    assignerOrgId?: string;
    assignerShortName?: string;
    state: string;
    dateReserved?: string;
    datePublished?: string;
    dateUpdated?: string;
    dateRejected?: string;
    serial?: number;
    requesterUserId?: string;
  } & Extensions;
  containers: { cna: Record<string, unknown>; adp?: Record<string, unknown>[] } & Extensions;
}

export type AdvisoryItem =
  | { kind: 'record'; record: AdvisoryRecord; sourceId: string /* the source's own id: CVE id, OSV id, … */ }
  | { kind: 'rejected'; sourceId: string; at: string /* file:line or file#member */; reason: string };

/** Reads a source into records of `feed` (whose provenance the records get where the source names none). */
export type AdvisoryAdapter = (
  source: string /* path: file, directory, or zip */,
  feed: string,
) => AsyncIterable<AdvisoryItem>;

/** A conversion problem of one record: becomes a `rejected` item, the adapter goes on. */
export class ConversionError extends Error {
  override name = 'ConversionError';
}

export type JsonObject = { [key: string]: unknown };

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
