import type { GrowableColumn } from '../columns.js';
import type { Slicer } from '../slices.js';
import { zeroedArrays as zeroed } from './scratch.js';

/** The per-record columns one pass over the matches reads. */
export interface TallyColumns {
  /** Per record, its group of list terms and of place terms (TermGroups ids). */
  listGroup: GrowableColumn<Uint32Array>;
  placeGroup: GrowableColumn<Uint32Array>;
  port: GrowableColumn<Uint16Array>;
}

export interface MatchTally {
  /** Matching records per term group (pooled, zeroed by the term count that reads it). */
  groupCounts?: Uint32Array;
  /** Matching records per port (pooled: give it back with givePortCounts). */
  portCounts?: Uint32Array;
}

/** Ids tallied between checks of the slice's clock. */
const CHUNK = 65_536;
const PORTS = 65_536;

/**
 * Matching records per list group, per place group and per port, as asked, in one pass over the
 * ids: each is a read of a column in id order, and at 10M records a pass over 2.8M matches per
 * column cost more than the reads themselves.
 */
export async function tallyMatches(
  columns: TallyColumns,
  groupLimit: number,
  matching: Uint32Array,
  wanted: { lists: boolean; places: boolean; ports: boolean },
  slicer: Slicer,
): Promise<MatchTally> {
  const groupCounts = wanted.lists || wanted.places ? zeroed.take(groupLimit) : undefined;
  const portCounts = wanted.ports ? zeroed.take(PORTS) : undefined;
  const empty = new Uint32Array(0);
  for (let offset = 0; offset < matching.length; offset += CHUNK) {
    const ids = matching.subarray(offset, offset + CHUNK);
    // Columns not asked for are read as empty: one loop, whose branches never change within a pass.
    tallyChunk(
      ids,
      wanted.lists ? columns.listGroup.values : empty,
      wanted.places ? columns.placeGroup.values : empty,
      groupCounts ?? empty,
      portCounts ? columns.port.values : new Uint16Array(0),
      portCounts ?? empty,
    );
    await slicer.yieldIfDue();
  }
  return { ...(groupCounts ? { groupCounts } : {}), ...(portCounts ? { portCounts } : {}) };
}

/** Gives tallyMatches' port counts back to the pool, zeroed (a fill of 256 KiB: microseconds). */
export function givePortCounts(portCounts: Uint32Array): void {
  portCounts.fill(0, 0, PORTS);
  zeroed.give(portCounts);
}

/** tallyMatches for one chunk of ids: synchronous, so the engine optimises its loop. */
function tallyChunk(
  ids: Uint32Array,
  listOf: Uint32Array,
  placeOf: Uint32Array,
  groupCounts: Uint32Array,
  portOf: Uint16Array,
  portCounts: Uint32Array,
): void {
  const lists = listOf.length > 0;
  const places = placeOf.length > 0;
  const ports = portCounts.length > 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (lists) groupCounts[listOf[id] ?? 0]!++;
    if (places) groupCounts[placeOf[id] ?? 0]!++;
    if (ports) portCounts[portOf[id] ?? 0]!++;
  }
}
