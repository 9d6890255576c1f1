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
import { rejected, reasonOf, type ScanFormat, type ScanReader } from './types.js';

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
 * comes: a file that cannot be decoded (corrupt gzip) yields a rejection for every record that
 * zlib produced before it noticed, and those are noise beside the one error that says why.
 */
const HELD_REJECTIONS = 10_000;

/**
 * Observations and rejections from one scan file, in input order. Throws when the file cannot be
 * opened, and ends with one `unreadable_input` error naming the file when its data cannot be
 * decoded (corrupt or truncated gzip): what was read before stays read.
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
    let format = options.format;
    if (!format) {
      const peeked = await peekStream(opened, (head) => headIsDecisive(head.toString('utf8')), DETECTION_LIMIT);
      input = peeked.stream;
      const head = peeked.head.toString('utf8');
      format = detectFormat(head);
      if (!format) {
        if (head.trim() !== '') yield rejected({ file, line: 1 }, unrecognised(head));
        return;
      }
    }
    for await (const item of SCAN_READERS[format](input, file)) {
      lastLine = item.at.line;
      if (item.kind === 'observation') observations++;
      if (holding) {
        if (observations === 0 && held.length < HELD_REJECTIONS) {
          held.push(item);
          continue;
        }
        holding = false;
        yield* held;
        held = [];
      }
      yield item;
    }
    yield* held;
  } catch (error) {
    if (!isGzipDataError(error)) throw error;
    const reason = `corrupt or truncated gzip data (${reasonOf(error)})`;
    if (observations > 0) {
      throw unreadableInput(`${file}: ${reason} after line ${lastLine}; the rest of the file was not read`);
    }
    const before =
      held.length > 0 ? `; the ${held.length.toLocaleString('en-US')} records before it were rejected` : '';
    throw unreadableInput(`nothing could be read from ${file}: ${reason}${before}`);
  } finally {
    input.destroy();
    opened.destroy();
  }
}

function unrecognised(head: string): string {
  const start = JSON.stringify(
    head
      .replace(/^\uFEFF/, '')
      .trimStart()
      .slice(0, 20),
  );
  return `unrecognised input starting with ${start}: expected nmap/masscan XML (<), a JSON array ([) or JSON lines ({)`;
}
