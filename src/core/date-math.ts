/**
 * Points in time as the v4 API accepts them: an RFC 3339 date-time, a day (`YYYY-MM-DD`, midnight
 * UTC), or Elasticsearch-style date math relative to now — `now`, `now-30d`, `now-12h`,
 * `now-1w+2d`, and an optional rounding suffix `/d` (`now-1d/d` = start of yesterday, UTC).
 * Units: `s`, `m` (minutes), `h`, `d`, `w`, `M` (months), `y`.
 */
import { invalidInput } from './errors.js';

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/;
const MATH = /^now((?:[+-]\d+[smhdwMy])*)(?:\/([smhdwMy]))?$/;
const STEP = /([+-])(\d+)([smhdwMy])/g;

const FIXED_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

function addUnits(time: number, amount: number, unit: string): number {
  if (unit in FIXED_MS) return time + amount * FIXED_MS[unit]!;
  const date = new Date(time);
  if (unit === 'M') date.setUTCMonth(date.getUTCMonth() + amount);
  else date.setUTCFullYear(date.getUTCFullYear() + amount);
  return date.getTime();
}

/** Start of the unit containing `time`, in UTC (weeks start on Monday, as in Elasticsearch). */
function roundDown(time: number, unit: string): number {
  const d = new Date(time);
  switch (unit) {
    case 's':
      return Math.floor(time / 1000) * 1000;
    case 'm':
      return Math.floor(time / 60_000) * 60_000;
    case 'h':
      return Math.floor(time / 3_600_000) * 3_600_000;
    case 'd':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case 'w': {
      const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      return day - ((d.getUTCDay() + 6) % 7) * 86_400_000;
    }
    case 'M':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    default:
      return Date.UTC(d.getUTCFullYear(), 0, 1);
  }
}

/** Epoch milliseconds of `text`; throws invalid input with the accepted forms. */
export function parseDateMath(text: string, now = Date.now()): number {
  const value = text.trim();
  const math = MATH.exec(value);
  if (math) {
    let time = now;
    for (const step of math[1]!.matchAll(STEP)) {
      time = addUnits(time, (step[1] === '-' ? -1 : 1) * Number(step[2]), step[3]!);
    }
    return math[2] ? roundDown(time, math[2]) : time;
  }
  const day = DATE_ONLY.exec(value);
  if (day) {
    const time = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    const check = new Date(time);
    if (check.getUTCMonth() === Number(day[2]) - 1 && check.getUTCDate() === Number(day[3])) return time;
  } else if (DATE_TIME.test(value)) {
    const time = Date.parse(value);
    if (!Number.isNaN(time)) return time;
  }
  throw invalidInput(
    `expected an RFC 3339 date-time (2024-05-01T00:00:00Z), a date (2024-05-01) or date math (now, now-30d, now-12h, now-1w/d), got "${text}"`,
  );
}
