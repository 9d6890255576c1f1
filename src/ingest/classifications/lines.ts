import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { invalidInput } from '../../core/errors.js';

/** The lines of a text file, streamed, with 1-based line numbers. A missing file is invalid input. */
export async function* readLines(path: string): AsyncGenerator<{ text: string; line: number }> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line += 1;
      yield { text: line === 1 ? text.replace(/^\uFEFF/, '') : text, line };
    }
  } catch (error) {
    throw fileError(path, error);
  } finally {
    lines.close();
    stream.destroy();
  }
}

function fileError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return invalidInput(`file not found: ${path}`);
  if (code === 'EISDIR') return invalidInput(`not a file: ${path}`);
  if (code === 'EACCES') return invalidInput(`cannot read ${path}: permission denied`);
  return error;
}
