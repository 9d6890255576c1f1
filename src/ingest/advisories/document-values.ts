/**
 * The JSON values of one advisory or CPE dictionary source document, each with where it was for
 * reports: NDJSON/JSONL one value per line (`name:line`; a bad line is reported and the next one
 * read), or a JSON document whose top-level array — or, for a top-level object, whose members named
 * in `streamKeys` that hold arrays (`vulnerabilities` of an NVD API page or of the KEV catalog) —
 * are yielded element by element (`name#/vulnerabilities/3`), the object's other members passed
 * with each element as its `header` (e.g. the KEV `dateReleased`). A top-level object without a
 * streamed member is one value (one CVE record, one OSV entry, one NVD `cve`). The reading is
 * `../readers/json-values.ts`'s; memory stays bounded by the largest element.
 */
import { type DocumentPlace, readJsonDocument, readJsonLines } from '../readers/json-values.js';
import type { SourceDocument } from './sources.js';
import type { JsonObject } from './types.js';

export type JsonValueItem = { at: string; value: unknown; header?: JsonObject } | { at: string; error: string };

export type DocumentFormat = 'lines' | 'json';

/** Line-delimited by name (`.ndjson`, `.jsonl`, with or without `.gz`), else a JSON document. */
export function formatOf(name: string): DocumentFormat {
  return /\.(ndjson|jsonl)(\.gz)?$/i.test(name) ? 'lines' : 'json';
}

export async function* documentValues(
  doc: SourceDocument,
  streamKeys: readonly string[] = [],
): AsyncGenerator<JsonValueItem> {
  const stream = await doc.open();
  if (formatOf(doc.name) === 'lines') {
    for await (const item of readJsonLines(stream, { file: doc.name })) {
      const at = `${doc.name}:${item.at.line}`;
      yield 'value' in item ? { at, value: item.value } : { at, error: item.reason };
    }
    return;
  }
  for await (const item of readJsonDocument(stream, { streamKeys })) {
    if ('value' in item) {
      const at = placeName(doc.name, item.at);
      yield item.header ? { at, value: item.value, header: item.header } : { at, value: item.value };
    } else {
      const last = item.after ? placeName(doc.name, item.after) : doc.name;
      yield { at: last, error: `invalid JSON after ${last}: ${item.invalid}; the rest of the document was not read` };
    }
  }
}

/** `name` (the first top-level value) or `name#2` (the second), then a JSON pointer to a streamed element. */
function placeName(name: string, place: DocumentPlace): string {
  const document = place.document > 1 ? `${name}#${place.document}` : name;
  if (place.index === undefined) return document;
  return place.member === undefined ? pointer(document, place.index) : pointer(document, place.member, place.index);
}

const pointer = (name: string, ...path: Array<string | number>) =>
  `${name}#/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
