import { Readable } from 'node:stream';
import { loopTurns } from '../search/loop-turns.js';

/** Characters serialised between two checks of the loop's turn. */
const CHUNK_CHARS = 1 << 16;

/**
 * The bytes `JSON.stringify({...head, [arrayKey]: items})` would give (`arrayKey` last), as a
 * stream that serialises the items a few at a time and waits for the loop's next turn when this one is used up:
 * one JSON.stringify of a 15 MiB page would hold every other request for tens of milliseconds.
 */
export function jsonStream(head: Record<string, unknown>, arrayKey: string, items: readonly unknown[]): Readable {
  const opening = JSON.stringify(head);
  const prefix = `${opening.slice(0, -1)}${opening.length > 2 ? ',' : ''}${JSON.stringify(arrayKey)}:[`;
  return Readable.from(slices(prefix, items), { objectMode: false });
}

/** Chunks are encoded here, inside the slices: a string chunk would be encoded at the socket, outside them. */
async function* slices(prefix: string, items: readonly unknown[]): AsyncGenerator<Buffer> {
  let chunk = prefix;
  for (let i = 0; i < items.length; i++) {
    chunk += (i > 0 ? ',' : '') + JSON.stringify(items[i]);
    if (chunk.length >= CHUNK_CHARS) {
      yield Buffer.from(chunk);
      chunk = '';
      const wait = loopTurns.admit();
      if (wait !== undefined) await wait;
    }
  }
  yield Buffer.from(`${chunk}]}`);
}
