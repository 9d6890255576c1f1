import { Readable } from 'node:stream';
import { loopTurns } from '../search/loop-turns.js';

/** Characters serialised between two checks of the loop's turn. */
const CHUNK_CHARS = 1 << 16;

/**
 * The bytes `JSON.stringify({...head, [arrayKey]: items})` would give (`arrayKey` last), as a
 * stream that serialises the items a few at a time and waits for the loop's next turn when this one is used up:
 * one JSON.stringify of a 15 MiB page would hold every other request for tens of milliseconds.
 */
export function jsonStream<T>(
  head: Record<string, unknown>,
  arrayKey: string,
  items: readonly T[],
  encode: ItemEncoder<T> = JSON.stringify,
): Readable {
  const opening = JSON.stringify(head);
  const prefix = `${opening.slice(0, -1)}${opening.length > 2 ? ',' : ''}${JSON.stringify(arrayKey)}:[`;
  return Readable.from(slices(prefix, items, encode), { objectMode: false });
}

/** The same bytes as one buffer, built at once: for bodies small enough to build in one turn. */
export function jsonBuffer<T>(
  head: Record<string, unknown>,
  arrayKey: string,
  items: readonly T[],
  encode: ItemEncoder<T> = JSON.stringify,
): Buffer {
  const opening = JSON.stringify(head);
  let text = `${opening.slice(0, -1)}${opening.length > 2 ? ',' : ''}${JSON.stringify(arrayKey)}:[`;
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) text += ',';
    const encoded = encode(items[i]!);
    if (typeof encoded === 'string') text += encoded;
    else
      for (const piece of encoded) {
        if (typeof piece === 'string') text += piece;
        else {
          pieces.push(Buffer.from(text), piece);
          text = '';
        }
      }
  }
  pieces.push(Buffer.from(`${text}]}`));
  return Buffer.concat(pieces);
}

/** An item's JSON: a string, or pieces of it where bytes already encoded are passed through. */
export type ItemEncoder<T> = (item: T) => string | Array<string | Uint8Array>;

/** Chunks are encoded here, inside the slices: a string chunk would be encoded at the socket, outside them. */
async function* slices<T>(prefix: string, items: readonly T[], encode: ItemEncoder<T>): AsyncGenerator<Uint8Array> {
  let chunk = prefix;
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) chunk += ',';
    const encoded = encode(items[i]!);
    if (typeof encoded === 'string') chunk += encoded;
    else
      for (const piece of encoded) {
        if (typeof piece === 'string') chunk += piece;
        else {
          if (chunk.length > 0) yield Buffer.from(chunk);
          chunk = '';
          yield piece;
          bytes += piece.byteLength;
        }
      }
    if (chunk.length + bytes >= CHUNK_CHARS) {
      if (chunk.length > 0) yield Buffer.from(chunk);
      chunk = '';
      bytes = 0;
      const wait = loopTurns.admit();
      if (wait !== undefined) await wait;
    }
  }
  yield Buffer.from(`${chunk}]}`);
}
