import { invalidInput } from '../../core/errors.js';

/**
 * Splits one CSV line into fields (RFC 4180 quoting: `"a, b"`, `"say ""hi"""`). Fields are not
 * trimmed; a trailing `\r` is dropped. Quoted fields spanning several lines are not supported:
 * list files are read line by line, so an unterminated quote is reported as an invalid line.
 */
export function splitCsvLine(line: string, separator = ','): string[] {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  const fields: string[] = [];
  let at = 0;
  for (;;) {
    if (text[at] === '"') {
      const { value, end } = readQuoted(text, at);
      fields.push(value);
      at = end;
      if (at < text.length && text[at] !== separator) {
        throw invalidInput(`unexpected text after a closing quote at column ${at + 1}`);
      }
    } else {
      const next = text.indexOf(separator, at);
      const end = next < 0 ? text.length : next;
      fields.push(text.slice(at, end));
      at = end;
    }
    if (at >= text.length) return fields;
    at += separator.length;
  }
}

function readQuoted(text: string, open: number): { value: string; end: number } {
  let value = '';
  let at = open + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) throw invalidInput(`unterminated quoted field starting at column ${open + 1}`);
    value += text.slice(at, quote);
    if (text[quote + 1] === '"') {
      value += '"';
      at = quote + 2;
    } else {
      return { value, end: quote + 1 };
    }
  }
}
