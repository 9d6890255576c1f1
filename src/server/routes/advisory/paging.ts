/**
 * Paging of `/v4/advisory`: `page`/`limit`, or a cursor walk — `start_cursor` (any value) starts
 * it, `cursor=<_meta.next_cursor>` continues it. A cursor is signed with the server secret and
 * carries the filters, the limit, the page number and the position of the last record served, so
 * a walk needs no other parameter and returns each record exactly once.
 */
import type { AdvisoryPosition } from '../../../storage/index.js';
import {
  type CursorShape,
  type CursorState,
  openCursor,
  pagingMode,
  requireSameWalk,
  sealCursor,
} from '../../paging/sealed-cursor.js';
import { type AdvisoryQuery, filterParams } from './parameters.js';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

interface AdvisoryCursorState extends CursorState {
  /** The last record served. */
  a: [feed: string, cveId: string, recordId: string];
}

export type AdvisoryPagingRequest =
  | { mode: 'page'; filters: Record<string, string>; page: number; limit: number }
  | {
      mode: 'cursor';
      filters: Record<string, string>;
      page: number;
      limit: number;
      after?: AdvisoryPosition;
      /** The cursor this request continues (echoed in `_meta.cursor`). */
      cursor?: string;
    };

export function resolveAdvisoryPaging(raw: AdvisoryQuery, secret: string): AdvisoryPagingRequest {
  const mode = pagingMode(raw);
  const limit = raw.limit ?? DEFAULT_LIMIT;
  if (mode === 'continue') return continueCursor(raw, secret);
  const filters = filterParams(raw);
  if (mode === 'start') return { mode: 'cursor', filters, page: 1, limit };
  const page = raw.page ?? 1;
  return { mode: 'page', filters, page, limit };
}

export function nextAdvisoryCursor(
  secret: string,
  paging: Extract<AdvisoryPagingRequest, { mode: 'cursor' }>,
  last: AdvisoryPosition,
): string {
  const state: AdvisoryCursorState = {
    v: 1,
    f: paging.filters,
    l: paging.limit,
    p: paging.page + 1,
    a: [last.feed, last.cveId, last.recordId],
  };
  return sealCursor(secret, state);
}

function continueCursor(raw: AdvisoryQuery, secret: string): AdvisoryPagingRequest {
  const state = openCursor(secret, raw.cursor!, CURSOR_SHAPE);
  requireSameWalk(state, filterParams(raw), [['limit', raw.limit, state.l]]);
  const [feed, cveId, recordId] = state.a;
  return {
    mode: 'cursor',
    filters: state.f,
    page: state.p,
    limit: state.l,
    after: { feed, cveId, recordId },
    cursor: raw.cursor,
  };
}

const CURSOR_SHAPE: CursorShape<AdvisoryCursorState> = {
  maxLimit: MAX_LIMIT,
  minPage: 2,
  hasOwnFields: (state): state is AdvisoryCursorState => {
    const { a } = state as AdvisoryCursorState;
    return Array.isArray(a) && a.length === 3 && a.every((part) => typeof part === 'string');
  },
};
