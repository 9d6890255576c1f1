/** Pieces shared by the adapters: the read loop and small value helpers. */
import { withProvenance } from '../../core/advisory/provenance.js';
import { documentValues } from './document-values.js';
import { sourceDocuments, type AcceptName } from './sources.js';
import { ConversionError, reasonOf, type AdvisoryItem, type JsonObject } from './types.js';

export const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
export const strings = (value: unknown): string[] => list(value).filter((v): v is string => typeof v === 'string');

/** `someKey` / `some_key` → `x_<prefix>SomeKey`: where unmapped source members go. */
export const extensionKey = (prefix: string, key: string) =>
  `x_${prefix}${key
    .split('_')
    .filter((part) => part !== '')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}`;

/** A JSON value's source id for reports, when it has one. */
export type IdOf = (value: unknown) => string | undefined;
/**
 * Converts one source value (with the header members of its document, for streamed arrays) to
 * items, normally one record; throws ConversionError to reject it.
 */
export type Convert = (value: unknown, header: JsonObject | undefined) => AdvisoryItem[];

/**
 * The loop every adapter runs: documents of the source → JSON values → converted items, their
 * records completed with `feed`'s provenance. A value that cannot be read or converted becomes a
 * `rejected` item; the rest goes on. Errors of the input itself (missing file, corrupt gzip or
 * zip) end the iteration.
 */
export async function* runAdapter(
  source: string,
  feed: string,
  accept: AcceptName,
  streamKeys: readonly string[],
  idOf: IdOf,
  convert: Convert,
): AsyncGenerator<AdvisoryItem> {
  for await (const doc of sourceDocuments(source, accept)) {
    for await (const item of documentValues(doc, streamKeys)) {
      if ('error' in item) {
        yield { kind: 'rejected', sourceId: '', at: item.at, reason: item.error };
        continue;
      }
      for (const converted of convertValue(item.value, item.header, item.at, idOf, convert))
        yield converted.kind === 'record'
          ? { ...converted, record: withProvenance(converted.record, feed) }
          : converted;
    }
  }
}

/**
 * Converts one source value to items; a value the conversion rejects becomes a `rejected` item
 * (`at` says where it was). For values read elsewhere too (API pages).
 */
export function convertValue(
  value: unknown,
  header: JsonObject | undefined,
  at: string,
  idOf: IdOf,
  convert: Convert,
): AdvisoryItem[] {
  try {
    return convert(value, header);
  } catch (error) {
    // A TypeError/RangeError here means a value shaped so oddly that the conversion tripped on
    // it: that record's problem, reported like a ConversionError. Anything else is a bug.
    if (!(error instanceof ConversionError) && !(error instanceof TypeError) && !(error instanceof RangeError))
      throw error;
    return [{ kind: 'rejected', sourceId: idOf(value) ?? '', at, reason: reasonOf(error) }];
  }
}

/** File names of JSON documents (optionally gzipped), and of JSON Lines files. */
export const JSON_NAME = /\.json(\.gz)?$/i;
export const LINES_NAME = /\.(ndjson|jsonl)(\.gz)?$/i;
export const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);
