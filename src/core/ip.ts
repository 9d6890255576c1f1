/**
 * IP addresses and ranges as integers: IPv4 as 32-bit and IPv6 as 128-bit bigints, with the
 * canonical text forms (dotted quad; RFC 5952 for IPv6).
 */
import { invalidInput } from './errors.js';

/** `text` is the canonical form: dotted quad, or RFC 5952 compressed lower-case IPv6. */
export interface IpAddress {
  version: 4 | 6;
  value: bigint;
  text: string;
}

/** An inclusive integer range of one IP version; `prefix` is -1 when it is not a CIDR block. */
export interface IpRange {
  version: 4 | 6;
  first: bigint;
  last: bigint;
  prefix: number;
}

const BITS = { 4: 32, 6: 128 } as const;
const IPV6_GROUPS = 8;
const IPV4_MAPPED_PREFIX = 0xffffn;

// ---------------------------------------------------------------------------------------------
// Parsing

/** Parses an IPv4 or IPv6 address; throws invalidInput with the reason. */
export function parseIp(text: string): IpAddress {
  const result = parseIpOrReason(text);
  if (typeof result === 'string') throw invalidInput(`invalid IP address "${text}": ${result}`);
  return result;
}

export function tryParseIp(text: string): IpAddress | undefined {
  const result = parseIpOrReason(text);
  return typeof result === 'string' ? undefined : result;
}

// Reasons are returned rather than thrown so that tryParseIp stays cheap on long lists.
function parseIpOrReason(text: string): IpAddress | string {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return typeof value === 'string' ? value : { version: 6, value, text: formatIpv6(value) };
  }
  // A valid dotted quad has no leading zeros, so it is already its canonical text.
  const quick = dottedQuadValue(text);
  if (quick !== undefined) return { version: 4, value: BigInt(quick), text };
  const value = parseIpv4(text);
  return typeof value === 'string' ? value : { version: 4, value, text: formatIpv4(value) };
}

/**
 * The value of a valid dotted quad (four decimal octets of 1–3 digits, no leading zeros, each at
 * most 255), else undefined. Every observation's address is parsed, and the index reads every
 * stored one, so this is one loop instead of splitting, a regular expression and BigInt steps.
 */
export function dottedQuadValue(text: string): number | undefined {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) {
      if (digits === 0 || ++dots > 3) return undefined;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      continue;
    }
    if (code < 48 || code > 57 || digits === 3 || (digits === 1 && octet === 0)) return undefined;
    octet = octet * 10 + (code - 48);
    digits++;
    if (octet > 255) return undefined;
  }
  return dots === 3 && digits > 0 ? value * 256 + octet : undefined;
}

/** The slow path of a dotted quad: its value, or why it is not one. */
function parseIpv4(text: string): bigint | string {
  const quick = dottedQuadValue(text);
  if (quick !== undefined) return BigInt(quick);
  const octets = text.split('.');
  if (octets.length !== 4) return 'expected 4 dot-separated decimal octets';
  let value = 0n;
  for (const octet of octets) {
    if (!/^[0-9]{1,3}$/.test(octet)) return `octet "${octet}" is not a decimal number of 1-3 digits`;
    if (octet.length > 1 && octet.startsWith('0')) return `octet "${octet}" has a leading zero`;
    const number = Number(octet);
    if (number > 255) return `octet "${octet}" is out of range (0-255)`;
    value = (value << 8n) | BigInt(number);
  }
  return value;
}

function parseIpv6(text: string): bigint | string {
  if (text.includes('%')) return 'zone ids are not accepted';
  const compression = text.indexOf('::');
  if (compression !== -1 && text.indexOf('::', compression + 1) !== -1) return '"::" may appear only once';
  const head = compression === -1 ? text : text.slice(0, compression);
  const tail = compression === -1 ? '' : text.slice(compression + 2);
  const headGroups = splitGroups(head);
  const tailGroups = splitGroups(tail);
  const lastSide = compression === -1 ? headGroups : tailGroups;
  if (headGroups.includes('') || tailGroups.includes('')) return 'empty group (stray ":")';

  // The dotted quad may only be the last group; popping it leaves the hex groups in place.
  const embedded = lastSide.length > 0 && lastSide[lastSide.length - 1]!.includes('.');
  const embeddedIpv4 = embedded ? parseIpv4(lastSide.pop()!) : undefined;
  if (typeof embeddedIpv4 === 'string') return `embedded IPv4 address: ${embeddedIpv4}`;

  const hexGroups = [...headGroups, ...tailGroups];
  const badGroup = hexGroups.find((group) => !/^[0-9a-fA-F]{1,4}$/.test(group));
  if (badGroup !== undefined) return `group "${badGroup}" is not 1-4 hexadecimal digits`;

  const explicitGroups = hexGroups.length + (embeddedIpv4 === undefined ? 0 : 2);
  if (compression === -1 && explicitGroups !== IPV6_GROUPS) {
    return `expected 8 groups of 16 bits, found ${explicitGroups}`;
  }
  // "::" stands for at least one zero group (RFC 4291 2.2).
  if (compression !== -1 && explicitGroups >= IPV6_GROUPS) return 'too many groups for "::"';

  const zeroGroups = Array<string>(IPV6_GROUPS - explicitGroups).fill('0');
  const groups = [...headGroups, ...zeroGroups, ...tailGroups];
  let value = groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
  if (embeddedIpv4 !== undefined) value = (value << 32n) | embeddedIpv4;
  return value;
}

