/**
 * A small MaxMind DB (format 2.0) writer, so tests can build GeoLite2-style databases without
 * downloading any. The output is an IPv6 tree (IPv4 networks live under ::/96; an IPv4-only tree
 * on request), a data section with de-duplicated records and strings, and the metadata map.
 *
 * Values are encoded by JavaScript type: string → utf8_string, boolean → boolean, integer
 * 0…2³²−1 → uint32, negative integer → int32, other numbers → double, bigint → uint64 (uint128
 * above 2⁶⁴−1), Uint8Array → bytes, array → array, plain object → map. Wrap a value with
 * `mmdbType.uint16(…)` (etc.) to choose another type.
 */
import { writeFile } from 'node:fs/promises';
import { parseCidr } from '../../src/core/ip.js';

export interface MmdbEntry {
  /** A network such as `8.8.8.0/24` or `2001:4860::/32`; a bare IP is a /32 or /128. */
  cidr: string;
  data: Record<string, unknown>;
}

export interface MmdbOptions {
  databaseType: string;
  description?: string;
  languages?: string[];
  /** Defaults to the smallest size that can address every node and record. */
  recordSize?: 24 | 28 | 32;
  /** Seconds since the epoch; defaults to now. */
  buildEpoch?: number;
  /** 6 (default): one tree for both versions. 4: an IPv4-only tree, as some old databases have. */
  ipVersion?: 4 | 6;
}

type ExplicitType = 'double' | 'float' | 'uint16' | 'uint32' | 'int32' | 'uint64' | 'uint128';

/** A value with an explicitly chosen MaxMind type. */
export class MmdbTyped {
  constructor(
    readonly type: ExplicitType,
    readonly value: number | bigint,
  ) {}
}

export const mmdbType = {
  double: (value: number) => new MmdbTyped('double', value),
  float: (value: number) => new MmdbTyped('float', value),
  uint16: (value: number) => new MmdbTyped('uint16', value),
  uint32: (value: number) => new MmdbTyped('uint32', value),
  int32: (value: number) => new MmdbTyped('int32', value),
  uint64: (value: number | bigint) => new MmdbTyped('uint64', value),
  uint128: (value: number | bigint) => new MmdbTyped('uint128', value),
};

/**
 * Builds the database. Entries are inserted in order; a later entry replaces whatever an earlier
 * one stored for the addresses it covers (so list networks before the more specific ones inside
 * them to get "most specific wins").
 */
export function buildMmdb(entries: MmdbEntry[], options: MmdbOptions): Buffer {
  const ipVersion = options.ipVersion ?? 6;
  const data = new DataSectionWriter();
  const tree = new SearchTree(TREE_DEPTH[ipVersion]);
  for (const entry of entries) {
    const { address, prefix } = networkInTree(entry.cidr, ipVersion);
    tree.insert(address, prefix, data.writeRecord(entry.data));
  }
  const dataSection = data.toBuffer();
  const nodes = tree.numberedNodes();
  const recordSize = options.recordSize ?? smallestRecordSize(nodes.length + 16 + dataSection.length);
  const treeSection = encodeTree(nodes, recordSize);
  const metadata = encodeMetadata(nodes.length, recordSize, ipVersion, options);
  return Buffer.concat([treeSection, Buffer.alloc(16), dataSection, METADATA_MARKER, metadata]);
}

export async function writeMmdb(path: string, entries: MmdbEntry[], options: MmdbOptions): Promise<void> {
  await writeFile(path, buildMmdb(entries, options));
}

// ---------------------------------------------------------------------------------------------
// Search tree

const TREE_DEPTH = { 4: 32, 6: 128 } as const;
const IPV4_IN_IPV6_BITS = 96;

function networkInTree(cidr: string, treeVersion: 4 | 6): { address: bigint; prefix: number } {
  const network = parseCidr(cidr);
  if (network.version === 6 && treeVersion === 4) throw new Error(`${cidr} cannot go in an IPv4-only tree`);
  const extra = network.version === 4 && treeVersion === 6 ? IPV4_IN_IPV6_BITS : 0;
  return { address: network.first, prefix: network.prefix + extra };
}

type Child = { kind: 'empty' } | { kind: 'data'; offset: number } | { kind: 'node'; node: TreeNode };
interface TreeNode {
  children: [Child, Child];
}

const EMPTY: Child = { kind: 'empty' };

class SearchTree {
  private readonly root: TreeNode = { children: [EMPTY, EMPTY] };

  constructor(private readonly depth: number) {}

  insert(address: bigint, prefix: number, dataOffset: number): void {
    const leaf: Child = { kind: 'data', offset: dataOffset };
    if (prefix === 0) {
      this.root.children = [leaf, leaf];
      return;
    }
    let node = this.root;
    for (let depth = 0; depth < prefix; depth++) {
      const bit = Number((address >> BigInt(this.depth - 1 - depth)) & 1n) as 0 | 1;
      if (depth === prefix - 1) {
        node.children[bit] = leaf;
        return;
      }
      const child = node.children[bit];
      if (child.kind === 'node') {
        node = child.node;
      } else {
        // Split a leaf (or empty record) so the rest of its addresses keep their value.
        const split: TreeNode = { children: [child, child] };
        node.children[bit] = { kind: 'node', node: split };
        node = split;
      }
    }
  }

