/** Summaries go to stderr as aligned `key: value` lines so stdout stays for data (tokens, JSON). */
export function printSummary(title: string, values: Record<string, number | string>): void {
  const width = Math.max(...Object.keys(values).map((key) => key.length));
  process.stderr.write(`${title}\n`);
  for (const [key, value] of Object.entries(values)) {
    const shown = typeof value === 'number' ? value.toLocaleString('en-US') : value;
    process.stderr.write(`  ${key.padEnd(width)}  ${shown}\n`);
  }
}

/** An aligned table on stdout: one header row, then one row per item. */
export function printTable<K extends string>(rows: Array<Record<K, string | number>>, header: Record<K, string>): void {
  const keys = Object.keys(header) as K[];
  const table = [header, ...rows];
  const widths = keys.map((key) => Math.max(...table.map((row) => String(row[key]).length)));
  for (const row of table) {
    process.stdout.write(
      `${keys
        .map((key, i) => String(row[key]).padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
}
