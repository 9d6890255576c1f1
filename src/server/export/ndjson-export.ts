import { Readable } from 'node:stream';
import { takeTurn } from '../../search/loop-turns.js';

/** Bytes gathered before they are handed to the socket (and the loop gets a turn). */
const CHUNK_BYTES = 1 << 16;

/** One record's line (its JSON, without the newline), as text or bytes already encoded. */
export type ExportLine = string | Uint8Array;

const NEWLINE = Buffer.from('\n');

/**
 * An NDJSON body from batches of lines, pulled only as fast as the client reads (constant
 * memory), closed by `{"_meta": {"complete": true, "records": N}}`: a client that does not see
 * that line knows the export was cut. Destroying the stream (the client went away) stops the pull.
 * `beforeEnd` runs before the closing line is sent, so what it frees is free when the client sees the end.
 */
export function ndjsonExport(
  batches: AsyncIterable<readonly ExportLine[]>,
  beforeEnd: () => Promise<void> = async () => {},
): Readable {
  return Readable.from(chunks(batches, beforeEnd), { objectMode: false });
}

async function* chunks(
  batches: AsyncIterable<readonly ExportLine[]>,
  beforeEnd: () => Promise<void>,
): AsyncGenerator<Buffer> {
  let records = 0;
  let pending: Uint8Array[] = [];
  let bytes = 0;
  for await (const batch of batches) {
    for (const line of batch) {
      const encoded = typeof line === 'string' ? Buffer.from(line) : line;
      pending.push(encoded, NEWLINE);
      bytes += encoded.length + 1;
      records++;
      if (bytes >= CHUNK_BYTES) {
        yield Buffer.concat(pending, bytes);
        pending = [];
        bytes = 0;
        await takeTurn();
      }
    }
  }
  await beforeEnd();
  pending.push(Buffer.from(`${JSON.stringify({ _meta: { complete: true, records } })}\n`));
  yield Buffer.concat(pending);
}
