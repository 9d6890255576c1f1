import { StringDecoder } from 'node:string_decoder';

export type Line =
  | { line: number; text: string }
  /** A line longer than the limit: its text was discarded to keep memory bounded. */
  | { line: number; tooLong: true };

export const LINE_LIMIT = 64 * 1024 * 1024;

/**
 * Splits a byte stream into UTF-8 lines (1-based numbers; `\n` or `\r\n`; a leading BOM dropped).
 * Unlike readline, errors of the input stream (e.g. corrupt gzip) reach the caller.
 */
export async function* readLines(input: NodeJS.ReadableStream, limit = LINE_LIMIT): AsyncGenerator<Line> {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let discarding = false;
  let line = 0;
  const finish = (text: string): Line => {
    line += 1;
    if (discarding) {
      discarding = false;
      return { line, tooLong: true };
    }
    const clean = text.endsWith('\r') ? text.slice(0, -1) : text;
    return { line, text: line === 1 ? clean.replace(/^\uFEFF/, '') : clean };
  };

  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
      yield finish(partial + text.slice(start, newline));
      partial = '';
      start = newline + 1;
    }
    if (!discarding) partial += text.slice(start);
    if (partial.length > limit) {
      partial = '';
      discarding = true;
    }
  }
  partial += decoder.end();
  if (partial !== '' || discarding) yield finish(partial);
}
