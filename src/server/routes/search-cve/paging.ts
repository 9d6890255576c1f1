/**
 * Paging of `/v3/search/cve`: `page`/`limit` within a 10,000-hit window, or a cursor walk —
 * `start_cursor` (any value) or an empty `cursor` starts it, `cursor=<_meta.next_cursor>` continues
 * it. The walk serves the feeds first (in name order, then by record id), then target-intel by
 * record id; the signed cursor carries the CVE, the limit and where the walk stands.
 */
import { badRequest } from '../../../core/errors.js';
import { CVE_SEARCH_DEFAULT_LIMIT, CVE_SEARCH_MAX_LIMIT, type CveSearchQuery } from '../../../core/api/index.js';
import {
  type CursorShape,
  type CursorState,
  openCursor,
  pagingMode,
  requireSameWalk,
  sealCursor,
} from '../../paging/sealed-cursor.js';
import type { CvePosition } from './search.js';

/** Page paging stops at this many hits; deeper walks use the cursor. */
export const RESULT_WINDOW = 10_000;

interface CveCursorState extends CursorState {
  /** In the feeds: the last advisory served. */
  a?: [feed: string, cveId: string, recordId: string];
  /** In target-intel: the id of the last record served (-1: none yet). */
  h?: number;
}

export type CveSearchPaging =
  | { mode: 'page'; cve: string; page: number; limit: number; offset: number }
  | { mode: 'cursor'; cve: string; page: number; limit: number; position: CvePosition };

export function resolveCveSearchPaging(raw: CveSearchQuery, secret: string): CveSearchPaging {
  const cve = raw.cve.toUpperCase();
  const limit = raw.limit ?? CVE_SEARCH_DEFAULT_LIMIT;
  const mode = pagingMode(raw);
  if (mode === 'continue') return continueCursor(raw, cve, secret);
  if (mode === 'start') return { mode: 'cursor', cve, page: 1, limit, position: { in: 'feeds' } };
  const page = raw.page ?? 1;
  if (page * limit > RESULT_WINDOW) {
    throw badRequest(
      `invalid pagination parameters: page (${page}) × limit (${limit}) exceeds the maximum result window of ${RESULT_WINDOW}; use start_cursor and cursor to page deeper`,
    );
  }
  return { mode: 'page', cve, page, limit, offset: (page - 1) * limit };
}

export function nextCveCursor(
  secret: string,
  paging: Extract<CveSearchPaging, { mode: 'cursor' }>,
  next: CvePosition,
): string {
  const state: CveCursorState = {
    v: 1,
    f: { cve: paging.cve },
    l: paging.limit,
    p: paging.page + 1,
    ...(next.in === 'feeds' ? { a: [next.after!.feed, next.after!.cveId, next.after!.recordId] } : { h: next.afterId }),
  };
  return sealCursor(secret, state);
}

function continueCursor(raw: CveSearchQuery, cve: string, secret: string): CveSearchPaging {
  const state = openCursor(secret, raw.cursor!, CURSOR_SHAPE);
  requireSameWalk(state, { cve }, [['limit', raw.limit, state.l]]);
  const position: CvePosition = state.a
    ? { in: 'feeds', after: { feed: state.a[0], cveId: state.a[1], recordId: state.a[2] } }
    : { in: 'target-intel', afterId: state.h! };
  return { mode: 'cursor', cve, page: state.p, limit: state.l, position };
}

const CURSOR_SHAPE: CursorShape<CveCursorState> = {
  maxLimit: CVE_SEARCH_MAX_LIMIT,
  minPage: 2,
  hasOwnFields: (state): state is CveCursorState => {
    const { a, h, f } = state as CveCursorState;
    if (typeof f.cve !== 'string' || Object.keys(f).length !== 1) return false;
    const inFeeds = Array.isArray(a) && a.length === 3 && a.every((part) => typeof part === 'string');
    const inHosts = Number.isInteger(h) && h! >= -1;
    return inFeeds !== inHosts && (a === undefined || h === undefined);
  },
};
