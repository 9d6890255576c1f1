import type { Bitmap } from './bitmap.js';
import { BucketKind } from './bucket-kind.js';
import type { GrowableColumn } from './columns.js';
import { firstByTime } from './first-by-time.js';
import type { PageRequest, PageResult, SortField, SortPosition } from './host-query.js';
import type { Intersection } from './intersection.js';
import type { Postings } from './postings.js';

const HOUR_MS = 3_600_000;
/** Below this many candidates, sorting them all beats walking the sort buckets. */
const DIRECT_SORT_LIMIT = 4096;

type Column = GrowableColumn<Float64Array | Uint32Array | Uint16Array | Uint8Array>;

export interface SortColumns {
  postings: Postings;
  observedAt: Column;
  dateAdded: Column;
  ipv4: Column;
  ipIsV6: Column;
  ipv6: Map<number, bigint>;
  port: Column;
  keyOf(id: number, sort: SortField): Array<number | string>;
}

/**
 * One page of `candidates` in sort order, plus the exact total. Small sets are sorted whole; large
 * ones are paged by walking the sort field's buckets (hours, IP blocks, ports) in order and
 * intersecting, so only the buckets that hold the page are materialised and sorted.
 */
export function selectPage(candidates: Intersection, request: PageRequest, columns: SortColumns): PageResult {
  const total = candidates.size;
  const ascending = ascendingComparator(request.sort, columns);
  const compare = request.order === 'asc' ? ascending : (a: number, b: number) => ascending(b, a);
  const isAfter = request.after ? afterTest(request, columns) : () => true;
  const ids =
    total <= DIRECT_SORT_LIMIT
      ? sortAll(candidates, request, compare, isAfter)
      : walkBuckets(candidates, request, columns, compare, isAfter);
  return { total, ids };
}

function sortAll(
  candidates: Intersection,
  request: PageRequest,
  compare: (a: number, b: number) => number,
  isAfter: (id: number) => boolean,
): number[] {
  const wanted = request.offset + request.limit;
  const first = smallest(candidates.all().toUint32Array(), wanted, compare, isAfter);
  return first.slice(request.offset);
}

/**
 * The `count` first ids in `compare` order, in that order: a bounded max-heap, so only the ids
 * that beat the worst kept one cost more than a comparison — a page of 100 out of 4,000 costs
 * about 4,000 comparisons instead of a full sort's 48,000.
 */
export function smallest(
  ids: Uint32Array,
  count: number,
  compare: (a: number, b: number) => number,
  accept: (id: number) => boolean = () => true,
): number[] {
  const heap: number[] = [];
  if (count <= 0) return heap;
  const siftDown = (from: number) => {
    let i = from;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let largest = i;
      if (left < heap.length && compare(heap[left]!, heap[largest]!) > 0) largest = left;
      if (right < heap.length && compare(heap[right]!, heap[largest]!) > 0) largest = right;
      if (largest === i) return;
      [heap[i], heap[largest]] = [heap[largest]!, heap[i]!];
      i = largest;
    }
  };
  for (const id of ids) {
    if (!accept(id)) continue;
    if (heap.length < count) {
      heap.push(id);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (compare(heap[i]!, heap[parent]!) <= 0) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (compare(id, heap[0]!) < 0) {
      heap[0] = id;
      siftDown(0);
    }
  }
  return heap.sort(compare);
}

function walkBuckets(
  candidates: Intersection,
  request: PageRequest,
  columns: SortColumns,
  compare: (a: number, b: number) => number,
  isAfter: (id: number) => boolean,
): number[] {
  const result: number[] = [];
  let skip = request.offset;
  const startBucket = request.after ? bucketOfPosition(request.sort, request.after) : undefined;
  for (const bucket of bucketsInOrder(request, columns.postings)) {
    if (startBucket && beforeStart(bucket, startBucket, request.order)) continue;
    const mayHoldEarlier = startBucket !== undefined && sameBucket(bucket, startBucket);
    const matching = candidates.within(bucket.bitmap);
    const count = matching.size;
    if (count === 0 || (!mayHoldEarlier && skip >= count)) {
      if (!mayHoldEarlier) skip -= count;
      matching.clear();
      continue;
    }
    let inBucket = matching.toUint32Array();
    matching.clear();
    if (mayHoldEarlier) inBucket = inBucket.filter(isAfter);
    let ids: number[];
    if (request.sort === 'port') {
      // Within one port the order is by id, which the bitmap already yields.
      ids = Array.from(inBucket);
      if (request.order === 'desc') ids.reverse();
    } else if (request.sort === 'timestamp' || request.sort === 'date_added') {
      const time = request.sort === 'timestamp' ? columns.observedAt : columns.dateAdded;
      ids = firstByTime(inBucket, skip + request.limit - result.length, (id) => time.get(id), request.order);
    } else {
      ids = Array.from(inBucket).sort(compare);
    }
    for (const id of ids) {
      if (skip > 0) {
        skip--;
        continue;
      }
      result.push(id);
      if (result.length === request.limit) return result;
    }
  }
  return result;
}

