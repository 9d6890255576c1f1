/**
 * Output of the client commands on stdout: JSON, NDJSON lines, or an aligned table that streams
 * (its column widths are set by the header and the first rows; later, longer cells stretch their
 * row only). Writes wait for stdout to drain, so a long export never piles up in memory; a reader
 * that goes away (`| head`) ends the command quietly.
 */
import { once } from 'node:events';

let closed = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  closed = true;
  process.exit(0);
});

/** Writes text to stdout, waiting when its buffer is full. */
export async function out(text: string): Promise<void> {
  if (closed) return;
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

export const json = (value: unknown) => out(`${JSON.stringify(value, null, 2)}\n`);
export const ndjson = (value: unknown) => out(`${JSON.stringify(value)}\n`);

export type Row<K extends string> = Record<K, string | number>;

export class TableWriter<K extends string> {
  private widths: number[] | undefined;
  private readonly keys: K[];

  constructor(private readonly header: Row<K>) {
    this.keys = Object.keys(header) as K[];
  }

  /** Writes rows; the first call writes the header too (also when there are no rows). */
  async write(rows: Array<Row<K>>): Promise<void> {
    let text = '';
    if (!this.widths) {
      const all = [this.header, ...rows];
      this.widths = this.keys.map((key) => Math.max(...all.map((row) => String(row[key]).length)));
      text += this.line(this.header);
    }
    for (const row of rows) text += this.line(row);
    await out(text);
  }

  private line(row: Row<K>): string {
    return `${this.keys
      .map((key, i) => String(row[key]).padEnd(this.widths![i]!))
      .join('  ')
      .trimEnd()}\n`;
  }
}

/** The output format a command was asked for. */
export type Format = 'table' | 'json' | 'ndjson';

export function formatOf(options: { json?: boolean; ndjson?: boolean }): Format {
  return options.json ? 'json' : options.ndjson ? 'ndjson' : 'table';
}

/** A cell: at most `max` characters, one line. */
export function cell(value: unknown, max = 60): string {
  if (value === undefined || value === null) return '';
  const text = (Array.isArray(value) ? value.join(',') : String(value)).replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
