import { Readable } from 'node:stream';
import { takeTurn } from '../search/loop-turns.js';

/** Characters serialised between two checks of the loop's turn. */
const CHUNK_CHARS = 1 << 16;

/** An item's JSON: a string, or pieces of it where bytes already encoded are passed through. */
export type ItemEncoder<T> = (item: T) => string | Array<string | Uint8Array>;

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
  return Readable.from(takingTurns(pieces(head, arrayKey, items, encode)), { objectMode: false });
}

/** The same bytes as one buffer, built at once: for bodies small enough to build in one turn. */
export function jsonBuffer<T>(
  head: Record<string, unknown>,
  arrayKey: string,
  items: readonly T[],
  encode: ItemEncoder<T> = JSON.stringify,
): Buffer {
  const out: Uint8Array[] = [];
  for (const piece of pieces(head, arrayKey, items, encode)) if (piece !== CHUNK_END) out.push(piece);
  return Buffer.concat(out);
}

/** Marks the end of a stretch of about 64 KiB, where a stream takes a turn of the event loop. */
const CHUNK_END = Symbol('chunk end');

async function* takingTurns(source: Iterable<Uint8Array | typeof CHUNK_END>): AsyncGenerator<Uint8Array> {
  for (const piece of source) {
    if (piece !== CHUNK_END) yield piece;
    else await takeTurn();
  }
}

/**
 * The body's bytes in order: strings are gathered and encoded here, byte pieces passed through,
 * with CHUNK_END after each item that ends a stretch of about 64 KiB.
 */
function* pieces<T>(
  head: Record<string, unknown>,
  arrayKey: string,
  items: readonly T[],
  encode: ItemEncoder<T>,
): Generator<Uint8Array | typeof CHUNK_END> {
  const opening = JSON.stringify(head);
  let text = `${opening.slice(0, -1)}${opening.length > 2 ? ',' : ''}${JSON.stringify(arrayKey)}:[`;
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) text += ',';
    const encoded = encode(items[i]!);
    if (typeof encoded === 'string') text += encoded;
    else
      for (const piece of encoded) {
        if (typeof piece === 'string') text += piece;
        else {
          if (text.length > 0) yield Buffer.from(text);
          text = '';
          yield piece;
          bytes += piece.byteLength;
        }
      }
    if (text.length + bytes >= CHUNK_CHARS) {
      if (text.length > 0) yield Buffer.from(text);
      text = '';
      bytes = 0;
      yield CHUNK_END;
    }
  }
  yield Buffer.from(`${text}]}`);
}
