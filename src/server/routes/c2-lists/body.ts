import { Readable } from 'node:stream';
import type { C2ListFormat } from '../../../core/api/index.js';
import { takeTurn } from '../../../search/loop-turns.js';
import type { ListedEntry } from '../../../services/classified-lists.js';

/** Characters gathered before they are handed to the socket (and the loop gets a turn). */
const CHUNK_CHARS = 1 << 16;

/**
 * A list's body, formatted as it is read: text is one value per line (newline-separated, none
 * after the last), JSON an array of `{<field>: value, families?: [...]}`. Memory stays one chunk.
 */
export function listBody(entries: Iterable<ListedEntry>, format: C2ListFormat, field: 'ip' | 'hostname'): Readable {
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
  return Readable.from(chunks(entries, encode, separator, start, end), { objectMode: false });
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

/** The media type of a format's body. */
export const mediaTypeOf = (format: C2ListFormat) =>
  format === 'json' ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
