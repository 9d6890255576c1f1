/**
 * CVE 5 upper bounds written as a release line (`lessThan: "2.*"`, `lessThanOrEqual: "1.2.*"`,
 * also `0*` and `2.x`): per the schema notes they mean "the rest of that line", so the version's leading
 * release numbers are compared with the line's numbers and everything deeper is ignored.
 */
import { sign, type Order } from './comparison.js';

/** The release numbers of a line (`2.4.*`, `2.4.x` → [2, 4]), or `undefined` if not one. */
export function parseLineBound(text: string): bigint[] | undefined {
  const match = /^v?(\d+(?:\.\d+)*)(?:\.?\*|\.x)$/i.exec(text.trim());
  return match ? match[1]!.split('.').map((part) => BigInt(part)) : undefined; // group 1 always takes part
}

/**
 * Where a version sits relative to a release line: -1 below it, 0 on it (`2.4.49` on `2.4.*`),
 * 1 above it. `undefined` when the version does not start with release numbers, or carries an
 * epoch whose meaning depends on the scheme.
 */
export function compareToLine(version: string, line: bigint[]): Order | undefined {
  const text = version
    .trim()
    .toLowerCase()
    .replace(/^(?:v|go)(?=\d)/, '');
  if (/^\d+:/.test(text)) return undefined;
  const release = /^\d+(?:\.\d+)*/.exec(text);
  if (!release) return undefined;
  const numbers = release[0].split('.').map((part) => BigInt(part));
  for (let i = 0; i < line.length; i++) {
    const order = sign((numbers[i] ?? 0n) - line[i]!);
    if (order !== 0) return order;
  }
  return 0;
}
