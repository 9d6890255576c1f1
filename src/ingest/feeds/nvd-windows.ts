/**
 * Date windows for the NVD APIs' date filters: NVD rejects a `lastModStartDate`/`lastModEndDate`
 * (or `pubStartDate`/`pubEndDate`) range longer than 120 consecutive days, so a longer span is
 * asked for as consecutive windows of at most 120 days. NVD's ranges include both ends; a record
 * modified exactly at a boundary is read twice, which a merge load counts as unchanged.
 */

export const DAY_MS = 86_400_000;
export const MAX_WINDOW_DAYS = 120;

export interface DateWindow {
  /** Epoch milliseconds. */
  start: number;
  end: number;
}

/** Consecutive windows covering [from, to], each at most `maxDays` long; none when `to <= from`. */
export function dateWindows(from: number, to: number, maxDays = MAX_WINDOW_DAYS): DateWindow[] {
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw new RangeError('dateWindows needs finite times');
  const span = maxDays * DAY_MS;
  const windows: DateWindow[] = [];
  for (let start = from; start < to; start += span) windows.push({ start, end: Math.min(start + span, to) });
  return windows;
}

/** The extended ISO-8601 form NVD accepts: `2024-01-31T12:00:00.000Z`. */
export const nvdDate = (time: number) => new Date(time).toISOString();

/** The query parameters of a last-modified window. */
export const lastModifiedParams = (window: DateWindow): Record<string, string> => ({
  lastModStartDate: nvdDate(window.start),
  lastModEndDate: nvdDate(window.end),
});
