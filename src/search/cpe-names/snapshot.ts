import type { CpeNameRow } from '../../storage/index.js';
import { type KeyColumn, KeyColumnBuilder } from './key-column.js';
import type { Slicer } from '../slices.js';
import { type SortedIds, SortedIdsBuilder } from './sorted-ids.js';

/**
 * Every CPE name at one moment, immutable: ids in bytewise order (rank = position), the name as
 * published where it differs from its id, and the product and version columns. Part, vendor and
 * product are prefixes of the id, so those filters are rank ranges; product alone and version go
 * through the columns.
 */
export class NameSnapshot {
  constructor(
    readonly ids: SortedIds,
    /** The published name, by rank, where it is not the id itself (rare: mixed case). */
    private readonly published: Map<number, string>,
    readonly products: KeyColumn,
    readonly versions: KeyColumn,
  ) {}

  get size(): number {
    return this.ids.size;
  }

  cpeAt(rank: number): string {
    return this.published.get(rank) ?? this.ids.at(rank);
  }

  get byteLength(): number {
    let bytes = this.ids.byteLength + this.products.byteLength + this.versions.byteLength;
    for (const cpe of this.published.values()) bytes += 48 + cpe.length;
    return bytes;
  }
}

/** Takes rows in ascending id order (each id once), then builds the snapshot in slices. */
export class NameSnapshotBuilder {
  private readonly ids = new SortedIdsBuilder();
  private readonly published = new Map<number, string>();
  private readonly products = new KeyColumnBuilder();
  private readonly versions = new KeyColumnBuilder();

  add(row: CpeNameRow): void {
    const rank = this.ids.size;
    this.ids.add(row.id);
    if (row.cpe !== row.id) this.published.set(rank, row.cpe);
    this.products.add(row.product);
    this.versions.add(row.version);
  }

  async finish(slicer: Slicer): Promise<NameSnapshot> {
    const ids = await this.ids.finish(slicer);
    const products = await this.products.finish(slicer);
    const versions = await this.versions.finish(slicer);
    return new NameSnapshot(ids, this.published, products, versions);
  }
}

export const emptySnapshot = (slicer: Slicer): Promise<NameSnapshot> => new NameSnapshotBuilder().finish(slicer);
