/**
 * The one streaming JSON reader of the ingest, for scan inputs (`json-records.ts`) and advisory
 * and CPE dictionary sources (`../advisories/document-values.ts`). Two layouts, one function each:
 *
 * - `readJsonLines` (NDJSON/JSONL): one value per line; blank lines are skipped, a bad line is reported
 *   and the next one read. With `multiLineObjects`, a line that opens an object and leaves it open
 *   starts an object that goes on over the following lines (pretty-printed objects one after
 *   another: `jq .` output, a Shodan host-API file), placed at its first line.
 * - `readJsonDocument`: JSON text, several top-level values one after another included. A top-level
 *   array — or, of a top-level object, the members named in `streamKeys` that hold arrays
 *   (`vulnerabilities` of an NVD API page or of the KEV catalog) — is yielded element by element;
 *   the other members of such an object are collected as its `header` (e.g. the KEV
 *   `dateReleased`) and passed with each element (one object, so members after the array arrive
 *   later). A top-level value with nothing streamed is one value. Invalid JSON ends the reading:
 *   every complete value before it is yielded, then one `invalid` item.
 *
 * Memory stays bounded by the largest single value (element, line, pretty-printed object). Errors
 * of the input itself (zlib, file system, zip) are not JSON problems: they go up unchanged. The
 * input is destroyed when the reading ends or is abandoned.
 */
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import StreamJson from 'stream-json';
import type { SourcePosition } from '../../core/observation.js';
import { LINE_LIMIT, readLines } from './lines.js';
import { reasonOf } from './types.js';

/** A value and its 1-based line (the first one of a multi-line object), or a line that is not one. */
export type LineItem = { at: SourcePosition; value: unknown } | { at: SourcePosition; reason: string };

export interface LineOptions {
  /** The input's name in positions. */
  file: string;
  /** An object left open at the end of its line goes on over the next lines. */
  multiLineObjects?: boolean;
}

/**
 * Where a value is in a JSON document: the 1-based top-level value (concatenated JSON), and within
 * it, for an element of a streamed array, its 0-based `index` and, in a streamed member, the
 * member's name.
 */
export interface DocumentPlace {
  document: number;
  member?: string;
  index?: number;
}

export type DocumentItem =
  /** A value; `header` holds the other members of the object whose member array it is an element of. */
  | { at: DocumentPlace; value: unknown; header?: Record<string, unknown> }
  /**
   * Invalid JSON: the parser's reason. Nothing after `after`, the last value yielded (undefined if
   * none), could be read, and the reading stopped.
   */
  | { after: DocumentPlace | undefined; invalid: string };

export interface DocumentOptions {
  /** Members of a top-level object whose arrays are streamed element by element. */
  streamKeys?: Iterable<string>;
  /** A comma before the input's final `]` is ignored (old masscan `-oJ` ends `},\n]`). */
  trailingComma?: boolean;
}

// ---- lines ----

interface PendingObject {
  startLine: number;
  parts: string[];
  size: number;
  depth: number;
}

/** The values of NDJSON/JSONL; a bad line is reported and the next one read. */
export async function* readJsonLines(input: Readable, options: LineOptions): AsyncGenerator<LineItem> {
  const { file } = options;
  const multiLineObjects = options.multiLineObjects ?? false;
  let pending: PendingObject | undefined;
  const unfinished = (p: PendingObject): LineItem => ({
    at: { file, line: p.startLine },
    reason: `invalid JSON: the object starting on line ${p.startLine} is never closed`,
  });

  try {
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
            yield parsed(pending.parts.join('\n'), { file, line: pending.startLine });
            pending = undefined;
          }
          continue;
        }
      }

      const trimmed = text.trim();
      if (trimmed === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch (error) {
        const depth = multiLineObjects && trimmed.startsWith('{') ? bracketDepthChange(trimmed) : 0;
        if (depth > 0) pending = { startLine: next.line, parts: [text], size: text.length, depth };
        else yield { at, reason: `invalid JSON: ${reasonOf(error)}` };
        continue;
      }
      yield { at, value };
    }
    if (pending) yield unfinished(pending);
  } finally {
    input.destroy();
  }
}

function parsed(text: string, at: SourcePosition): LineItem {
  try {
    return { at, value: JSON.parse(text) };
  } catch (error) {
    return { at, reason: `invalid JSON: ${reasonOf(error)}` };
  }
}

