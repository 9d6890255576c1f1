import { describe, expect, it } from 'vitest';
import { epochSecondsTextToMs, parseTimestamp } from './timestamps.js';

describe('parseTimestamp', () => {
  it.each([
    ['2026-03-15T22:57:45Z', Date.UTC(2026, 2, 15, 22, 57, 45)],
    ['2026-03-15t22:57:45.950793z', Date.UTC(2026, 2, 15, 22, 57, 45, 950)],
    ['2026-03-15 22:57:45.9+00:00', Date.UTC(2026, 2, 15, 22, 57, 45, 900)],
    ['2026-03-16T00:27:45+01:30', Date.UTC(2026, 2, 15, 22, 57, 45)],
    ['2026-03-15T17:57:45-0500', Date.UTC(2026, 2, 15, 22, 57, 45)],
    ['2016-12-31T23:59:60Z', Date.UTC(2016, 11, 31, 23, 59, 59)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    [1700000000, 1700000000_000],
    [1700000000.5, 1700000000_500],
    [1700000000123, 1700000000123],
  ])('%s', (input, expected) => {
    expect(parseTimestamp(input)).toBe(expected);
  });

  it('treats a zone-less time as UTC only when asked (Shodan)', () => {
    expect(parseTimestamp('2026-03-15T22:57:45.950793', { zonelessIsUtc: true })).toBe(
      Date.UTC(2026, 2, 15, 22, 57, 45, 950),
    );
    expect(() => parseTimestamp('2026-03-15T22:57:45.950793')).toThrow(/time zone offset .* is required/);
  });

  it.each([
    [undefined, 'missing timestamp'],
    ['', 'missing timestamp'],
    ['2023-02-29T00:00:00Z', 'no such date'],
    ['2023-01-01T24:00:00Z', 'no such time of day'],
    ['2023-01-01', 'expected an RFC 3339 date-time'],
    ['1700000000', 'expected an RFC 3339 date-time'],
    ['1969-12-31T23:59:59Z', 'before 1970'],
    [0, 'expected a positive epoch time'],
    [-5, 'expected a positive epoch time'],
    [Number.NaN, 'expected a positive epoch time'],
    [true, 'expected an RFC 3339 string or epoch number'],
  ])('rejects %s', (input, reason) => {
    expect(() => parseTimestamp(input)).toThrow(reason);
  });
});

describe('epochSecondsTextToMs', () => {
  it('reads scanner epoch seconds', () => {
    expect(epochSecondsTextToMs('1361738385')).toBe(1361738385_000);
    expect(epochSecondsTextToMs(' 1700000000.25 ')).toBe(1700000000_250);
    expect(epochSecondsTextToMs(1700000000)).toBe(1700000000_000);
    expect(() => epochSecondsTextToMs('0')).toThrow(/positive/);
    expect(() => epochSecondsTextToMs('abc')).toThrow(/expected epoch seconds/);
    expect(() => epochSecondsTextToMs(undefined)).toThrow('missing timestamp');
  });
});