const splitGroups = (part: string) => (part === '' ? [] : part.split(':'));

// ---------------------------------------------------------------------------------------------
// Formatting

export function formatIp(version: 4 | 6, value: bigint): string {
  if (value < 0n || value >= 1n << BigInt(BITS[version])) {
    throw invalidInput(`IPv${version} value ${value} is out of range`);
  }
  return version === 4 ? formatIpv4(value) : formatIpv6(value);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** RFC 5952: lower-case, no leading zeros, "::" for the first longest run of 2+ zero groups. */
function formatIpv6(value: bigint): string {
  // RFC 5952 §5: IPv4-mapped addresses keep the dotted quad (::ffff:1.2.3.4).
  if (value >> 32n === IPV4_MAPPED_PREFIX) return `::ffff:${formatIpv4(value & 0xffffffffn)}`;
  const groups = Array.from({ length: IPV6_GROUPS }, (_, i) =>
    ((value >> BigInt(16 * (IPV6_GROUPS - 1 - i))) & 0xffffn).toString(16),
  );
  const run = longestZeroRun(groups);
  if (run.length < 2) return groups.join(':');
  const before = groups.slice(0, run.start).join(':');
  const after = groups.slice(run.start + run.length).join(':');
  return `${before}::${after}`;
}

function longestZeroRun(groups: string[]): { start: number; length: number } {
  let best = { start: -1, length: 0 };
  let start = -1;
  groups.forEach((group, i) => {
    if (group !== '0') {
      start = -1;
      return;
    }
    if (start === -1) start = i;
    const length = i - start + 1;
    if (length > best.length) best = { start, length };
  });
  return best;
}

// ---------------------------------------------------------------------------------------------
// Ranges

/** "10.0.0.0/8", "2001:db8::/32"; a bare address is /32 or /128; host bits are masked off. */
export function parseCidr(text: string): IpRange {
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const fail = (reason: string) => invalidInput(`invalid CIDR "${text}": ${reason}`);
  const address = parseIpOrReason(addressText);
  if (typeof address === 'string') throw fail(address);
  const bits = BITS[address.version];
  if (prefixText === undefined) return blockOf(address, bits);
  if (!/^(0|[1-9][0-9]*)$/.test(prefixText)) throw fail(`prefix "${prefixText}" is not a decimal number`);
  const prefix = Number(prefixText);
  if (prefix > bits) throw fail(`prefix /${prefix} is out of range for IPv${address.version} (0-${bits})`);
  return blockOf(address, prefix);
}

function blockOf(address: IpAddress, prefix: number): IpRange {
  const hostBits = BigInt(BITS[address.version] - prefix);
  const first = (address.value >> hostBits) << hostBits;
  const last = first | ((1n << hostBits) - 1n);
  return { version: address.version, first, last, prefix };
}

/** The range from `first` to `last` inclusive, e.g. for "start-end" list entries. */
export function ipRange(first: IpAddress, last: IpAddress): IpRange {
  const fail = (reason: string) => invalidInput(`invalid IP range "${first.text}-${last.text}": ${reason}`);
  if (first.version !== last.version) throw fail('mixes IPv4 and IPv6');
  if (first.value > last.value) throw fail('the first address is after the last');
  return {
    version: first.version,
    first: first.value,
    last: last.value,
    prefix: cidrPrefix(first.version, first.value, last.value),
  };
}

/** The prefix length when first..last is exactly one CIDR block, else -1. */
function cidrPrefix(version: 4 | 6, first: bigint, last: bigint): number {
  const size = last - first + 1n;
  const hostBits = size.toString(2).length - 1;
  const isPowerOfTwo = size === 1n << BigInt(hostBits);
  const isAligned = (first & (size - 1n)) === 0n;
  return isPowerOfTwo && isAligned ? BITS[version] - hostBits : -1;
}

export function rangeContains(range: IpRange, ip: IpAddress): boolean {
  return range.version === ip.version && ip.value >= range.first && ip.value <= range.last;
}

// ---------------------------------------------------------------------------------------------
// Keys

/** The unsigned 32-bit number of an IPv4 address. */
export function ipv4ToNumber(ip: IpAddress): number {
  if (ip.version !== 4) throw invalidInput(`not an IPv4 address: "${ip.text}"`);
  return Number(ip.value);
}

/** Fixed width: '4' + 8 hex digits or '6' + 32 hex digits, so IPv4 sorts before IPv6. */
export function ipSortKey(ip: IpAddress): string {
  const hexDigits = BITS[ip.version] / 4;
  return `${ip.version}${ip.value.toString(16).padStart(hexDigits, '0')}`;
}
