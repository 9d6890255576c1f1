import { Readable } from 'node:stream';
import type { C2ListFormat } from '../../../core/api/index.js';
import { takeTurn } from '../../../search/loop-turns.js';
import type { ClassifiedList, ListedEntry } from '../../../services/classified-lists.js';

/** Characters gathered before they are handed to the socket (and the loop gets a turn). */
const CHUNK_CHARS = 1 << 16;

/**
 * A list's body in chunks, formatted as it is read: text is one value per line (newline-separated,
 * none after the last), JSON an array of `{<field>: value, families?: [...]}`. Memory stays one chunk.
 */
function listChunks(
  entries: Iterable<ListedEntry>,
  format: C2ListFormat,
  field: 'ip' | 'hostname',
): AsyncGenerator<Buffer> {
  const opening = `{"${field}":`;
  const encode =
    format === 'json'
      ? (entry: ListedEntry) =>
          entry.families.length > 0
            ? `${opening}${JSON.stringify(entry.value)},"families":${JSON.stringify(entry.families)}}`
            : `${opening}${JSON.stringify(entry.value)}}`
      : (entry: ListedEntry) => entry.value;
  const separator = format === 'json' ? ',' : '\n';
  const [start, end] = format === 'json' ? ['[', ']'] : ['', ''];
  return chunks(entries, encode, separator, start, end);
}

async function* chunks(
  entries: Iterable<ListedEntry>,
  encode: (entry: ListedEntry) => string,
  separator: string,
  opening: string,
  closing: string,
): AsyncGenerator<Buffer> {
  let text = opening;
  let first = true;
  for (const entry of entries) {
    text += first ? encode(entry) : separator + encode(entry);
    first = false;
    if (text.length >= CHUNK_CHARS) {
      yield Buffer.from(text);
      text = '';
      await takeTurn();
    }
  }
  text += closing;
  if (text.length > 0) yield Buffer.from(text);
}

/**
 * Each list's formatted bodies, kept while the list is the same object (see ClassifiedList): block
 * lists are polled by many firewalls, and formatting a list of 10M records' addresses took most
 * of a request. The first request streams the body as it is made; a body is kept only when it was
 * made to its end.
 */
export class KeptListBodies {
  private readonly kept = new WeakMap<ClassifiedList, Map<string, Buffer>>();

  body(list: ClassifiedList, format: C2ListFormat, field: 'ip' | 'hostname'): Readable | Buffer {
    const key = format === 'json' ? 'json' : 'text';
    const found = this.kept.get(list)?.get(key);
    if (found) return found;
    const kept = this.kept;
    return Readable.from(
      (async function* () {
        const parts: Buffer[] = [];
        for await (const chunk of listChunks(list.entries(), format, field)) {
          parts.push(chunk);
          yield chunk;
        }
        const bodies = kept.get(list) ?? new Map<string, Buffer>();
        bodies.set(key, Buffer.concat(parts));
        kept.set(list, bodies);
      })(),
      { objectMode: false },
    );
  }
}

/** The media type of a format's body. */
export const mediaTypeOf = (format: C2ListFormat) =>
  format === 'json' ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
