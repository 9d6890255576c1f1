/**
 * IP ranges as CIDR blocks: what a classification list stores (a range between two sort keys)
 * written back as the blocks a firewall list takes.
 */
import { invalidInput } from './errors.js';
import { formatIp, type IpRange } from './ip.js';

const BITS = { 4: 32, 6: 128 } as const;

/** One CIDR block: its first address and prefix length (32 or 128 for a single address). */
export interface IpBlock {
  version: 4 | 6;
  first: bigint;
  prefix: number;
}

/** The range between two storage sort keys (`ipSortKey`: '4' + 8 hex digits, '6' + 32). */
export function rangeOfSortKeys(firstKey: string, lastKey: string): IpRange {
  const version = versionOfKey(firstKey);
  if (versionOfKey(lastKey) !== version) throw invalidInput(`IP sort keys "${firstKey}" and "${lastKey}" mix versions`);
  const first = BigInt(`0x${firstKey.slice(1)}`);
  const last = BigInt(`0x${lastKey.slice(1)}`);
  if (first > last) throw invalidInput(`IP sort key "${firstKey}" is after "${lastKey}"`);
  return { version, first, last, prefix: -1 };
}

function versionOfKey(key: string): 4 | 6 {
  const version = key[0] === '4' ? 4 : key[0] === '6' ? 6 : undefined;
  if (version === undefined || key.length !== 1 + BITS[version] / 4 || !/^[0-9a-f]+$/.test(key.slice(1))) {
    throw invalidInput(`not an IP sort key: "${key}"`);
  }
  return version;
}

/** The fewest CIDR blocks that cover exactly the range, in address order (at most 2 × bits of them). */
export function cidrBlocks(range: IpRange): IpBlock[] {
  const bits = BITS[range.version];
  const blocks: IpBlock[] = [];
  let first = range.first;
  while (first <= range.last) {
    let hostBits = first === 0n ? bits : trailingZeros(first, bits);
    while (hostBits > 0 && first + (1n << BigInt(hostBits)) - 1n > range.last) hostBits--;
    blocks.push({ version: range.version, first, prefix: bits - hostBits });
    first += 1n << BigInt(hostBits);
  }
  return blocks;
}

function trailingZeros(value: bigint, bits: number): number {
  let zeros = 0;
  while (zeros < bits && ((value >> BigInt(zeros)) & 1n) === 0n) zeros++;
  return zeros;
}

/** `192.0.2.7` for a single address, `192.0.2.0/24` for a wider block. */
export function formatBlock(block: IpBlock): string {
  const text = formatIp(block.version, block.first);
  return block.prefix === BITS[block.version] ? text : `${text}/${block.prefix}`;
}