/** Opened minus closed brackets/braces on one line, ignoring those inside strings. */
function bracketDepthChange(line: string): number {
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

// ---- document ----

/** The values of a JSON document, its top-level arrays and `streamKeys` member arrays element by element. */
export async function* readJsonDocument(input: Readable, options: DocumentOptions = {}): AsyncGenerator<DocumentItem> {
  const streamKeys = new Set(options.streamKeys);
  const batches = tokenBatches(input, options.trailingComma ?? false);
  type Context = 'top' | 'object' | 'array' | 'member-array';
  let context: Context = 'top';
  let document = 0; // top-level values seen (concatenated JSON)
  let header: Record<string, unknown> = {};
  let streamedMember = false;
  let key: string | null = null;
  let index = 0;
  let builder: Builder | undefined;
  let last: DocumentPlace | undefined;
  /** The item of a complete value in the current context (not for header members). */
  const item = (value: unknown): DocumentItem => {
    if (context === 'array') last = { document, index };
    else if (context === 'member-array') last = { document, member: key ?? '', index };
    else last = { document };
    return context === 'member-array' ? { at: last, value, header } : { at: last, value };
  };
  try {
    for await (const batch of batches) {
      for (const token of batch) {
        if (builder) {
          if (!builder.consume(token)) continue;
          const value = builder.value;
          builder = undefined;
          if (context === 'object') {
            setMember(header, key ?? '', value);
            key = null;
          } else {
            yield item(value);
            if (context !== 'top') index++;
          }
          continue;
        }
        switch (context) {
          case 'top':
            document++;
            if (token.name === 'startObject') {
              context = 'object';
              header = {};
              streamedMember = false;
            } else if (token.name === 'startArray') {
              context = 'array';
              index = 0;
            } else {
              builder = new Builder();
              if (builder.consume(token)) {
                const value = builder.value;
                builder = undefined;
                yield item(value);
              }
            }
            break;
          case 'object':
            if (token.name === 'endObject') {
              context = 'top';
              if (!streamedMember) yield item(header);
            } else if (token.name === 'keyValue') {
              key = token.value ?? '';
            } else if (token.name === 'startArray' && key !== null && streamKeys.has(key)) {
              context = 'member-array';
              streamedMember = true;
              index = 0;
            } else {
              builder = new Builder();
              if (builder.consume(token)) {
                setMember(header, key ?? '', builder.value);
                builder = undefined;
                key = null;
              }
            }
            break;
          case 'array':
          case 'member-array':
            if (token.name === 'endArray') {
              context = context === 'array' ? 'top' : 'object';
              if (context === 'object') key = null;
            } else {
              builder = new Builder();
              if (builder.consume(token)) {
                const value = builder.value;
                builder = undefined;
                yield item(value);
                index++;
              }
            }
            break;
        }
      }
    }
  } catch (error) {
    if (isInputError(error)) throw error;
    yield { after: last, invalid: reasonOf(error) };
  } finally {
    await batches.return(undefined);
    input.destroy();
  }
}

/** Errors of the input itself (zlib, file system, zip) are not JSON problems: they go up unchanged. */
const isInputError = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && !code.startsWith('ERR_STREAM');
};

interface Token {
  name: string;
  value?: string;
}

/** Sets a member like JSON.parse does: `__proto__` becomes an own member, not the prototype. */
function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

const BATCH = 1024;

/**
 * The parser's tokens in batches. Tokens produced before a syntax error are all delivered before
 * the error is thrown (so every complete element before it is yielded).
 */
async function* tokenBatches(input: Readable, trailingComma: boolean): AsyncGenerator<Token[]> {
  const parser = StreamJson.parser({ packValues: true, streamValues: false, jsonStreaming: true });
  const dropper = trailingComma ? input.pipe(new DropTrailingComma()) : undefined;
  const source = dropper ?? input;
  let queue: Token[] = [];
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  parser.on('data', (token: Token) => {
    queue.push(token);
    if (queue.length >= BATCH) {
      parser.pause();
      signal();
    }
  });
  parser.on('end', () => {
    ended = true;
    signal();
  });
  const fail = (error: unknown) => {
    failure ??= error;
    ended = true;
    signal();
  };
  parser.on('error', fail);
  input.on('error', fail);
  dropper?.on('error', fail);
  source.pipe(parser);
  try {
    for (;;) {
      if (queue.length > 0) {
        const batch = queue;
        queue = [];
        yield batch;
        if (!ended) parser.resume();
        continue;
      }
      if (ended) {
        if (failure !== undefined) throw failure;
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    source.unpipe(parser);
    if (dropper) {
      input.unpipe(dropper);
      dropper.destroy();
    }
    parser.destroy();
  }
}

/** Builds one JSON value from parser tokens. */
class Builder {
  private readonly stack: Array<unknown[] | Record<string, unknown>> = [];
  private readonly keys: Array<string | null> = [];
  private key: string | null = null;
  value: unknown;

  /** Feeds a token; true when the value is complete. */
  consume(token: Token): boolean {
    switch (token.name) {
      case 'startObject':
        this.open({});
        return false;
      case 'startArray':
        this.open([]);
        return false;
      case 'endObject':
      case 'endArray': {
        const value = this.stack.pop();
        this.key = this.keys.pop() ?? null;
        return this.save(value);
      }
      case 'keyValue':
        this.key = token.value ?? '';
        return false;
      case 'stringValue':
        return this.save(token.value ?? '');
      case 'numberValue':
        return this.save(Number(token.value));
      case 'nullValue':
        return this.save(null);
      case 'trueValue':
        return this.save(true);
      case 'falseValue':
        return this.save(false);
      default:
        return false;
    }
  }

  private open(container: unknown[] | Record<string, unknown>): void {
    this.stack.push(container);
    this.keys.push(this.key);
    this.key = null;
  }

  private save(value: unknown): boolean {
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) {
      this.value = value;
      return true;
    }
    if (Array.isArray(parent)) parent.push(value);
    else setMember(parent, this.key ?? '', value);
    return false;
  }
}

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