/** A bucket: its kind and key (an hour, a port, an IP block). */
interface BucketKey {
  family: BucketKind;
  key: number;
}

interface BucketRef extends BucketKey {
  bitmap: Bitmap;
}

function* bucketsInOrder(request: PageRequest, postings: Postings): Generator<BucketRef> {
  const families: BucketKind[] =
    request.sort === 'timestamp'
      ? [BucketKind.ObservedHour]
      : request.sort === 'date_added'
        ? [BucketKind.AddedHour]
        : request.sort === 'port'
          ? [BucketKind.Port]
          : [BucketKind.Ipv4Slash24, BucketKind.Ipv6Slash48];
  const ordered = request.order === 'asc' ? families : [...families].reverse();
  for (const name of ordered) {
    const family = postings.family(name);
    const keys = family.sortedKeys();
    const from = request.order === 'asc' ? 0 : keys.length - 1;
    const step = request.order === 'asc' ? 1 : -1;
    for (let i = from; i >= 0 && i < keys.length; i += step) {
      const bitmap = family.bucket(keys[i]!);
      if (bitmap) yield { family: name, key: keys[i]!, bitmap };
    }
  }
}

/** Where a sort's bucket kind comes in the walk: IPv4 blocks before IPv6 blocks (the others walk alone). */
const FAMILY_RANK: Partial<Record<BucketKind, number>> = {
  [BucketKind.ObservedHour]: 0,
  [BucketKind.AddedHour]: 0,
  [BucketKind.Port]: 0,
  [BucketKind.Ipv4Slash24]: 0,
  [BucketKind.Ipv6Slash48]: 1,
};

function bucketOfPosition(sort: SortField, position: SortPosition): BucketKey {
  const [first, second] = position.key;
  switch (sort) {
    case 'timestamp':
      return { family: BucketKind.ObservedHour, key: Math.floor(Number(first) / HOUR_MS) };
    case 'date_added':
      return { family: BucketKind.AddedHour, key: Math.floor(Number(first) / HOUR_MS) };
    case 'port':
      return { family: BucketKind.Port, key: Number(first) };
    case 'ip':
      return Number(first) === 4
        ? { family: BucketKind.Ipv4Slash24, key: Number(second) >>> 8 }
        : { family: BucketKind.Ipv6Slash48, key: Number(BigInt(second!) >> 80n) };
  }
}

function sameBucket(a: BucketKey, b: BucketKey): boolean {
  return a.family === b.family && a.key === b.key;
}

/** True when `bucket` comes before the cursor's bucket in the walk order. */
function beforeStart(bucket: BucketKey, start: BucketKey, order: 'asc' | 'desc') {
  const rank = FAMILY_RANK[bucket.family]! - FAMILY_RANK[start.family]!;
  const relation = rank !== 0 ? rank : bucket.key - start.key;
  return order === 'asc' ? relation < 0 : relation > 0;
}

function ascendingComparator(sort: SortField, c: SortColumns): (a: number, b: number) => number {
  switch (sort) {
    case 'timestamp':
      return (a, b) => c.observedAt.get(a) - c.observedAt.get(b) || a - b;
    case 'date_added':
      return (a, b) => c.dateAdded.get(a) - c.dateAdded.get(b) || a - b;
    case 'port':
      return (a, b) => c.port.get(a) - c.port.get(b) || a - b;
    case 'ip':
      return (a, b) => compareIp(c, a, b) || c.port.get(a) - c.port.get(b) || a - b;
  }
}

function compareIp(c: SortColumns, a: number, b: number): number {
  const versionA = c.ipIsV6.get(a);
  const versionB = c.ipIsV6.get(b);
  if (versionA !== versionB) return versionA - versionB;
  if (versionA === 0) return c.ipv4.get(a) - c.ipv4.get(b);
  const x = c.ipv6.get(a)!;
  const y = c.ipv6.get(b)!;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether a record comes strictly after the cursor position in the requested order. */
function afterTest(request: PageRequest, columns: SortColumns): (id: number) => boolean {
  const position = request.after!;
  return (id) => {
    const relation = compareKeys(columns.keyOf(id, request.sort), position.key) || id - position.id;
    return request.order === 'asc' ? relation > 0 : relation < 0;
  };
}

/** Key tuples hold numbers, or decimal strings of big integers (IPv6 values). */
function compareKeys(a: Array<number | string>, b: Array<number | string>): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    const bx = BigInt(x ?? 0);
    const by = BigInt(y ?? 0);
    if (bx !== by) return bx < by ? -1 : 1;
  }
  return 0;
}
