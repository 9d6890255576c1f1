import { badRequest } from '../../../core/errors.js';
import { openJson, sealJson } from '../../../core/signing.js';
import type { SortField, SortOrder, SortPosition } from '../../../search/host-query.js';
import { parseBoolean, parseInteger } from '../../params.js';
import { filterParams, parseSort, type RawParams } from './query.js';

/** Offset paging stops at this many records; deeper walks use the cursor. */
export const RESULT_WINDOW = 10_000;
const PAGE_LIMIT_MAX = 100;
const CURSOR_LIMIT_MAX = 2000;
const DEFAULT_LIMIT = 100;

/** What a signed cursor carries: enough to continue the walk with no other parameter. */
interface CursorState {
  v: 1;
  f: RawParams;
  s: SortField;
  o: SortOrder;
  l: number;
  /** Snapshot: only records unchanged since this change-log sequence number. */
  n: number;
  /** Page number of the page this cursor fetches. */
  p: number;
  a?: SortPosition;
}

export type Paging =
  | { mode: 'page'; filters: RawParams; sort: SortField; order: SortOrder; page: number; limit: number }
  | {
      mode: 'cursor';
      filters: RawParams;
      sort: SortField;
      order: SortOrder;
      page: number;
      limit: number;
      snapshotSeq: number;
      after?: SortPosition;
      cursor?: string;
    };

/** Decides offset or cursor mode from the raw parameters (400 naming the parameter on conflict). */
export function resolvePaging(raw: RawParams, secret: string, currentSeq: number): Paging {
  const hasCursor = raw.cursor !== undefined && raw.cursor !== '';
  const startsCursor = raw.start_cursor !== undefined;
  if (raw.page !== undefined && raw.page !== '' && (hasCursor || startsCursor)) {
    throw badRequest(`parameter "page" cannot be combined with "${hasCursor ? 'cursor' : 'start_cursor'}"`);
  }
  if (hasCursor) return continueCursor(raw, secret);
  const { sort, order } = parseSort(raw);
  const filters = filterParams(raw);
  if (startsCursor) {
    if (raw.start_cursor !== '' && !parseBoolean('start_cursor', raw.start_cursor!)) {
      throw badRequest('parameter "start_cursor" must be true to start a cursor walk');
    }
    const limit = raw.limit ? parseInteger('limit', raw.limit, 1, CURSOR_LIMIT_MAX) : DEFAULT_LIMIT;
    return { mode: 'cursor', filters, sort, order, page: 1, limit, snapshotSeq: currentSeq };
  }
  const page = raw.page ? parseInteger('page', raw.page, 1, Number.MAX_SAFE_INTEGER) : 1;
  const limit = raw.limit ? parseInteger('limit', raw.limit, 1, PAGE_LIMIT_MAX) : DEFAULT_LIMIT;
  if (page * limit > RESULT_WINDOW) {
    throw badRequest(
      `invalid pagination parameters: page (${page}) × limit (${limit}) exceeds the maximum result window of ${RESULT_WINDOW}; use start_cursor=true and cursor to page deeper`,
    );
  }
  return { mode: 'page', filters, sort, order, page, limit };
}

export function nextCursor(secret: string, paging: Extract<Paging, { mode: 'cursor' }>, after: SortPosition): string {
  const state: CursorState = {
    v: 1,
    f: paging.filters,
    s: paging.sort,
    o: paging.order,
    l: paging.limit,
    n: paging.snapshotSeq,
    p: paging.page + 1,
    a: after,
  };
  return sealJson(secret, state);
}

function continueCursor(raw: RawParams, secret: string): Paging {
  const state = openJson(secret, raw.cursor!);
  if (!isCursorState(state)) throw badRequest('parameter "cursor" is malformed or has been tampered with');
  // A client may repeat the walk's parameters; it may not change them mid-walk.
  for (const [name, value] of Object.entries(filterParams(raw))) {
    if (state.f[name] !== value) throw badRequest(`parameter "${name}" differs from the cursor's; start a new walk`);
  }
  for (const [name, value] of [
    ['sort', state.s],
    ['order', state.o],
    ['limit', String(state.l)],
  ] as const) {
    if (raw[name] !== undefined && raw[name] !== '' && raw[name]!.toLowerCase() !== value) {
      throw badRequest(`parameter "${name}" differs from the cursor's; start a new walk`);
    }
  }
  return {
    mode: 'cursor',
    filters: state.f,
    sort: state.s,
    order: state.o,
    page: state.p,
    limit: state.l,
    snapshotSeq: state.n,
    after: state.a,
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
    ['timestamp', 'date_added', 'ip', 'port'].includes(state.s) &&
    ['asc', 'desc'].includes(state.o) &&
    Number.isInteger(state.l) &&
    state.l >= 1 &&
    state.l <= CURSOR_LIMIT_MAX &&
    Number.isInteger(state.n) &&
    Number.isInteger(state.p) &&
    state.p >= 1 &&
    (state.a === undefined ||
      (Array.isArray(state.a.key) &&
        state.a.key.every((k) => typeof k === 'number' || (typeof k === 'string' && /^\d+$/.test(k))) &&
        Number.isInteger(state.a.id)))
  );
}
