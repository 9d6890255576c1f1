import { createReadStream } from 'node:fs';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { invalidInput } from '../../core/errors.js';
import { peekStream, type Peeked } from './peek.js';

const isGzip = (head: Buffer) => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;

/**
 * Opens a scan file (or standard input for `-`) as a stream of plain bytes. Gzip is recognised
 * by its magic bytes, so `.gz` files, gzip on stdin and mis-named files all read the same way.
 * Destroying the returned stream closes the file.
 */
export async function openScanInput(path: string, stdin?: NodeJS.ReadableStream): Promise<Readable> {
  const source = path === '-' ? (stdin ?? process.stdin) : createReadStream(path);
  let peeked: Peeked;
  try {
    peeked = await peekStream(source, (head) => head.length >= 2, 2);
  } catch (error) {
    throw openError(path, error);
  }
  if (!isGzip(peeked.head)) return peeked.stream;
  const gunzip = createGunzip();
  // Errors of either stream end up on `gunzip`, which the reader consumes; nothing to add here.
  pipeline(peeked.stream, gunzip, () => {});
  return gunzip;
}

function openError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return invalidInput(`scan file not found: ${path}`);
  if (code === 'EISDIR') return invalidInput(`not a file: ${path}`);
  if (code === 'EACCES') return invalidInput(`cannot read ${path}: permission denied`);
  return error;
}

/** True for the errors zlib raises on damaged or truncated gzip data. */
export function isGzipDataError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}
