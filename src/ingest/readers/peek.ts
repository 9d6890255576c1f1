import { Readable } from 'node:stream';

export interface Peeked {
  /** The bytes read ahead (at most about `maxBytes` plus one chunk). */
  head: Buffer;
  /** The whole input again, head included, for the reader that comes next. */
  stream: Readable;
}

/**
 * Reads ahead until `enough(head)` holds, `maxBytes` are buffered or the input ends, without
 * losing anything: the returned stream replays the head and then continues with the input.
 * Destroying the returned stream destroys the input.
 */
export async function peekStream(
  input: NodeJS.ReadableStream,
  enough: (head: Buffer) => boolean,
  maxBytes: number,
): Promise<Peeked> {
  const source = input[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let head = Buffer.alloc(0);
  let ended = false;
  try {
    while (head.length < maxBytes) {
      const next = await source.next();
      if (next.done) {
        ended = true;
        break;
      }
      chunks.push(toBuffer(next.value));
      head = Buffer.concat(chunks);
      if (enough(head)) break;
    }
  } catch (error) {
    await source.return?.();
    throw error;
  }

  async function* replay(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) yield head;
      if (ended) return;
      for (let next = await source.next(); !next.done; next = await source.next()) {
        yield toBuffer(next.value);
      }
    } finally {
      await source.return?.();
    }
  }
  return { head, stream: Readable.from(replay(), { objectMode: false }) };
}

const toBuffer = (chunk: string | Buffer) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk);

/** The first byte that is not JSON/XML whitespace or part of a UTF-8 BOM, as a character. */
export function firstSignificantChar(head: Buffer): string | undefined {
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  return i < head.length ? String.fromCharCode(head[i]!) : undefined;
}
