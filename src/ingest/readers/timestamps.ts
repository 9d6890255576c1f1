import { invalidInput } from '../../core/errors.js';

/** Numbers below this are epoch seconds, at or above it epoch milliseconds (1e11 s is year 5138). */
const SECONDS_LIMIT = 1e11;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:?\d{2})?$/;

export interface TimestampOptions {
  /** Shodan writes UTC times without a zone; our own format requires one. */
  zonelessIsUtc?: boolean;
}

/**
 * An observation time as epoch milliseconds: an RFC 3339 string, or a number of epoch seconds
 * (below 1e11) or milliseconds. Throws invalid input naming the value.
 */
export function parseTimestamp(value: unknown, options: TimestampOptions = {}): number {
  if (value === undefined || value === null || value === '') throw invalidInput('missing timestamp');
  if (typeof value === 'number') return epochToMs(value);
  if (typeof value === 'string') return parseRfc3339(value.trim(), options);
  throw invalidInput(`bad timestamp ${JSON.stringify(value)}: expected an RFC 3339 string or epoch number`);
}

export function epochToMs(value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw invalidInput(`bad timestamp ${value}: expected a positive epoch time`);
  }
  return Math.round(value < SECONDS_LIMIT ? value * 1000 : value);
}

/** Scanner epoch-seconds text such as nmap's `starttime="1361738385"` or masscan's `"1700000000"`. */
export function epochSecondsTextToMs(text: unknown): number {
  const value = typeof text === 'number' ? text : typeof text === 'string' ? text.trim() : '';
  if (typeof value === 'string' && !/^\d+(\.\d+)?$/.test(value)) {
    throw invalidInput(value === '' ? 'missing timestamp' : `bad timestamp "${value}": expected epoch seconds`);
  }
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw invalidInput(`bad timestamp "${String(value)}": expected positive epoch seconds`);
  }
  return Math.round(seconds * 1000);
}

function parseRfc3339(text: string, options: TimestampOptions): number {
  const match = RFC3339.exec(text);
  const bad = (why: string) => invalidInput(`bad timestamp "${text}": ${why}`);
  if (!match) throw bad('expected an RFC 3339 date-time such as 2026-03-15T22:57:45Z');
  const [, year, month, day, hour, minute, second, fraction = '', zone] = match;
  if (!zone && !options.zonelessIsUtc) throw bad('a time zone offset (Z or ±hh:mm) is required');
  // The six date and time groups always take part in a match.
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  if (y < 1970) throw bad('before 1970');
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) throw bad('no such date');
  // 60 is a leap second; epoch time has no room for it, so it counts as the last second.
  if (h > 23 || mi > 59 || s > 60) throw bad('no such time of day');
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const local = Date.UTC(y, mo - 1, d, h, mi, Math.min(s, 59), millis);
  const ms = local - zoneOffsetMs(zone);
  if (ms <= 0) throw bad('before 1970');
  return ms;
}

function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) throw invalidInput(`bad timestamp: offset "${zone}" out of range`);
  return sign * (hours * 60 + minutes) * 60_000;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
