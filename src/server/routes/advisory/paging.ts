/**
 * Paging of `/v4/advisory`: `page`/`limit`, or a cursor walk — `start_cursor` (any value) starts
 * it, `cursor=<_meta.next_cursor>` continues it. A cursor is signed with the server secret and
 * carries the filters, the limit, the page number and the position of the last record served, so
 * a walk needs no other parameter and returns each record exactly once.
 */
import { badRequest } from '../../../core/errors.js';
import { openJson, sealJson } from '../../../core/signing.js';
import type { AdvisoryPosition } from '../../../storage/advisories/index.js';
import { parseInteger } from '../../params.js';
import { filterParams, type RawParams } from './parameters.js';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
const MAX_PAGE = 1_000_000;

interface CursorState {
  v: 1;
  f: Record<string, string>;
  l: number;
  /** Page number of the page this cursor fetches. */
  p: number;
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

const present = (value: string | undefined) => value !== undefined && value !== '';

export function resolveAdvisoryPaging(raw: RawParams, secret: string): AdvisoryPagingRequest {
  const hasCursor = present(raw.cursor);
  const startsCursor = raw.start_cursor !== undefined;
  if (present(raw.page) && (hasCursor || startsCursor)) {
    throw badRequest(`parameter "page" cannot be combined with "${hasCursor ? 'cursor' : 'start_cursor'}"`);
  }
  const limit = present(raw.limit) ? parseInteger('limit', raw.limit!, 1, MAX_LIMIT) : DEFAULT_LIMIT;
  if (hasCursor) return continueCursor(raw, secret);
  const filters = filterParams(raw);
  if (startsCursor) return { mode: 'cursor', filters, page: 1, limit };
  const page = present(raw.page) ? parseInteger('page', raw.page!, 1, MAX_PAGE) : 1;
  return { mode: 'page', filters, page, limit };
}

export function nextAdvisoryCursor(
  secret: string,
  paging: Extract<AdvisoryPagingRequest, { mode: 'cursor' }>,
  last: AdvisoryPosition,
): string {
  const state: CursorState = {
    v: 1,
    f: paging.filters,
    l: paging.limit,
    p: paging.page + 1,
    a: [last.feed, last.cveId, last.recordId],
  };
  return sealJson(secret, state);
}

function continueCursor(raw: RawParams, secret: string): AdvisoryPagingRequest {
  const state = openJson(secret, raw.cursor!);
  if (!isCursorState(state)) throw badRequest('parameter "cursor" is malformed or has been tampered with');
  // A client may repeat the walk's parameters; it may not change them mid-walk.
  for (const [name, value] of Object.entries(filterParams(raw))) {
    if (state.f[name] !== value) throw badRequest(`parameter "${name}" differs from the cursor's; start a new walk`);
  }
  if (present(raw.limit) && Number(raw.limit) !== state.l) {
    throw badRequest('parameter "limit" differs from the cursor\'s; start a new walk');
  }
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

function isCursorState(value: unknown): value is CursorState {
  const state = value as CursorState;
  return (
    typeof state === 'object' &&
    state !== null &&
    state.v === 1 &&
    typeof state.f === 'object' &&
    state.f !== null &&
    Object.values(state.f).every((v) => typeof v === 'string') &&
    Number.isInteger(state.l) &&
    state.l >= 1 &&
    state.l <= MAX_LIMIT &&
    Number.isInteger(state.p) &&
    state.p >= 2 &&
    Array.isArray(state.a) &&
    state.a.length === 3 &&
    state.a.every((part) => typeof part === 'string')
  );
}
