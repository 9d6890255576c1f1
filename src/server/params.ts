import { badRequest } from '../core/errors.js';

/** Shared parsers for query parameters: each failure is a 400 naming the parameter. */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|([+-])(\d{2}):?(\d{2}))$/;
const DAY_MS = 86_400_000;

/** Epoch ms of a calendar date, or undefined when the date does not exist (2025-02-30). */
function utcDay(year: number, month: number, day: number): number | undefined {
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real ? date.getTime() : undefined;
}

/** A day (YYYY-MM-DD) or an RFC 3339 date-time; returns [start, end) in epoch ms. */
export function parseDateBound(name: string, value: string): { start: number; end: number } {
  const day = DATE_ONLY.exec(value);
  if (day) {
    const start = utcDay(Number(day[1]), Number(day[2]), Number(day[3]));
    if (start === undefined) throw badRequest(`parameter "${name}" is not a real date: "${value}"`);
    return { start, end: start + DAY_MS };
  }
  const time = DATE_TIME.exec(value);
  if (time) {
    const [, y, mo, d, h, mi, sec = '0', fraction = '', zone, sign, zh = '0', zm = '0'] = time;
    const dayStart = utcDay(Number(y), Number(mo), Number(d));
    const valid =
      dayStart !== undefined &&
      Number(h) < 24 &&
      Number(mi) < 60 &&
      Number(sec) < 60 &&
      Number(zh) < 24 &&
      Number(zm) < 60;
    if (!valid) throw badRequest(`parameter "${name}" is not a real date-time: "${value}"`);
    const offsetMinutes = zone!.toUpperCase() === 'Z' ? 0 : (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm));
    const ms = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
    const t = dayStart + ((Number(h) * 60 + Number(mi) - offsetMinutes) * 60 + Number(sec)) * 1000 + ms;
    return { start: t, end: t + 1 };
  }
  throw badRequest(`parameter "${name}" must be a date (YYYY-MM-DD) or an RFC 3339 date-time, got "${value}"`);
}

export function parseDay(name: string, value: string): { start: number; end: number } {
  if (!DATE_ONLY.test(value)) throw badRequest(`parameter "${name}" must be a date (YYYY-MM-DD), got "${value}"`);
  return parseDateBound(name, value);
}

/** Comma-separated values, trimmed, empties dropped. */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}
