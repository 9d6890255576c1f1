/**
 * JSON records from a stream, whatever the layout: one object per line (NDJSON/JSONL),
 * pretty-printed objects one after another (`jq .` output, a Shodan host-API file), or one
 * top-level JSON array (masscan -oJ, `nuclei -je`-style exports). Memory stays bounded by the
 * largest single record.
 */
import { Transform, pipeline, type TransformCallback } from 'node:stream';
import StreamJson from 'stream-json';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import type { SourcePosition } from '../../core/observation.js';
import { LINE_LIMIT, readLines } from './lines.js';
import { firstSignificantChar, peekStream } from './peek.js';
import { reasonOf } from './types.js';

export type JsonRecord = { at: SourcePosition; value: unknown } | { at: SourcePosition; reason: string };

export async function* readJsonRecords(input: NodeJS.ReadableStream, file: string): AsyncGenerator<JsonRecord> {
  const { head, stream } = await peekStream(input, (h) => firstSignificantChar(h) !== undefined, 64 * 1024);
  if (firstSignificantChar(head) === '[') yield* readJsonArray(stream, file);
  else yield* readJsonLines(stream, file);
}

/** Elements of a top-level array; `at.line` is the 1-based element index. */
async function* readJsonArray(input: NodeJS.ReadableStream, file: string): AsyncGenerator<JsonRecord> {
  const elements = pipeline(
    input,
    new DropTrailingComma(),
    StreamJson.parser({ streamValues: false }),
    StreamArray.streamArray(),
    () => {},
  );
  let index = 0;
  try {
    for await (const element of elements as AsyncIterable<{ key: number; value: unknown }>) {
      index = element.key + 1;
      yield { at: { file, line: index }, value: element.value };
    }
  } catch (error) {
    if (isInputDataError(error)) throw error;
    yield {
      at: { file, line: index + 1 },
      reason: `invalid JSON array after element ${index}: ${reasonOf(error)}; the rest of the file was not read`,
    };
  } finally {
    elements.destroy();
  }
}

/** Errors of the input itself (zlib, file system) are not JSON problems; they go up unchanged. */
const isInputDataError = (error: unknown) =>
  typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string' &&
  !(error as NodeJS.ErrnoException).code?.startsWith('ERR_STREAM');

/**
 * Old masscan versions end the array with `},\n]`. The comma is dropped only when `]` is the
 * last significant byte of the whole input, so commas inside strings are never touched.
 */
class DropTrailingComma extends Transform {
  private held: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    const keep = heldSuffixStart(data);
    this.held = data.subarray(keep);
    done(null, data.subarray(0, keep));
  }

  override _flush(done: TransformCallback): void {
    const text = this.held.toString('latin1');
    done(null, /^,\s*\]\s*$/.test(text) ? Buffer.from(text.slice(1), 'latin1') : this.held);
  }
}

/** Where a possible trailing `,<ws>]<ws>` or `,<ws>` suffix starts (data.length if none). */
function heldSuffixStart(data: Buffer): number {
  let i = lastSignificant(data, data.length - 1);
  if (i >= 0 && data[i] === 0x5d /* ] */) i = lastSignificant(data, i - 1);
  return i >= 0 && data[i] === 0x2c /* , */ ? i : data.length;
}

function lastSignificant(data: Buffer, from: number): number {
  let i = from;
  while (i >= 0 && (data[i] === 0x20 || data[i] === 0x0a || data[i] === 0x0d || data[i] === 0x09)) i--;
  return i;
}

interface PendingObject {
  startLine: number;
  parts: string[];
  size: number;
  depth: number;
}

/** One record per line; a line that opens an object and leaves it open starts a multi-line record. */
async function* readJsonLines(input: NodeJS.ReadableStream, file: string): AsyncGenerator<JsonRecord> {
  let pending: PendingObject | undefined;
  const unfinished = (p: PendingObject): JsonRecord => ({
    at: { file, line: p.startLine },
    reason: `invalid JSON: the object starting on line ${p.startLine} is never closed`,
  });

  for await (const next of readLines(input)) {
    const at = { file, line: next.line };
    if ('tooLong' in next) {
      if (pending) yield unfinished(pending);
      pending = undefined;
      yield { at, reason: `line longer than ${LINE_LIMIT} characters; skipped` };
      continue;
    }
    const { text } = next;

    if (pending) {
      // A new object at column 0 means the pending one was truncated, not pretty-printed.
      if (text.startsWith('{') || pending.size > LINE_LIMIT) {
        yield unfinished(pending);
        pending = undefined;
      } else {
        pending.parts.push(text);
        pending.size += text.length;
        pending.depth += bracketDepthChange(text);
        if (pending.depth <= 0) {
          yield parseRecord(pending.parts.join('\n'), { file, line: pending.startLine });
          pending = undefined;
        }
        continue;
      }
    }

    const trimmed = text.trim();
    if (trimmed === '') continue;
    try {
      yield { at, value: JSON.parse(trimmed) };
    } catch (error) {
      const depth = bracketDepthChange(trimmed);
      if (trimmed.startsWith('{') && depth > 0) {
        pending = { startLine: next.line, parts: [text], size: text.length, depth };
      } else {
        yield { at, reason: `invalid JSON: ${reasonOf(error)}` };
      }
    }
  }
  if (pending) yield unfinished(pending);
}

function parseRecord(text: string, at: SourcePosition): JsonRecord {
  try {
    return { at, value: JSON.parse(text) };
  } catch (error) {
    return { at, reason: `invalid JSON: ${reasonOf(error)}` };
  }
}

/** Opened minus closed brackets/braces on one line, ignoring those inside strings. */
export function bracketDepthChange(line: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return depth;
}
