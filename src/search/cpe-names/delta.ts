import type { CpeNameRow } from '../../storage/index.js';
import { type Bitmap, RoaringBitmap32 } from '../bitmap.js';
import { compareCodePoints } from './code-points.js';
import type { NameSnapshot } from './snapshot.js';

/**
 * What changed since a snapshot was built, immutable (each batch of changes makes a new one, so
 * a reader holding one sees a consistent state): snapshot names removed (by rank), names added
 * (sorted by id), and snapshot names now published under another spelling.
 */
export class NameDelta {
  constructor(
    readonly removed: Bitmap,
    readonly added: readonly CpeNameRow[],
    readonly published: ReadonlyMap<number, string>,
  ) {}

  static empty(): NameDelta {
    return new NameDelta(new RoaringBitmap32(), [], new Map());
  }

  /** Entries held: past a bound the snapshot is rebuilt. */
  get size(): number {
    return this.removed.size + this.added.length + this.published.size;
  }

  get byteLength(): number {
    let bytes = this.removed.getSerializationSizeInBytes(true);
    for (const row of this.added) bytes += 96 + 2 * (row.id.length + row.cpe.length);
    return bytes + this.published.size * 64;
  }

  /**
   * The delta after names `ids` were written or removed: `rows` holds those that exist now (the
   * row as it is now is the truth, whatever happened in between).
   */
  apply(snapshot: NameSnapshot, ids: Iterable<string>, rows: ReadonlyMap<string, CpeNameRow>): NameDelta {
    const removed = this.removed.clone();
    const published = new Map(this.published);
    // Added names written again or removed leave the list; those (still) present come back sorted.
    const touched = new Set<string>();
    const incoming: CpeNameRow[] = [];
    for (const id of ids) {
      const row = rows.get(id);
      const rank = snapshot.ids.rankOf(id);
      if (rank >= 0) {
        published.delete(rank);
        if (!row) removed.add(rank);
        else {
          removed.remove(rank);
          if (row.cpe !== snapshot.cpeAt(rank)) published.set(rank, row.cpe);
        }
      } else if (!touched.has(id)) {
        touched.add(id);
        if (row) incoming.push(row);
      }
    }
    const kept = touched.size === 0 ? this.added : this.added.filter((row) => !touched.has(row.id));
    const sorted =
      incoming.length === 0
        ? kept
        : merge(
            kept,
            incoming.sort((a, b) => compareCodePoints(a.id, b.id)),
          );
    return new NameDelta(removed, sorted, published);
  }
}

function merge(a: readonly CpeNameRow[], b: readonly CpeNameRow[]): CpeNameRow[] {
  const out: CpeNameRow[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(compareCodePoints(a[i]!.id, b[j]!.id) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
