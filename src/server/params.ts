import { badRequest } from '../core/errors.js';

/** Shared parsers for query parameters: each failure is a 400 naming the parameter. */

export function parseBoolean(name: string, value: string): boolean {
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw badRequest(`parameter "${name}" must be true or false, got "${value}"`);
}

export function parseInteger(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) throw badRequest(`parameter "${name}" must be a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw badRequest(`parameter "${name}" must be between ${min} and ${max}, got ${value}`);
  return n;
}

export function parseEnum<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  const lower = value.toLowerCase() as T;
  if (!allowed.includes(lower)) {
    throw badRequest(`parameter "${name}" must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return lower;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/;
const DAY_MS = 86_400_000;

/** A day (YYYY-MM-DD) or an RFC 3339 date-time; returns [start, end) in epoch ms. */
export function parseDateBound(name: string, value: string): { start: number; end: number } {
  const day = DATE_ONLY.exec(value);
  if (day) {
    const start = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    const check = new Date(start);
    if (check.getUTCMonth() !== Number(day[2]) - 1 || check.getUTCDate() !== Number(day[3])) {
      throw badRequest(`parameter "${name}" is not a real date: "${value}"`);
    }
    return { start, end: start + DAY_MS };
  }
  if (DATE_TIME.test(value)) {
    const t = Date.parse(value.replace(' ', 'T'));
    if (!Number.isNaN(t)) return { start: t, end: t + 1 };
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