  /** Nodes reachable from the root, root first (replaced subtrees are dropped). */
  numberedNodes(): TreeNode[] {
    const nodes: TreeNode[] = [this.root];
    for (let i = 0; i < nodes.length; i++) {
      for (const child of nodes[i]!.children) if (child.kind === 'node') nodes.push(child.node);
    }
    return nodes;
  }
}

function smallestRecordSize(largestRecordValue: number): 24 | 28 | 32 {
  if (largestRecordValue < 2 ** 24) return 24;
  if (largestRecordValue < 2 ** 28) return 28;
  return 32;
}

function encodeTree(nodes: TreeNode[], recordSize: 24 | 28 | 32): Buffer {
  const indexOf = new Map(nodes.map((node, index) => [node, index]));
  const recordValue = (child: Child): number => {
    if (child.kind === 'empty') return nodes.length;
    if (child.kind === 'data') return nodes.length + 16 + child.offset;
    return indexOf.get(child.node)!;
  };
  const nodeBytes = recordSize / 4;
  const out = Buffer.alloc(nodes.length * nodeBytes);
  nodes.forEach((node, index) => {
    const left = recordValue(node.children[0]);
    const right = recordValue(node.children[1]);
    if (Math.max(left, right) >= 2 ** recordSize) {
      throw new Error(`record size ${recordSize} is too small for record value ${Math.max(left, right)}`);
    }
    const at = index * nodeBytes;
    if (recordSize === 24) {
      out.writeUIntBE(left, at, 3);
      out.writeUIntBE(right, at + 3, 3);
    } else if (recordSize === 28) {
      // The middle byte holds the top nibble of the left record and the top nibble of the right.
      out.writeUIntBE(left & 0xffffff, at, 3);
      out[at + 3] = ((left >>> 24) << 4) | (right >>> 24);
      out.writeUIntBE(right & 0xffffff, at + 4, 3);
    } else {
      out.writeUInt32BE(left, at);
      out.writeUInt32BE(right, at + 4);
    }
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Data section

const TYPE = {
  pointer: 1,
  utf8_string: 2,
  double: 3,
  bytes: 4,
  uint16: 5,
  uint32: 6,
  map: 7,
  int32: 8,
  uint64: 9,
  uint128: 10,
  array: 11,
  boolean: 14,
  float: 15,
} as const;

const METADATA_MARKER = Buffer.from([0xab, 0xcd, 0xef, ...Buffer.from('MaxMind.com', 'ascii')]);

/** Appends encoded values; with `dedupe`, repeated records and strings become pointers. */
class DataSectionWriter {
  private readonly chunks: Buffer[] = [];
  private length = 0;
  private readonly recordOffsets = new Map<string, number>();
  private readonly stringOffsets = new Map<string, number>();

  constructor(private readonly dedupe = true) {}

  /** Writes a top-level record (or finds an identical one) and returns its offset. */
  writeRecord(data: Record<string, unknown>): number {
    const key = canonicalKey(data);
    const known = this.recordOffsets.get(key);
    if (known !== undefined && this.dedupe) return known;
    const offset = this.length;
    this.write(data);
    this.recordOffsets.set(key, offset);
    return offset;
  }

  write(value: unknown): void {
    if (typeof value === 'string') this.writeString(value);
    else if (value instanceof MmdbTyped) this.writeTyped(value);
    else if (typeof value === 'boolean') this.push(header(TYPE.boolean, value ? 1 : 0));
    else if (typeof value === 'number') this.writeTyped(inferNumberType(value));
    else if (typeof value === 'bigint') this.writeTyped(new MmdbTyped(value < 2n ** 64n ? 'uint64' : 'uint128', value));
    else if (value instanceof Uint8Array) this.push(header(TYPE.bytes, value.length), Buffer.from(value));
    else if (Array.isArray(value)) {
      this.push(header(TYPE.array, value.length));
      for (const item of value) this.write(item);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      this.push(header(TYPE.map, entries.length));
      for (const [key, item] of entries) {
        this.writeString(key);
        this.write(item);
      }
    } else throw new Error(`cannot encode ${String(value)} in a MaxMind DB`);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }

  private writeString(value: string): void {
    const known = this.stringOffsets.get(value);
    const bytes = Buffer.from(value, 'utf8');
    if (known !== undefined) {
      const pointer = encodePointer(known);
      if (pointer.length < bytes.length + 1) {
        this.push(pointer);
        return;
      }
    }
    if (this.dedupe) this.stringOffsets.set(value, this.length);
    this.push(header(TYPE.utf8_string, bytes.length), bytes);
  }

  private writeTyped({ type, value }: MmdbTyped): void {
    switch (type) {
      case 'double': {
        const payload = Buffer.alloc(8);
        payload.writeDoubleBE(Number(value));
        this.push(header(TYPE.double, 8), payload);
        break;
      }
      case 'float': {
        const payload = Buffer.alloc(4);
        payload.writeFloatBE(Number(value));
        this.push(header(TYPE.float, 4), payload);
        break;
      }
      case 'int32': {
        const number = Number(value);
        checkInteger(number, -(2 ** 31), 2 ** 31 - 1, type);
        // Only non-negative values may be shortened; a negative one needs all four bytes.
        const payload = number < 0 ? int32Bytes(number) : unsignedBytes(BigInt(number));
        this.push(header(TYPE.int32, payload.length), payload);
        break;
      }
      default: {
        const limits = { uint16: 16n, uint32: 32n, uint64: 64n, uint128: 128n }[type];
        const integer = BigInt(value);
        if (integer < 0n || integer >= 1n << limits) throw new Error(`${value} does not fit in ${type}`);
        const payload = unsignedBytes(integer);
        this.push(header(TYPE[type], payload.length), payload);
        break;
      }
    }
  }

  private push(...buffers: Buffer[]): void {
    for (const buffer of buffers) {
      this.chunks.push(buffer);
      this.length += buffer.length;
    }
  }
}

function inferNumberType(value: number): MmdbTyped {
  if (Number.isInteger(value) && value >= 0 && value < 2 ** 32) return new MmdbTyped('uint32', value);
  if (Number.isInteger(value) && value < 0 && value >= -(2 ** 31)) return new MmdbTyped('int32', value);
  return new MmdbTyped('double', value);
}

function checkInteger(value: number, min: number, max: number, type: string): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${value} does not fit in ${type}`);
}

/** Control byte (plus extended-type byte and size bytes) for a value of `type` and `size`. */
function header(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let sizeBits: number;
  const sizeBytes: number[] = [];
  if (size < 29) {
    sizeBits = size;
  } else if (size < 29 + 256) {
    sizeBits = 29;
    sizeBytes.push(size - 29);
  } else if (size < 285 + 65_536) {
    sizeBits = 30;
    const rest = size - 285;
    sizeBytes.push(rest >> 8, rest & 0xff);
  } else if (size < 65_821 + 2 ** 24) {
    sizeBits = 31;
    const rest = size - 65_821;
    sizeBytes.push(rest >> 16, (rest >> 8) & 0xff, rest & 0xff);
  } else {
    throw new Error(`value of ${size} bytes is too large for a MaxMind DB`);
  }
  if (type <= 7) {
    bytes.push((type << 5) | sizeBits);
  } else {
    bytes.push(sizeBits, type - 7);
  }
  return Buffer.from([...bytes, ...sizeBytes]);
}

function encodePointer(offset: number): Buffer {
  const control = (size: number, high: number) => (TYPE.pointer << 5) | (size << 3) | high;
  if (offset < 2048) return Buffer.from([control(0, offset >> 8), offset & 0xff]);
  if (offset < 526_336) {
    const rest = offset - 2048;
    return Buffer.from([control(1, rest >> 16), (rest >> 8) & 0xff, rest & 0xff]);
  }
  if (offset < 526_336 + 2 ** 27) {
    const rest = offset - 526_336;
    return Buffer.from([control(2, rest >> 24), (rest >> 16) & 0xff, (rest >> 8) & 0xff, rest & 0xff]);
  }
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(offset);
  return Buffer.concat([Buffer.from([control(3, 0)]), payload]);
}

function unsignedBytes(value: bigint): Buffer {
  const bytes: number[] = [];
  for (let rest = value; rest > 0n; rest >>= 8n) bytes.unshift(Number(rest & 0xffn));
  return Buffer.from(bytes);
}

function int32Bytes(value: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeInt32BE(value);
  return payload;
}

function canonicalKey(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'bigint') return `bigint:${item}`;
    if (item instanceof MmdbTyped) return { [`typed:${item.type}`]: String(item.value) };
    if (item instanceof Uint8Array) return `bytes:${Buffer.from(item).toString('hex')}`;
    return item;
  });
}

function encodeMetadata(nodeCount: number, recordSize: number, ipVersion: 4 | 6, options: MmdbOptions): Buffer {
  const metadata = new DataSectionWriter(false);
  metadata.write({
    node_count: mmdbType.uint32(nodeCount),
    record_size: mmdbType.uint16(recordSize),
    ip_version: mmdbType.uint16(ipVersion),
    database_type: options.databaseType,
    languages: options.languages ?? ['en'],
    binary_format_major_version: mmdbType.uint16(2),
    binary_format_minor_version: mmdbType.uint16(0),
    build_epoch: mmdbType.uint64(options.buildEpoch ?? Math.floor(Date.now() / 1000)),
    description: options.description === undefined ? {} : { en: options.description },
  });
  return metadata.toBuffer();
}
