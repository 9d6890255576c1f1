/**
 * RPM's ordering (rpmvercmp on `[epoch:]version[-release]`): alphanumeric segments, numbers
 * numerically and above letters, `~` before everything and `^` after the end but before anything
 * else. A missing release compares as older, which is a guess when the versions are equal, so
 * that case is reported separately. `undefined`: not an RPM version.
 */
import { sign, type Order } from './comparison.js';

interface RpmVersion {
  epoch: bigint;
  version: string;
  release: string | undefined;
}

function parse(text: string): RpmVersion | undefined {
  const match = /^(?:(\d+):)?([^-\s]+)(?:-([^-\s]+))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, epoch, version = '', release] = match; // the version group always takes part
  if (!/[0-9]/.test(version)) return undefined;
  return { epoch: BigInt(epoch ?? '0'), version, release };
}

const isAlphanumeric = (c: string) => /^[A-Za-z0-9]$/.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';

export function rpmvercmp(a: string, b: string): Order {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while (i < a.length && !isAlphanumeric(a[i]!) && a[i] !== '~' && a[i] !== '^') i++;
    while (j < b.length && !isAlphanumeric(b[j]!) && b[j] !== '~' && b[j] !== '^') j++;
    if (a[i] === '~' || b[j] === '~') {
      if (a[i] !== '~') return 1;
      if (b[j] !== '~') return -1;
      i++;
      j++;
      continue;
    }
    if (a[i] === '^' || b[j] === '^') {
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (a[i] !== '^') return 1;
      if (b[j] !== '^') return -1;
      i++;
      j++;
      continue;
    }
    if (i >= a.length || j >= b.length) break;
    const numeric = isDigit(a[i]!);
    const inSegment = numeric ? isDigit : (c: string) => /^[A-Za-z]$/.test(c);
    const startA = i;
    const startB = j;
    while (i < a.length && inSegment(a[i]!)) i++;
    while (j < b.length && inSegment(b[j]!)) j++;
    let left = a.slice(startA, i);
    let right = b.slice(startB, j);
    // A number against letters: the number is newer.
    if (right === '') return numeric ? 1 : -1;
    if (numeric) {
      left = left.replace(/^0+/, '');
      right = right.replace(/^0+/, '');
      if (left.length !== right.length) return sign(left.length - right.length);
    }
    if (left !== right) return left < right ? -1 : 1;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i < a.length ? 1 : -1;
}

/** The order, and whether it had to assume that a missing release is older. */
export function compareRpm(a: string, b: string): { order: Order; releaseAssumed: boolean } | undefined {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return undefined;
  const head = sign(left.epoch - right.epoch) || rpmvercmp(left.version, right.version);
  if (head !== 0) return { order: head, releaseAssumed: false };
  if (left.release === undefined || right.release === undefined) {
    const bothMissing = left.release === undefined && right.release === undefined;
    return { order: rpmvercmp(left.release ?? '', right.release ?? ''), releaseAssumed: !bothMissing };
  }
  return { order: rpmvercmp(left.release, right.release), releaseAssumed: false };
}
