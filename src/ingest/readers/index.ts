/**
 * Entry point for scan inputs: open (file or stdin, gzip or not), detect the format, delegate
 * to the format's reader. Everything streams; see docs/observation-format.md.
 */
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
 * Observations and rejections from one scan file, in input order. Throws only when the file
 * cannot be opened; unreadable content becomes a rejection.
 */
export async function* readScanFile(path: string, options: ReadScanFileOptions = {}): AsyncGenerator<ReadItem> {
  const file = path === '-' ? '<stdin>' : path;
  const opened = await openScanInput(path, options.stdin);
  let input: NodeJS.ReadableStream & { destroy(): void } = opened;
  let lastLine = 1;
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
      yield item;
    }
  } catch (error) {
    if (!isGzipDataError(error)) throw error;
    const reason = `corrupt or truncated gzip data: ${reasonOf(error)}; the rest of the file was not read`;
    yield rejected({ file, line: lastLine }, reason);
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
