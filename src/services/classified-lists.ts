/**
 * The lists behind `GET /v3/tags/vulncheck-c2` and `GET /v3/pdns/vulncheck-c2`: the addresses and
 * hostnames classified with one type, now. "Now" is the index's records observed within the
 * rolling window (a record past it, or one that lost the classification, is gone at once, before
 * the sweeper removes it) plus the entries of the loaded classification lists, which hold until
 * their list is replaced. Each entry comes once, with every family (classification product) found for it.
 */
import { classificationType } from '../core/classification.js';
import { cidrBlocks, type IpBlock, rangeOfSortKeys } from '../core/ip-blocks.js';
import { formatIp } from '../core/ip.js';
import {
  type ClassifiedAddresses,
  type ClassifiedHostnames,
  classifiedAddresses,
  classifiedHostnames,
  stillCurrent,
} from '../search/classified-members.js';
import type { IndexSync } from '../search/index-sync.js';
import type { Storage } from '../storage/index.js';

const DAY_MS = 86_400_000;

/** One line of a list: an address, network or hostname, and its families (sorted, possibly none). */
export interface ListedEntry {
  value: string;
  families: string[];
}

/** A list as of one moment: the same object while what it holds is unchanged. */
export interface ClassifiedList {
  entries(): Iterable<ListedEntry>;
}

/** A listed block: IPv4 addresses as numbers, IPv6 ones as bigints, so each compares with the index's. */
interface ListedBlock {
  first: number | bigint;
  prefix: number;
  families: string[];
}

interface ListedBlocks {
  version: string;
  ipv4: ListedBlock[];
  ipv6: ListedBlock[];
}

/** The first instant of the rolling window: records observed before it are no longer current (none with 0 days). */
export function windowStart(retentionDays: number, now: number): number {
  return retentionDays > 0 ? now - retentionDays * DAY_MS : -Infinity;
}

/**
 * The lists of one classification type. The index's part is kept until the index changes or one
 * of its members ages out of the window, so a list polled by many firewalls is read once.
 */
export class ClassifiedLists {
  private listed: ListedBlocks | undefined;
  private addressList: { indexed: ClassifiedAddresses; listed: ListedBlocks; list: ClassifiedList } | undefined;
  private hostnameList: { indexed: ClassifiedHostnames; list: ClassifiedList } | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly type: string,
  ) {}

  /**
   * The addresses: IPv4 before IPv6, in address order; a network a list names comes before the
   * addresses inside it. Read from the index at once; the entries are formatted as they are taken.
   */
  async addresses(sync: Pick<IndexSync, 'index' | 'seq'>, since: number): Promise<ClassifiedList> {
    const listed = await this.listedBlocks();
    const held = this.addressList?.indexed;
    const indexed =
      held && stillCurrent(held.readAt, sync.index, sync.seq, since)
        ? held
        : classifiedAddresses(sync.index, sync.seq, this.type, since);
    if (this.addressList?.indexed !== indexed || this.addressList.listed !== listed)
      this.addressList = { indexed, listed, list: { entries: () => mergedAddresses(indexed, listed) } };
    return this.addressList.list;
  }

  /** The hostnames of the classified records, in code-point order (the lists hold addresses only). */
  hostnames(sync: Pick<IndexSync, 'index' | 'seq'>, since: number): ClassifiedList {
    const held = this.hostnameList?.indexed;
    const indexed =
      held && stillCurrent(held.readAt, sync.index, sync.seq, since)
        ? held
        : classifiedHostnames(sync.index, sync.seq, this.type, since);
    if (this.hostnameList?.indexed !== indexed)
      this.hostnameList = { indexed, list: { entries: () => hostnameEntries(indexed) } };
    return this.hostnameList.list;
  }

  /** The lists' entries of the type as CIDR blocks, read again only after a list changed. */
  private async listedBlocks(): Promise<ListedBlocks> {
    const lists = this.storage.classificationLists;
    const version = await lists.version();
    if (this.listed?.version === version) return this.listed;
    const byBlock = new Map<string, { block: IpBlock; families: Set<string> }>();
    for (const entry of await lists.entriesOfType(this.type)) {
      const family = entry.classification.slice(classificationType(entry.classification).length + 1);
      for (const block of cidrBlocks(rangeOfSortKeys(entry.firstKey, entry.lastKey))) {
        const key = `${block.version}/${block.first}/${block.prefix}`;
        const found = byBlock.get(key) ?? { block, families: new Set<string>() };
        byBlock.set(key, found);
        if (family) found.families.add(family);
      }
    }
    const blocks = [...byBlock.values()].map(({ block, families }) => ({
      version: block.version,
      first: block.version === 4 ? Number(block.first) : block.first,
      prefix: block.prefix,
      families: [...families].sort(),
    }));
    blocks.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : a.prefix - b.prefix));
    this.listed = {
      version,
      ipv4: blocks.filter((block) => block.version === 4),
      ipv6: blocks.filter((block) => block.version === 6),
    };
    return this.listed;
  }
}

function* hostnameEntries({ hostnames, products }: ClassifiedHostnames): Generator<ListedEntry> {
  for (let i = 0; i < hostnames.length; i++) yield { value: hostnames[i]!, families: products.of(i) };
}

/** The index's addresses and the listed blocks in one order; an address in both comes once. */
function* mergedAddresses(members: ClassifiedAddresses, listed: ListedBlocks): Generator<ListedEntry> {
  yield* merged(members.ipv4, (i) => members.ipv4Products.of(i), listed.ipv4, 32, formatIpv4);
  yield* merged(
    members.ipv6,
    (i) => members.ipv6Products.of(i),
    listed.ipv6,
    128,
    (value) => formatIp(6, value),
  );
}

function* merged<T extends number | bigint>(
  addresses: ArrayLike<T>,
  familiesOf: (member: number) => string[],
  blocks: ListedBlock[],
  bits: number,
  format: (value: T) => string,
): Generator<ListedEntry> {
  let i = 0;
  let j = 0;
  while (i < addresses.length || j < blocks.length) {
    const address = i < addresses.length ? addresses[i]! : undefined;
    const block = j < blocks.length ? blocks[j]! : undefined;
    if (block && (address === undefined || block.first < address || (block.first === address && block.prefix < bits))) {
      j++;
      const text = format(block.first as T);
      yield { value: block.prefix === bits ? text : `${text}/${block.prefix}`, families: block.families };
    } else if (block && block.first === address) {
      const families = [...new Set([...familiesOf(i), ...block.families])].sort();
      yield { value: format(address), families };
      i++;
      j++;
    } else {
      yield { value: format(address!), families: familiesOf(i) };
      i++;
    }
  }
}

function formatIpv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}
