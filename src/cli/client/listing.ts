/**
 * How the client commands print what they fetch: one page (table, `--json` envelope, `--ndjson`
 * records), a cursor walk (`--all`: table or NDJSON, a progress bar on stderr when it is a
 * terminal), or an export stream (NDJSON).
 */
import { invalidInput } from '../../core/errors.js';
import { Progress } from '../progress.js';
import { type Format, json, out, type Row, TableWriter } from './emit.js';

export interface Layout<R, K extends string> {
  header: Row<K>;
  row(record: R): Row<K>;
}

export interface OutputOptions {
  json?: boolean;
  ndjson?: boolean;
  all?: boolean;
}

/** `--json` prints one answer: with `--all` there are many. */
export function checkOutput(options: OutputOptions): void {
  if (options.json && options.ndjson) throw invalidInput('give --json or --ndjson, not both');
  if (options.all && options.json) throw invalidInput('--all prints records as they come: use --ndjson (or a table)');
}

/** Lines are written in batches of about this many characters. */
const BATCH_CHARS = 64 * 1024;

/** Records as NDJSON or table rows, batched, with the progress line kept out of the way. */
class RecordSink<R, K extends string> {
  private text = '';
  private rows: Array<Row<K>> = [];
  private readonly table: TableWriter<K> | undefined;

  constructor(
    format: Format,
    private readonly layout: Layout<R, K>,
    private readonly progress?: Progress,
  ) {
    this.table = format === 'table' ? new TableWriter(layout.header) : undefined;
  }

  async push(record: R): Promise<void> {
    if (this.table) this.rows.push(this.layout.row(record));
    else this.text += `${JSON.stringify(record)}\n`;
    if (this.text.length >= BATCH_CHARS || this.rows.length >= 500) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.table && this.text === '') return;
    // The progress line sits on the terminal's last line: clear it before data goes there.
    this.progress?.finish();
    if (this.table) await this.table.write(this.rows);
    else await out(this.text);
    this.rows = [];
    this.text = '';
  }
}

/** One page: the whole answer with `--json`, else its records. */
export async function printPage<P, R, K extends string>(
  page: P,
  records: R[],
  format: Format,
  layout: Layout<R, K>,
): Promise<void> {
  if (format === 'json') return json(page);
  const sink = new RecordSink(format, layout);
  for (const record of records) await sink.push(record);
  await sink.flush();
}

/** Every record of a walk or an export, with a progress bar towards `total` when it is known. */
export async function printStream<R, K extends string>(
  label: string,
  records: AsyncIterable<R>,
  format: Format,
  layout: Layout<R, K>,
  total?: () => Promise<number | undefined>,
): Promise<number> {
  const progress = new Progress(label, { unit: 'records' });
  if (progress.enabled && total) progress.setTotal(await total());
  const sink = new RecordSink(format, layout, progress);
  let count = 0;
  try {
    for await (const record of records) {
      await sink.push(record);
      progress.update(++count);
    }
  } finally {
    // What arrived is written also when the stream failed (the exit status says it is partial).
    await sink.flush();
    progress.finish();
  }
  return count;
}
