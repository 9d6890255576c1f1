import { formatFsValue } from '../../core/cpe.js';
import type { CpeNameRow, CpeNameSearch } from '../../storage/index.js';
import { type Bitmap, RoaringBitmap32 } from '../bitmap.js';
import { compareCodePoints } from './code-points.js';
import type { NameDelta } from './delta.js';
import type { KeyColumn } from './key-column.js';
import type { NameSnapshot } from './snapshot.js';

export interface CpeNameMatch {
  /** The lower-cased CPE 2.3 string: the sort key. */
  id: string;
  /** As published. */
  cpe: string;
}

export interface CpeNamePage {
  /** Every match, past any window. */
  total: number;
  names: CpeNameMatch[];
}

interface Filter {
  part?: string;
  vendor?: string;
  product?: string;
  version?: string;
  versionPrefix: boolean;
}

/** The search's values as the columns hold them (lower-case, trimmed); an empty version prefix filters nothing. */
function filterOf(search: CpeNameSearch): Filter {
  const filter: Filter = { versionPrefix: search.versionPrefix === true };
  if (search.part !== undefined) filter.part = search.part.toLowerCase();
  if (search.vendor !== undefined) filter.vendor = search.vendor.trim().toLowerCase();
  if (search.product !== undefined) filter.product = search.product.trim().toLowerCase();
  if (search.version !== undefined) {
    const version = search.version.trim().toLowerCase();
    if (!filter.versionPrefix || version !== '') filter.version = version;
  }
  return filter;
}

const rowMatches = (row: CpeNameRow, filter: Filter): boolean =>
  (filter.part === undefined || row.part === filter.part) &&
  (filter.vendor === undefined || row.vendor === filter.vendor) &&
  (filter.product === undefined || row.product === filter.product) &&
  (filter.version === undefined ||
    (filter.versionPrefix ? row.version.startsWith(filter.version) : row.version === filter.version));

/** A value as an id field, or undefined when no CPE name can hold it. */
function fsValue(plain: string): string | undefined {
  try {
    return formatFsValue(plain);
  } catch {
    return undefined;
  }
}

/**
 * The snapshot ranks matching the filter, live (not removed): rank ranges from the id prefixes
 * (part, vendor, product under a vendor), intersected with column slices (product without a
 * vendor, version), less the removed ranks.
 */
function snapshotMatches(snapshot: NameSnapshot, delta: NameDelta, filter: Filter): Bitmap {
  const ranges: Array<[number, number]> = [];
  if (filter.part === undefined && filter.vendor === undefined) ranges.push([0, snapshot.size]);
  else {
    let tail = '';
    if (filter.vendor !== undefined) {
      const vendor = fsValue(filter.vendor);
      const product = filter.product === undefined ? '' : fsValue(filter.product);
      if (vendor === undefined || product === undefined) return new RoaringBitmap32();
      tail = filter.product === undefined ? `${vendor}:` : `${vendor}:${product}:`;
    }
    for (const part of filter.part === undefined ? ['a', 'h', 'o'] : [filter.part]) {
      const range = snapshot.ids.prefixRange(`cpe:2.3:${part}:${tail}`);
      if (range[1] > range[0]) ranges.push(range);
    }
  }
  const slices: Array<{ column: KeyColumn; from: number; to: number }> = [];
  if (filter.product !== undefined && filter.vendor === undefined) {
    const [from, to] = snapshot.products.exact(filter.product);
    slices.push({ column: snapshot.products, from, to });
  }
  if (filter.version !== undefined) {
    const [from, to] = filter.versionPrefix
      ? snapshot.versions.prefix(filter.version)
      : snapshot.versions.exact(filter.version);
    slices.push({ column: snapshot.versions, from, to });
  }
  if (slices.some(({ from, to }) => from === to)) return new RoaringBitmap32();
  let result: Bitmap | undefined;
  for (const { column, from, to } of slices) {
    const bitmap = column.bitmap(from, to);
    result = result === undefined ? bitmap : RoaringBitmap32.and(result, bitmap);
  }
  const whole = ranges.length === 1 && ranges[0]![0] === 0 && ranges[0]![1] === snapshot.size;
  if (result === undefined) {
    result = new RoaringBitmap32();
    for (const [from, to] of ranges) result.addRange(from, to);
  } else if (!whole) {
    const within = new RoaringBitmap32();
    for (const [from, to] of ranges) within.addRange(from, to);
    result = RoaringBitmap32.and(result, within);
  }
  if (!delta.removed.isEmpty) result = RoaringBitmap32.andNot(result, delta.removed);
  return result;
}

/** The page the search asks for, and the exact total, over a snapshot and the changes since. */
export function searchNames(snapshot: NameSnapshot, delta: NameDelta, search: CpeNameSearch): CpeNamePage {
  const filter = filterOf(search);
  const base = snapshotMatches(snapshot, delta, filter);
  const added = delta.added.filter((row) => rowMatches(row, filter));
  const total = base.size + added.length;
  if (search.limit <= 0 || search.offset >= total) return { total, names: [] };
  // Desc is the same page counted from the end.
  const from = search.order === 'desc' ? Math.max(0, total - search.offset - search.limit) : search.offset;
  const to = search.order === 'desc' ? total - search.offset : Math.min(total, search.offset + search.limit);
  const names = mergedRange(snapshot, delta, base, added, from, to);
  if (search.order === 'desc') names.reverse();
  return { total, names };
}

/**
 * Positions [from, to) of the snapshot matches and the added matches merged in id order. An added
 * name's position is its index among the added plus the snapshot matches below it; the snapshot
 * match at position p is the (p − added before p)-th, found by `select`.
 */
function mergedRange(
  snapshot: NameSnapshot,
  delta: NameDelta,
  base: Bitmap,
  added: CpeNameRow[],
  from: number,
  to: number,
): CpeNameMatch[] {
  const positionOf = (j: number) => {
    const below = snapshot.ids.insertionPoint(added[j]!.id);
    return j + (below === 0 ? 0 : base.rank(below - 1));
  };
  let low = 0;
  let high = added.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positionOf(middle) < from) low = middle + 1;
    else high = middle;
  }
  let j = low;
  let next = j < added.length ? positionOf(j) : Number.POSITIVE_INFINITY;
  const names: CpeNameMatch[] = [];
  for (let position = from; position < to; position++) {
    if (position === next) {
      const row = added[j++]!;
      names.push({ id: row.id, cpe: row.cpe });
      next = j < added.length ? positionOf(j) : Number.POSITIVE_INFINITY;
    } else {
      const rank = base.select(position - j)!;
      names.push({ id: snapshot.ids.at(rank), cpe: delta.published.get(rank) ?? snapshot.cpeAt(rank) });
    }
  }
  return names;
}

/** Every name in id order, over a snapshot and the changes since. */
export function* allNames(snapshot: NameSnapshot, delta: NameDelta): Generator<CpeNameMatch> {
  let j = 0;
  const added = delta.added;
  for (let rank = 0; rank < snapshot.size; rank++) {
    if (delta.removed.has(rank)) continue;
    const id = snapshot.ids.at(rank);
    while (j < added.length && compareCodePoints(added[j]!.id, id) < 0) {
      const row = added[j++]!;
      yield { id: row.id, cpe: row.cpe };
    }
    yield { id, cpe: delta.published.get(rank) ?? snapshot.cpeAt(rank) };
  }
  for (; j < added.length; j++) yield { id: added[j]!.id, cpe: added[j]!.cpe };
}
