import { describe, expect, it } from 'vitest';
import { sealJson } from '../../core/signing.js';
import {
  type CursorShape,
  type CursorState,
  openCursor,
  pagingMode,
  requireSameWalk,
  sealCursor,
} from './sealed-cursor.js';

interface TestState extends CursorState {
  a: string;
}
const SHAPE: CursorShape<TestState> = {
  maxLimit: 100,
  minPage: 2,
  hasOwnFields: (state): state is TestState => typeof (state as TestState).a === 'string',
};
const SECRET = 'secret';
const state: TestState = { v: 1, f: { name: 'x' }, l: 10, p: 2, a: 'last' };

describe('sealed cursors', () => {
  it('seals exactly what sealJson sealed, so cursors already issued still open', () => {
    const cursor = sealCursor(SECRET, state);
    expect(cursor).toBe(sealJson(SECRET, state));
    expect(openCursor(SECRET, cursor, SHAPE)).toEqual(state);
  });

  it.each([
    ['another secret', sealCursor('other', state)],
    ['no signature', sealCursor(SECRET, state).split('.')[0]!],
    ['not JSON', `${Buffer.from('{').toString('base64url')}.x`],
    ['another version', sealCursor(SECRET, { ...state, v: 2 as 1 })],
    ['a limit above the endpoint maximum', sealCursor(SECRET, { ...state, l: 101 })],
    ['a page below the endpoint minimum', sealCursor(SECRET, { ...state, p: 1 })],
    ['a filter that is not a string', sealCursor(SECRET, { ...state, f: { name: 1 as unknown as string } })],
    ['the endpoint fields missing', sealCursor(SECRET, { v: 1, f: {}, l: 10, p: 2 })],
  ])('rejects a cursor with %s', (_, cursor) => {
    expect(() => openCursor(SECRET, cursor, SHAPE)).toThrow(
      /parameter "cursor" is malformed or has been tampered with/,
    );
  });

  it('decides the paging mode; page with a cursor parameter is a 400', () => {
    expect(pagingMode({})).toBe('page');
    expect(pagingMode({ page: 2, cursor: '' })).toBe('page');
    expect(pagingMode({ start_cursor: '' })).toBe('start');
    expect(pagingMode({ cursor: 'c', start_cursor: 'true' })).toBe('continue');
    expect(() => pagingMode({ page: 1, cursor: 'c' })).toThrow(/"page" cannot be combined with "cursor"/);
    expect(() => pagingMode({ page: 1, start_cursor: '' })).toThrow(/"page" cannot be combined with "start_cursor"/);
  });

  it('allows repeating the walk parameters and rejects changing them', () => {
    expect(() => requireSameWalk(state, { name: 'x' }, [['limit', undefined, state.l]])).not.toThrow();
    expect(() => requireSameWalk(state, {}, [['limit', state.l, state.l]])).not.toThrow();
    expect(() => requireSameWalk(state, { name: 'y' })).toThrow(/parameter "name" differs from the cursor's/);
    expect(() => requireSameWalk(state, { other: 'x' })).toThrow(/parameter "other" differs from the cursor's/);
    expect(() => requireSameWalk(state, {}, [['limit', 11, state.l]])).toThrow(
      /parameter "limit" differs from the cursor's; start a new walk/,
    );
  });
});
