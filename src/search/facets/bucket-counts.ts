import type { Bitmap } from '../bitmap.js';
import { BucketKind } from '../bucket-kind.js';
import type { GrowableColumn } from '../columns.js';
import type { Postings } from '../postings.js';
import type { Slicer } from '../slices.js';
import type { FacetCounts, FacetRequest } from './fields.js';
import { topValues } from './top-values.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** An hour bucket lies within one UTC day: hours divide days. */
const HOURS_PER_DAY = DAY_MS / HOUR_MS;
/** Ids read from the matching bitmap at a time. */
const CHUNK = 65_536;
/**
 * Below this many matches per bucket, reading each match's column beats a bitmap intersection
 * count per bucket (a native call each, over every port or hour the index holds).
 */
const MATCHES_PER_BUCKET = 8;

/** What counting ports and days reads of the host index. */
export interface BucketSource {
  postings: Postings;
  port: GrowableColumn<Uint16Array>;
  dateAdded: GrowableColumn<Float64Array>;
  observedAt: GrowableColumn<Float64Array>;
}

/**
 * Counts of a field every record has exactly one value of — its port, or the UTC day of its
 * `date_added` or `timestamp` — from the index's bucket families (a port's records, an hour's
 * records) intersected with the matches, or for few matches from the per-record columns.
 */
export async function countBucketField(
  source: BucketSource,
  matching: Bitmap,
  total: number,
  { field, top }: FacetRequest,
  slicer: Slicer,
): Promise<FacetCounts> {
  const kind =
    field === 'port' ? BucketKind.Port : field === 'date_added' ? BucketKind.AddedHour : BucketKind.ObservedHour;
  const family = source.postings.family(kind);
  const keys = family.sortedKeys();
  const counts = new Map<number, number>();
  const add = (key: number, count: number) => counts.set(key, (counts.get(key) ?? 0) + count);
  const keyOfBucket = field === 'port' ? (key: number) => key : (hour: number) => Math.floor(hour / HOURS_PER_DAY);
  if (total >= keys.length * MATCHES_PER_BUCKET) {
    for (const key of keys) {
      const count = family.bucket(key)?.andCardinality(matching) ?? 0;
      if (count > 0) add(keyOfBucket(key), count);
      await slicer.tick();
    }
  } else {
    const keyOfRecord =
      field === 'port'
        ? (id: number) => source.port.get(id)
        : field === 'date_added'
          ? (id: number) => Math.floor(source.dateAdded.get(id) / DAY_MS)
          : (id: number) => Math.floor(source.observedAt.get(id) / DAY_MS);
    const buffer = new Uint32Array(Math.min(CHUNK, Math.max(1, total)));
    for (let offset = 0; offset < total; offset += CHUNK) {
      const ids = matching.rangeUint32Array(buffer, offset, CHUNK);
      for (let i = 0; i < ids.length; i++) add(keyOfRecord(ids[i]!), 1);
      await slicer.yieldIfDue();
    }
  }
  const entries = [...counts];
  const valueOfKey =
    field === 'port' ? (key: number) => key : (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
  const chosen = topValues(
    field,
    entries.length,
    top,
    (i) => entries[i]![1],
    (i) => valueOfKey(entries[i]![0]),
  );
  const shown = chosen.values.reduce((sum, value) => sum + value.count, 0);
  return { values: chosen.values, missing: 0, other: total - shown };
}
