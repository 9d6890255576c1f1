/**
 * One `/v4/advisory` query over the segments of its feeds (in feed-name order): the exact count
 * per feed by set algebra, then the page — from an offset, or after a cursor position — by rank.
 */
import { needsMatchData, type AdvisoryFilters } from '../../core/advisory/filters.js';
import type { AdvisoryPaging, AdvisoryPosition } from '../../storage/index.js';
import { intersectAll, RoaringBitmap32, unionAll, type Bitmap } from '../bitmap.js';
import { termConditions } from './conditions.js';
import type { RecordTable } from './record-table.js';
import type { FeedSegment } from './segment.js';
import type { TermDictionary } from './term-dictionary.js';

/** Up to this many term candidates, the match index is asked about them only. */
export const MATCH_CANDIDATES_MAX = 4096;

export interface PageHit extends AdvisoryPosition {
  rowId: number;
  slot: number;
}

export interface FoundPage {
  total: number;
  filtered: number;
  /** Records matching the filters in each segment, in the order of the segments. */
  filteredPerSegment: number[];
  hits: PageHit[];
  more: boolean;
  /** In `after` mode: the row ids of the records that follow the page, as many as asked to read ahead. */
  ahead: number[];
}

/** A feed's matching ranks: all of them, or a bitmap (read only). */
type Matches = 'all' | Bitmap;

const NONE = new RoaringBitmap32();

/** The ranks the term, CVE id and update-time filters leave in a segment. */
function termMatches(
  segment: FeedSegment,
  conditions: ReturnType<typeof termConditions>,
  filters: AdvisoryFilters,
): Matches {
  const parts: Bitmap[] = [];
  for (const ids of conditions) {
    if (ids.length === 0) return NONE;
    parts.push(unionAll(ids.map((id) => segment.posting(id))));
  }
  if (filters.cveId !== undefined) {
    const [lo, hi] = segment.cveRange(filters.cveId);
    if (lo >= hi) return NONE;
    parts.push(RoaringBitmap32.fromRange(lo, hi));
  }
  if (filters.updatedAfter !== undefined || filters.updatedBefore !== undefined) {
    parts.push(segment.updatedBetween(filters.updatedAfter, filters.updatedBefore));
  }
  return parts.length === 0 ? 'all' : intersectAll(parts);
}

const sizeOf = (segment: FeedSegment, matches: Matches) => (matches === 'all' ? segment.size : matches.size);

/** Ranks of `matches` from position `from`, at most `count`. */
function ranksFrom(segment: FeedSegment, matches: Matches, from: number, count: number): ArrayLike<number> {
  if (matches === 'all') {
    const to = Math.min(segment.size, from + count);
    return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
  }
  return matches.rangeUint32Array(new Uint32Array(count), from, count);
}

export async function findPage(
  segments: FeedSegment[],
  table: RecordTable,
  terms: TermDictionary,
  filters: AdvisoryFilters,
  paging: AdvisoryPaging,
  matching: (candidates: Bitmap | undefined) => Promise<Bitmap>,
  readAhead = 0,
): Promise<FoundPage> {
  const conditions = termConditions(filters, terms);
  let matches = segments.map((segment) => termMatches(segment, conditions, filters));
  if (needsMatchData(filters)) {
    const candidates = segments.reduce((sum, segment, i) => sum + sizeOf(segment, matches[i]!), 0);
    let slots: Bitmap;
    if (candidates === 0) slots = NONE;
    else if (candidates <= MATCH_CANDIDATES_MAX) {
      const candidateSlots = segments.map((segment, i) => {
        const m = matches[i]!;
        return segment.slotsOfRanks(m === 'all' ? RoaringBitmap32.fromRange(0, segment.size) : m);
      });
      slots = await matching(unionAll(candidateSlots));
    } else slots = await matching(undefined);
    matches = segments.map((segment, i) => {
      const ranks = segment.ranksOfSlots(slots);
      const m = matches[i]!;
      return m === 'all' ? ranks : intersectAll([m, ranks]);
    });
  }
  const filteredPerSegment = segments.map((segment, i) => sizeOf(segment, matches[i]!));
  const filtered = filteredPerSegment.reduce((sum, count) => sum + count, 0);
  const wanted = paging.mode === 'after' ? paging.limit + Math.max(1, readAhead) : paging.limit;
  const hits: PageHit[] = [];
  let skip = paging.mode === 'offset' ? paging.offset : 0;
  for (let i = 0; i < segments.length && hits.length < wanted; i++) {
    const segment = segments[i]!;
    const m = matches[i]!;
    const count = sizeOf(segment, m);
    let from = 0;
    if (paging.mode === 'after') {
      const after = paging.after;
      if (after && segment.feed < after.feed) continue;
      if (after && segment.feed === after.feed) {
        const rank = segment.rankAfter(after.cveId, after.recordId);
        from = m === 'all' ? rank : rank === 0 ? 0 : m.rank(rank - 1);
      }
    } else if (skip >= count) {
      skip -= count;
      continue;
    } else {
      from = skip;
      skip = 0;
    }
    const ranks = ranksFrom(segment, m, from, wanted - hits.length);
    for (let k = 0; k < ranks.length; k++) {
      const slot = segment.slots[ranks[k]!]!;
      hits.push({
        rowId: table.rowId(slot),
        slot,
        feed: segment.feed,
        cveId: table.cveId(slot),
        recordId: table.recordId(slot),
      });
    }
  }
  const more = paging.mode === 'after' && hits.length > paging.limit;
  return {
    total: segments.reduce((sum, segment) => sum + segment.size, 0),
    filtered,
    filteredPerSegment,
    hits: hits.slice(0, paging.limit),
    more,
    ahead: readAhead > 0 ? hits.slice(paging.limit).map((hit) => hit.rowId) : [],
  };
}
