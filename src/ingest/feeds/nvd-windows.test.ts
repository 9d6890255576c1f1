import { describe, expect, it } from 'vitest';
import { DAY_MS, dateWindows, lastModifiedParams } from './nvd-windows.js';

const t = (iso: string) => Date.parse(iso);

describe('dateWindows', () => {
  it('splits a long span into consecutive windows of at most 120 days', () => {
    const from = t('2024-01-01T00:00:00Z');
    const to = t('2024-12-31T12:00:00Z');
    const windows = dateWindows(from, to);
    expect(windows.length).toBe(4);
    expect(windows[0]).toEqual({ start: from, end: from + 120 * DAY_MS });
    for (let i = 1; i < windows.length; i++) expect(windows[i]!.start).toBe(windows[i - 1]!.end);
    expect(windows.at(-1)!.end).toBe(to);
    for (const w of windows) expect(w.end - w.start).toBeLessThanOrEqual(120 * DAY_MS);
  });

  it.each([
    ['exactly 120 days', 120 * DAY_MS, 1],
    ['one millisecond more', 120 * DAY_MS + 1, 2],
    ['one hour', 3_600_000, 1],
    ['nothing', 0, 0],
    ['a negative span', -5, 0],
  ])('%s → %i window(s)', (_name, span, count) => {
    expect(dateWindows(1_000, 1_000 + span).length).toBe(count);
  });

  it('honours another maximum', () => {
    expect(dateWindows(0, 10 * DAY_MS, 3).map((w) => (w.end - w.start) / DAY_MS)).toEqual([3, 3, 3, 1]);
  });

  it('formats the window as NVD expects (extended ISO-8601, UTC)', () => {
    expect(lastModifiedParams({ start: t('2024-03-01T10:00:00Z'), end: t('2024-03-02T10:00:00.5Z') })).toEqual({
      lastModStartDate: '2024-03-01T10:00:00.000Z',
      lastModEndDate: '2024-03-02T10:00:00.500Z',
    });
  });
});
