import { badRequest } from '../../../core/errors.js';
import type { SortField, SortOrder, SortPosition } from '../../../search/host-query.js';
import {
  type CursorShape,
  type CursorState,
  openCursor,
  pagingMode,
  requireSameWalk,
  sealCursor,
} from '../../paging/sealed-cursor.js';
import type { TargetIntelQuery } from '../../../core/api/index.js';
import { filterParams, filterStrings, sortOf, type TargetIntelFilters, typedFilters } from './query.js';

/** Offset paging stops at this many records; deeper walks use the cursor. */
export const RESULT_WINDOW = 10_000;
const PAGE_LIMIT_MAX = 100;
const CURSOR_LIMIT_MAX = 2000;
const DEFAULT_LIMIT = 100;

/** What a signed cursor carries: enough to continue the walk with no other parameter. */
interface HostCursorState extends CursorState {
  s: SortField;
  o: SortOrder;
  /** Snapshot: only records unchanged since this change-log sequence number. */
  n: number;
  /** The sort position of the last record served. */
  a?: SortPosition;
}

export type Paging =
  | { mode: 'page'; filters: TargetIntelFilters; sort: SortField; order: SortOrder; page: number; limit: number }
  | {
      mode: 'cursor';
      filters: TargetIntelFilters;
      sort: SortField;
      order: SortOrder;
      page: number;
      limit: number;
      snapshotSeq: number;
      after?: SortPosition;
      cursor?: string;
    };

/** Decides offset or cursor mode from the raw parameters (400 naming the parameter on conflict). */
export function resolvePaging(raw: TargetIntelQuery, secret: string, currentSeq: number): Paging {
  const mode = pagingMode(raw);
  if (mode === 'continue') return continueCursor(raw, secret);
  const { sort, order } = sortOf(raw);
  const filters = filterParams(raw);
  if (mode === 'start') {
    if (raw.start_cursor === false) throw badRequest('parameter "start_cursor" must be true to start a cursor walk');
    const limit = raw.limit ?? DEFAULT_LIMIT;
    return { mode: 'cursor', filters, sort, order, page: 1, limit, snapshotSeq: currentSeq };
  }
  const page = raw.page ?? 1;
  const limit = raw.limit ?? DEFAULT_LIMIT;
  if (limit > PAGE_LIMIT_MAX) {
    throw badRequest(
      `parameter "limit" must be between 1 and ${PAGE_LIMIT_MAX} with page paging (up to ${CURSOR_LIMIT_MAX} in a cursor walk), got ${limit}`,
    );
  }
  if (page * limit > RESULT_WINDOW) {
    throw badRequest(
      `invalid pagination parameters: page (${page}) × limit (${limit}) exceeds the maximum result window of ${RESULT_WINDOW}; use start_cursor=true and cursor to page deeper`,
    );
  }
  return { mode: 'page', filters, sort, order, page, limit };
}

export function nextCursor(secret: string, paging: Extract<Paging, { mode: 'cursor' }>, after: SortPosition): string {
  const state: HostCursorState = {
    v: 1,
    f: filterStrings(paging.filters),
    s: paging.sort,
    o: paging.order,
    l: paging.limit,
    n: paging.snapshotSeq,
    p: paging.page + 1,
    a: after,
  };
  return sealCursor(secret, state);
}

function continueCursor(raw: TargetIntelQuery, secret: string): Paging {
  const state = openCursor(secret, raw.cursor!, CURSOR_SHAPE);
  requireSameWalk(state, filterStrings(filterParams(raw)), [
    ['sort', raw.sort, state.s],
    ['order', raw.order, state.o],
    ['limit', raw.limit, state.l],
  ]);
  return {
    mode: 'cursor',
    filters: typedFilters(state.f),
    sort: state.s,
    order: state.o,
    page: state.p,
    limit: state.l,
    snapshotSeq: state.n,
    after: state.a,
    cursor: raw.cursor,
  };
}

const CURSOR_SHAPE: CursorShape<HostCursorState> = {
  maxLimit: CURSOR_LIMIT_MAX,
  minPage: 1,
  hasOwnFields: (value): value is HostCursorState => {
    const state = value as HostCursorState;
    return (
      ['timestamp', 'date_added', 'ip', 'port'].includes(state.s) &&
      ['asc', 'desc'].includes(state.o) &&
      Number.isInteger(state.n) &&
      (state.a === undefined ||
        (Array.isArray(state.a.key) &&
          state.a.key.every((k) => typeof k === 'number' || (typeof k === 'string' && /^\d+$/.test(k))) &&
          Number.isInteger(state.a.id)))
    );
  },
};
