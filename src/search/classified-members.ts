/**
 * The distinct addresses and hostnames of the records of one classification type, each with the
 * products it is classified under: what the C2 lists serve, read from the index's postings in
 * one synchronous pass (so a list is one state of the index) into typed arrays of a few bytes per record.
 */
import type { HostIndex } from './host-index.js';

/** The products found for each member of a list; most members have one or none. */
export class MemberProducts {
  private readonly first: Uint32Array;
  private readonly more = new Map<number, number[]>();

  constructor(
    members: number,
    private readonly products: readonly string[],
  ) {
    this.first = new Uint32Array(members);
  }

  /** Files product `index` (≥ 1; 0 is "none") under `member`. */
  add(member: number, index: number): void {
    const first = this.first[member]!;
    if (first === 0) this.first[member] = index;
    else if (first !== index) {
      const more = this.more.get(member);
      if (!more) this.more.set(member, [index]);
      else if (!more.includes(index)) more.push(index);
    }
  }

  /** The member's product indexes; empty when none is known. */
  indexesOf(member: number): number[] {
    const first = this.first[member]!;
    if (first === 0) return [];
    const more = this.more.get(member);
    return more ? [first, ...more] : [first];
  }

  /** The member's product names, sorted; empty when none is known. */
  of(member: number): string[] {
    const indexes = this.indexesOf(member);
    if (indexes.length < 2) return indexes.map((index) => this.products[index]!);
    return indexes.map((index) => this.products[index]!).sort();
  }
}

/** What a list was read from: it is still the list while the index is at `seq` and no member has aged out of the window. */
export interface ReadAt {
  index: HostIndex;
  seq: number;
  since: number;
  /** The earliest observation time among the records read. */
  oldest: number;
}

export interface ClassifiedAddresses {
  /** Distinct IPv4 addresses, ascending. */
  ipv4: Uint32Array;
  ipv4Products: MemberProducts;
  /** Distinct IPv6 addresses, ascending. */
  ipv6: bigint[];
  ipv6Products: MemberProducts;
  readAt: ReadAt;
}

export interface ClassifiedHostnames {
  /** Distinct hostnames, in code-point order. */
  hostnames: string[];
  products: MemberProducts;
  readAt: ReadAt;
}

/** The distinct addresses of the records classified `type` and observed at or after `since`; `seq` is the index's change-log position. */
export function classifiedAddresses(index: HostIndex, seq: number, type: string, since: number): ClassifiedAddresses {
  const groups = index.classifiedSince(type, since);
  const readAt = readAtOf(index, seq, since, groups.ids);
  // Per group, its records' IPv4 addresses (-1: IPv6), read once for both passes.
  const addresses = groups.ids.map((ids) => index.ipv4Of(ids));
  const all = new Uint32Array(addresses.reduce((sum, group) => sum + group.length, 0));
  let count = 0;
  const ipv6Set = new Set<bigint>();
  addresses.forEach((group, g) => {
    for (let i = 0; i < group.length; i++) {
      if (group[i]! >= 0) all[count++] = group[i]!;
      else ipv6Set.add(index.ipv6Of(groups.ids[g]![i]!)!);
    }
  });
  const ipv4 = distinctSorted(all.subarray(0, count));
  const ipv6 = [...ipv6Set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const ipv6Positions = new Map(ipv6.map((value, position) => [value, position]));
  const ipv4Products = new MemberProducts(ipv4.length, groups.products);
  const ipv6Products = new MemberProducts(ipv6.length, groups.products);
  for (let product = 1; product < addresses.length; product++) {
    const group = addresses[product]!;
    for (let i = 0; i < group.length; i++) {
      if (group[i]! >= 0) ipv4Products.add(lowerBoundOf(ipv4, group[i]!), product);
      else ipv6Products.add(ipv6Positions.get(index.ipv6Of(groups.ids[product]![i]!)!)!, product);
    }
  }
  return { ipv4, ipv4Products, ipv6, ipv6Products, readAt };
}

/** The distinct hostnames of the records classified `type` and observed at or after `since` (records without one add none). */
export function classifiedHostnames(index: HostIndex, seq: number, type: string, since: number): ClassifiedHostnames {
  const groups = index.classifiedSince(type, since);
  const readAt = readAtOf(index, seq, since, groups.ids);
  const hostnameIds = groups.ids.map((ids) => index.hostnameIdsOf(ids));
  const all = new Uint32Array(hostnameIds.reduce((sum, group) => sum + group.length, 0));
  let count = 0;
  for (const group of hostnameIds) for (let i = 0; i < group.length; i++) if (group[i] !== 0) all[count++] = group[i]!;
  const distinct = distinctSorted(all.subarray(0, count));
  const byId = new MemberProducts(distinct.length, groups.products);
  for (let product = 1; product < hostnameIds.length; product++) {
    const group = hostnameIds[product]!;
    for (let i = 0; i < group.length; i++) if (group[i] !== 0) byId.add(lowerBoundOf(distinct, group[i]!), product);
  }
  const names = Array.from(distinct, (hostnameId) => index.hostnameById(hostnameId));
  const order = names.map((_, position) => position).sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  const products = new MemberProducts(order.length, groups.products);
  order.forEach((position, member) => {
    for (const product of byId.indexesOf(position)) products.add(member, product);
  });
  return { hostnames: order.map((position) => names[position]!), products, readAt };
}

function readAtOf(index: HostIndex, seq: number, since: number, groups: Uint32Array[]): ReadAt {
  return {
    index,
    seq,
    since,
    oldest: groups.reduce((oldest, ids) => Math.min(oldest, index.oldestObservedAt(ids)), Infinity),
  };
}

/** Whether a list read at `readAt` is still the list of `index` at `seq` for a window starting at `since`. */
export function stillCurrent(readAt: ReadAt, index: HostIndex, seq: number, since: number): boolean {
  return readAt.index === index && readAt.seq === seq && readAt.since <= since && since <= readAt.oldest;
}

/** The values sorted with repeats removed (sorts `values` in place; the result shares its memory). */
function distinctSorted(values: Uint32Array): Uint32Array {
  values.sort();
  let count = 0;
  for (let i = 0; i < values.length; i++)
    if (count === 0 || values[i] !== values[count - 1]) values[count++] = values[i]!;
  return values.subarray(0, count);
}

function lowerBoundOf(sorted: Uint32Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
