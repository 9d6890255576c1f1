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
    const added = new Map(this.added.map((row) => [row.id, row]));
    let addedChanged = false;
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
      } else if (row) {
        added.set(id, row);
        addedChanged = true;
      } else if (added.delete(id)) addedChanged = true;
    }
    const sorted = addedChanged ? [...added.values()].sort((a, b) => compareCodePoints(a.id, b.id)) : this.added;
    return new NameDelta(removed, sorted, published);
  }
}
