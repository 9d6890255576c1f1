/**
 * Entry point for scan inputs: open (file or stdin, gzip or not), detect the format, delegate
 * to the format's reader. Everything streams; see docs/observation-format.md.
 */
import { unreadableInput } from '../../core/errors.js';
import type { ReadItem } from '../../core/observation.js';
import { detectFormat, headIsDecisive } from './detect.js';
import { readMasscan } from './masscan.js';
import { readVulnscopeNdjson } from './ndjson.js';
import { readNmapXml } from './nmap.js';
import { isGzipDataError, openScanInput } from './open.js';
import { peekStream } from './peek.js';
import { readShodan } from './shodan.js';
import { reasonOf, type ScanFormat, type ScanReader } from './types.js';

export { detectFormat } from './detect.js';
export type { ScanFormat, ScanReader } from './types.js';

export const SCAN_READERS: Readonly<Record<ScanFormat, ScanReader>> = {
  ndjson: readVulnscopeNdjson,
  nmap: readNmapXml,
  shodan: readShodan,
  masscan: readMasscan,
};

/** How much of the input detection may look at when the first record is very large. */
const DETECTION_LIMIT = 256 * 1024;

export interface ReadScanFileOptions {
  /** Skip detection and use this reader. */
  format?: ScanFormat;
  /** Read from this stream when the path is `-` (default: process.stdin). */
  stdin?: NodeJS.ReadableStream;
}

/**
 * Rejections a file yields before its first observation are held back (up to this many) until one
 * comes. A file that cannot be decoded (corrupt gzip) yields a rejection for every record zlib
 * produced before it noticed, and a file of another kind (a KEV catalog, an OSV feed) one for every
 * record in it: both are one error saying why, not thousands of lines. A file whose first this
 * many records are all rejected is not a scan file; its reading ends there.
 */
const HELD_REJECTIONS = 10_000;

/**
 * Observations and rejections from one scan file, in input order. Throws when the file cannot be
 * opened. Ends with one `unreadable_input` error naming the file when nothing could be read from
 * it — it is empty, of no known format, every record of it was rejected — or when its data cannot
 * be decoded (corrupt or truncated gzip), after what was read before. A well-formed scan that
 * found nothing (an nmap run without open ports) yields nothing and is no error.
 */
export async function* readScanFile(path: string, options: ReadScanFileOptions = {}): AsyncGenerator<ReadItem> {
  const file = path === '-' ? '<stdin>' : path;
  const opened = await openScanInput(path, options.stdin);
  let input: NodeJS.ReadableStream & { destroy(): void } = opened;
  let lastLine = 1;
  let observations = 0;
  /** Rejections held back while `holding` (until the first observation or the limit). */
  let held: ReadItem[] = [];
  let holding = true;
  try {
    const peeked = await peekStream(opened, (head) => headIsDecisive(head.toString('utf8')), DETECTION_LIMIT);
    input = peeked.stream;
    const head = peeked.head.toString('utf8');
    if (head.replace(/^\uFEFF/, '').trim() === '' && head.length < DETECTION_LIMIT) {
      throw nothingRead(file, 'it is empty');
    }
    const format = options.format ?? detectFormat(head);
    if (!format) throw nothingRead(file, unrecognised(head));
    for await (const item of SCAN_READERS[format](input, file)) {
      lastLine = item.at.line;
      if (item.kind === 'observation') observations++;
      if (holding) {
        if (observations === 0) {
          held.push(item);
          if (held.length < HELD_REJECTIONS) continue;
          throw nothingRead(file, `${rejections(held, 'its first')}; the rest of it was not read`);
        }
        holding = false;
        yield* held;
        held = [];
      }
      yield item;
    }
    if (held.length > 0) throw nothingRead(file, rejections(held));
  } catch (error) {
    if (!isGzipDataError(error)) throw error;
    const reason = `corrupt or truncated gzip data (${reasonOf(error)})`;
    if (observations > 0) {
      throw unreadableInput(`${file}: ${reason} after line ${lastLine}; the rest of the file was not read`);
    }
    const before =
      held.length > 0 ? `; the ${held.length.toLocaleString('en-US')} records before it were rejected` : '';
    throw nothingRead(file, `${reason}${before}`);
  } finally {
    input.destroy();
    opened.destroy();
  }
}

const nothingRead = (file: string, why: string) => unreadableInput(`nothing could be read from ${file}: ${why}`);

/** `all 1,404 records were rejected (the first, line 1: missing ip)`. */
function rejections(held: ReadItem[], all = 'all'): string {
  const first = held[0]!;
  const reason = first.kind === 'rejected' ? first.reason : '';
  if (held.length === 1) return `its one record was rejected (line ${first.at.line}: ${reason})`;
  return `${all} ${held.length.toLocaleString('en-US')} records were rejected (the first, line ${first.at.line}: ${reason})`;
}

function unrecognised(head: string): string {
  const expected = 'expected nmap/masscan XML (<), a JSON array ([) or JSON lines ({)';
  // Undecodable bytes or NULs: quoting them would print garbage.
  const start512 = head.slice(0, 512);
  if (start512.includes('\u0000') || start512.includes('\uFFFD')) return `binary data, not text: ${expected}`;
  const start = JSON.stringify(
    head
      .replace(/^\uFEFF/, '')
      .trimStart()
      .slice(0, 20),
  );
  return `unrecognised input starting with ${start}: ${expected}`;
}
