/**
 * Sealed cursors: the one implementation behind every endpoint that pages by cursor
 * (`/v3/index/ipintel` and its siblings, `/v4/advisory`).
 *
 * A cursor is `base64url(JSON state).signature` (`sealJson`, HMAC with the server secret): opaque
 * to clients, tamper-evident to us. Its state always carries the walk's filters (`f`), its limit
 * (`l`) and the number of the page it fetches (`p`), so a walk continues with the cursor alone;
 * each endpoint adds what its own walk needs (sort, snapshot, position of the last record served)
 * and builds its state itself, so the JSON it seals is exactly what it always was and cursors
 * already issued still open.
 */
import { badRequest } from '../../core/errors.js';
import { openJson, sealJson } from '../../core/signing.js';

/** What every endpoint's cursor state carries (format version 1). */
export interface CursorState {
  v: 1;
  /** The walk's filter parameters, as given when it started (only non-empty ones). */
  f: Record<string, string>;
  /** Records per page. */
  l: number;
  /** Page number of the page this cursor fetches. */
  p: number;
}

/** The parameters that choose how a request pages. */
export interface PagingParameters {
  page?: number;
  cursor?: string;
  start_cursor?: unknown;
}

/**
 * How a request pages: by page number, starting a cursor walk (`start_cursor` given, whatever its
 * value) or continuing one (`cursor` non-empty). `page` with either cursor parameter is a 400.
 */
export function pagingMode(raw: PagingParameters): 'page' | 'start' | 'continue' {
  const hasCursor = raw.cursor !== undefined && raw.cursor !== '';
  const startsCursor = raw.start_cursor !== undefined;
  if (raw.page !== undefined && (hasCursor || startsCursor)) {
    throw badRequest(`parameter "page" cannot be combined with "${hasCursor ? 'cursor' : 'start_cursor'}"`);
  }
  return hasCursor ? 'continue' : startsCursor ? 'start' : 'page';
}

export function sealCursor<S extends CursorState>(secret: string, state: S): string {
  return sealJson(secret, state);
}

/** What an endpoint accepts in its cursors beyond the common fields. */
export interface CursorShape<S extends CursorState> {
  /** The largest limit a walk of this endpoint may have. */
  maxLimit: number;
  /** The smallest page number a cursor of this endpoint may carry. */
  minPage: number;
  /** Whether the endpoint's own fields are well-formed (the common ones are already checked). */
  hasOwnFields(state: CursorState): state is S;
}

/** The state sealed in `cursor`; a 400 when it was not sealed with `secret` or is not of `shape`. */
export function openCursor<S extends CursorState>(secret: string, cursor: string, shape: CursorShape<S>): S {
  const state = openJson(secret, cursor);
  if (!isCursorState(state, shape) || !shape.hasOwnFields(state)) {
    throw badRequest('parameter "cursor" is malformed or has been tampered with');
  }
  return state;
}

/** A parameter a cursor fixes: its value in this request (if any), and the cursor's. */
export type RepeatedParameter = readonly [name: string, given: string | number | undefined, cursors: string | number];

/**
 * A client may repeat a walk's parameters alongside its cursor; it may not change them mid-walk
 * (a 400 naming the first that differs). `filters` are this request's non-empty filter
 * parameters, each of which must equal the cursor's; `repeated` are the other parameters the
 * cursor fixes (limit, sort, …), checked only when given.
 */
export function requireSameWalk(
  state: CursorState,
  filters: Readonly<Record<string, string>>,
  repeated: readonly RepeatedParameter[] = [],
): void {
  for (const [name, value] of Object.entries(filters)) {
    if (state.f[name] !== value) throw differsFromCursor(name);
  }
  for (const [name, given, cursors] of repeated) {
    if (given !== undefined && given !== cursors) throw differsFromCursor(name);
  }
}

const differsFromCursor = (name: string) =>
  badRequest(`parameter "${name}" differs from the cursor's; start a new walk`);

function isCursorState(value: unknown, shape: { maxLimit: number; minPage: number }): value is CursorState {
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
    state.l <= shape.maxLimit &&
    Number.isInteger(state.p) &&
    state.p >= shape.minPage
  );
}
