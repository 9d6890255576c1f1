/**
 * dpkg's version ordering: `[epoch:]upstream[-revision]`, compared by epoch, then upstream, then
 * revision with dpkg's verrevcmp (`~` before everything, even the end; letters before other
 * punctuation; digit runs numerically). `undefined`: not a Debian version.
 */
import { sign, type Order } from './comparison.js';

interface DebianVersion {
  epoch: bigint;
  upstream: string;
  revision: string;
}

function parse(text: string): DebianVersion | undefined {
  const match = /^(?:(\d+):)?(.+?)(?:-([A-Za-z0-9.+~]+))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, epoch, upstream = '', revision] = match; // upstream (.+?) always takes part
  if (!/^[0-9][A-Za-z0-9.+~:-]*$/.test(upstream)) return undefined;
  return { epoch: BigInt(epoch ?? '0'), upstream, revision: revision ?? '' };
}

const isDigit = (c: string) => c >= '0' && c <= '9';
const isLetter = (c: string) => /^[A-Za-z]$/.test(c);

/** dpkg's `order()`: `~` < end of string < letters < other characters. */
function weight(c: string): number {
  if (c === '' || isDigit(c)) return 0;
  if (isLetter(c)) return c.charCodeAt(0);
  if (c === '~') return -1;
  return c.charCodeAt(0) + 256;
}

export function verrevcmp(a: string, b: string): Order {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a[i]!)) || (j < b.length && !isDigit(b[j]!))) {
      const difference = weight(a.charAt(i)) - weight(b.charAt(j));
      if (difference !== 0) return sign(difference);
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    let firstDifference = 0;
    while (isDigit(a.charAt(i)) && isDigit(b.charAt(j))) {
      if (firstDifference === 0) firstDifference = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(a.charAt(i))) return 1;
    if (isDigit(b.charAt(j))) return -1;
    if (firstDifference !== 0) return sign(firstDifference);
  }
  return 0;
}

export function compareDebian(a: string, b: string): Order | undefined {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return undefined;
  return (
    sign(left.epoch - right.epoch) ||
    verrevcmp(left.upstream, right.upstream) ||
    verrevcmp(left.revision, right.revision)
  );
}
