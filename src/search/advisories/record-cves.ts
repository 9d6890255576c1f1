import { float64Column, uint8Column } from '../columns.js';

/** What a slot keeps: nothing yet, no CVE id, only its own CVE id (most records), or a list. */
const UNREAD = 0;
const NONE = 1;
const OWN = 2;
const LISTED = 3;

/**
 * The CVE ids each held record names (its own and its CVE aliases), per slot, kept once a lookup
 * has read them from the record: the index rows do not carry the aliases, and reading and parsing
 * every matched record on each `/v3/purl` was most of its time. An entry is kept with the row id
 * it was read from, so a slot freed and given to another row never answers with the old one's ids.
 */
export class RecordCves {
  private readonly rowIds = float64Column();
  private readonly kinds = uint8Column();
  private readonly lists = new Map<number, readonly string[]>();
  private count = 0;
  private listBytes = 0;

  /** The ids kept for the row `rowId` in `slot` (whose CVE id is `own`), or undefined when none are. */
  get(slot: number, rowId: number, own: string): readonly string[] | undefined {
    const kind = this.kinds.get(slot);
    if (kind === UNREAD || this.rowIds.get(slot) !== rowId) return undefined;
    return kind === OWN ? [own] : kind === NONE ? [] : this.lists.get(slot)!;
  }

  /** Keeps `ids` for the row `rowId` in `slot`, whose CVE id is `own`. */
  set(slot: number, rowId: number, ids: readonly string[], own: string): void {
    if (this.kinds.get(slot) === UNREAD) this.count++;
    const previous = this.lists.get(slot);
    if (previous !== undefined) {
      this.listBytes -= bytesOf(previous);
      this.lists.delete(slot);
    }
    const kind = ids.length === 0 ? NONE : ids.length === 1 && ids[0] === own ? OWN : LISTED;
    if (kind === LISTED) {
      this.lists.set(slot, ids);
      this.listBytes += bytesOf(ids);
    }
    this.kinds.set(slot, kind);
    this.rowIds.set(slot, rowId);
  }

  /** Slots with ids kept. */
  get size(): number {
    return this.count;
  }

  get byteLength(): number {
    return this.rowIds.bytes + this.kinds.bytes + this.listBytes;
  }
}

/** A kept list: its map entry, the array and each id's string. */
const bytesOf = (ids: readonly string[]) => 40 + 32 + ids.reduce((sum, id) => sum + 8 + 16 + id.length, 0);
