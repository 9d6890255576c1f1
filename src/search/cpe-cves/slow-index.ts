/**
 * A product's per-name criteria (slow-criteria.ts) filed by the version keys of their index rows,
 * so a name is checked only against the criteria one of whose rows may cover it: the index
 * contract's rowMayMatch for a lookup with both keys and no family, answered by a map of exact
 * keys and an interval structure over the ranges instead of a test per criterion.
 */
import type { NameLookup } from '../../core/applicability/index-keys.js';
import { IntervalStabbing, type KeyInterval } from './interval-stabbing.js';
import type { SlowCriterion } from './slow-criteria.js';

export class SlowCriteriaIndex {
  private constructor(
    /** Criteria with a row that covers every version (or must always be checked). */
    private readonly always: number[],
    private readonly exact: Map<string, number[]>,
    private readonly ranges: IntervalStabbing,
  ) {}

  static async build(criteria: readonly SlowCriterion[], pause: () => Promise<void>): Promise<SlowCriteriaIndex> {
    const always: number[] = [];
    const exact = new Map<string, number[]>();
    const ranges: KeyInterval[] = [];
    criteria.forEach((criterion, i) => {
      for (const row of criterion.rows) {
        if (row.alwaysCheck || row.unbounded) always.push(i);
        else if (row.exactKey !== undefined) {
          const listed = exact.get(row.exactKey);
          if (listed) listed.push(i);
          else exact.set(row.exactKey, [i]);
        } else if (row.startKey !== undefined || row.endKey !== undefined) {
          ranges.push({
            ...(row.startKey !== undefined ? { start: row.startKey } : {}),
            startInclusive: row.startInclusive === true,
            ...(row.endKey !== undefined ? { end: row.endKey } : {}),
            endInclusive: row.endInclusive === true,
            value: i,
          });
        }
      }
    });
    return new SlowCriteriaIndex(always, exact, await IntervalStabbing.build(ranges, criteria.length, pause));
  }

  /**
   * The criteria (positions, ascending) with a row that may cover the lookup's name; undefined
   * when the lookup lacks a key or reads a family, for which every criterion must be checked.
   */
  candidatesOf(lookup: NameLookup): number[] | undefined {
    const { rawKey, foldedKey } = lookup;
    if (rawKey === undefined || foldedKey === undefined || lookup.familyEndKey !== undefined) return undefined;
    const found = new Set<number>(this.always);
    for (const i of this.exact.get(rawKey) ?? []) found.add(i);
    if (foldedKey !== rawKey) for (const i of this.exact.get(foldedKey) ?? []) found.add(i);
    const { covering, extra } = this.ranges.stab(foldedKey);
    for (const i of covering) found.add(i);
    for (const i of extra) found.add(i);
    return [...found].sort((a, b) => a - b);
  }
}
