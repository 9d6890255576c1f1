/** Summaries go to stderr as aligned `key: value` lines so stdout stays for data (tokens, JSON). */
export function printSummary(title: string, values: Record<string, number | string>): void {
  const width = Math.max(...Object.keys(values).map((key) => key.length));
  process.stderr.write(`${title}\n`);
  for (const [key, value] of Object.entries(values)) {
    const shown = typeof value === 'number' ? value.toLocaleString('en-US') : value;
    process.stderr.write(`  ${key.padEnd(width)}  ${shown}\n`);
  }
}
