/**
 * JSON values of one document, streamed: NDJSON/JSONL one value per line (a bad line is reported
 * and the next one read), or a JSON document whose top-level array — or, for a top-level object,
 * whose members named in `streamKeys` that hold arrays (`vulnerabilities` of an NVD API page or of
 * the KEV catalog) — are yielded element by element. Memory stays bounded by the largest element.
 * Other members of such an object are collected as the `header` (e.g. the KEV `dateReleased`) and
 * passed with each element that follows them. A top-level object without a streamed member is one
 * value (one CVE record, one OSV entry, one NVD `cve`).
 */
import type { Readable } from 'node:stream';
import StreamJson from 'stream-json';
import { readLines } from '../readers/lines.js';
import { reasonOf, type JsonObject } from './types.js';
import type { SourceDocument } from './sources.js';

export type JsonValueItem = { at: string; value: unknown; header?: JsonObject } | { at: string; error: string };

export type DocumentFormat = 'lines' | 'json';

/** Line-delimited by name (`.ndjson`, `.jsonl`, with or without `.gz`), else a JSON document. */
export function formatOf(name: string): DocumentFormat {
  return /\.(ndjson|jsonl)(\.gz)?$/i.test(name) ? 'lines' : 'json';
}

export async function* documentValues(
  doc: SourceDocument,
  streamKeys: readonly string[] = [],
): AsyncGenerator<JsonValueItem> {
  const stream = await doc.open();
  try {
    if (formatOf(doc.name) === 'lines') yield* lineValues(stream, doc.name);
    else yield* jsonValues(stream, doc.name, new Set(streamKeys));
  } finally {
    stream.destroy();
  }
}

async function* lineValues(stream: Readable, name: string): AsyncGenerator<JsonValueItem> {
  for await (const line of readLines(stream)) {
    const at = `${name}:${line.line}`;
    if ('tooLong' in line) {
      yield { at, error: 'line too long' };
      continue;
    }
    if (line.text.trim() === '') continue;
    try {
      yield { at, value: JSON.parse(line.text) };
    } catch (error) {
      yield { at, error: `invalid JSON: ${reasonOf(error)}` };
    }
  }
}

interface Token {
  name: string;
  value?: string;
}

/** Sets a member like JSON.parse does: `__proto__` becomes an own member, not the prototype. */
function setMember(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

const BATCH = 1024;

/**
 * The parser's tokens in batches. Tokens produced before a syntax error are all delivered before
 * the error is thrown (so every complete element before it is yielded).
 */
async function* tokenBatches(input: Readable): AsyncGenerator<Token[]> {
  const parser = StreamJson.parser({ packValues: true, streamValues: false, jsonStreaming: true });
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
  input.pipe(parser);
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
    input.unpipe(parser);
    parser.destroy();
  }
}

/** Builds one JSON value from parser tokens. */
class Builder {
  private readonly stack: Array<unknown[] | JsonObject> = [];
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

  private open(container: unknown[] | JsonObject): void {
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

/** Errors of the input itself (zlib, file system, zip) are not JSON problems: they go up unchanged. */
export const isInputError = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && !code.startsWith('ERR_STREAM');
};

const pointer = (name: string, ...path: Array<string | number>) =>
  `${name}#/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

async function* jsonValues(stream: Readable, name: string, streamKeys: Set<string>): AsyncGenerator<JsonValueItem> {
  const batches = tokenBatches(stream);
  type Context = 'top' | 'object' | 'array' | 'member-array';
  let context: Context = 'top';
  let documentIndex = 0; // top-level values seen (concatenated JSON)
  let header: JsonObject = {};
  let streamedMember = false;
  let key: string | null = null;
  let index = 0;
  let builder: Builder | undefined;
  const docName = () => (documentIndex > 1 ? `${name}#${documentIndex}` : name);
  let last = name;
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
          } else if (context === 'array') {
            last = pointer(docName(), index);
            yield { at: last, value };
            index++;
          } else if (context === 'member-array') {
            last = pointer(docName(), key ?? '', index);
            yield { at: last, value, header };
            index++;
          } else {
            last = docName();
            yield { at: last, value };
          }
          continue;
        }
        switch (context) {
          case 'top':
            documentIndex++;
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
                last = docName();
                yield { at: last, value };
              }
            }
            break;
          case 'object':
            if (token.name === 'endObject') {
              context = 'top';
              if (!streamedMember) {
                last = docName();
                yield { at: last, value: header };
              }
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
                last = context === 'array' ? pointer(docName(), index) : pointer(docName(), key ?? '', index);
                yield context === 'array' ? { at: last, value } : { at: last, value, header };
                index++;
              }
            }
            break;
        }
      }
    }
  } catch (error) {
    if (isInputError(error)) throw error;
    yield { at: last, error: `invalid JSON after ${last}: ${reasonOf(error)}; the rest of the document was not read` };
  } finally {
    await batches.return(undefined);
  }
}
