import { describe, expect, it } from 'vitest';
import { parseDateMath } from './date-math.js';

const NOW = Date.UTC(2024, 4, 15, 13, 45, 30, 250); // Wednesday 2024-05-15T13:45:30.250Z
const DAY = 86_400_000;

describe('parseDateMath', () => {
  it.each([
    ['now', NOW],
    ['now-30d', NOW - 30 * DAY],
    ['now-12h', NOW - 12 * 3_600_000],
    ['now-1w', NOW - 7 * DAY],
    ['now-15m', NOW - 15 * 60_000],
    ['now-10s', NOW - 10_000],
    ['now+1d', NOW + DAY],
    ['now-1w+2d', NOW - 5 * DAY],
    ['now-1M', Date.UTC(2024, 3, 15, 13, 45, 30, 250)],
    ['now-1y', Date.UTC(2023, 4, 15, 13, 45, 30, 250)],
    ['now/d', Date.UTC(2024, 4, 15)],
    ['now-1d/d', Date.UTC(2024, 4, 14)],
    ['now/w', Date.UTC(2024, 4, 13)],
    ['now/M', Date.UTC(2024, 4, 1)],
    ['now/y', Date.UTC(2024, 0, 1)],
    ['now/h', Date.UTC(2024, 4, 15, 13)],
    ['2024-05-01', Date.UTC(2024, 4, 1)],
    ['2024-05-01T10:00:00Z', Date.UTC(2024, 4, 1, 10)],
    ['2024-05-01T10:00:00.5+02:00', Date.UTC(2024, 4, 1, 8, 0, 0, 500)],
    [' now-1d ', NOW - DAY],
  ])('%s', (text, expected) => {
    expect(parseDateMath(text, NOW)).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    'now-',
    'now-1x',
    'now-d',
    '2024-13-01',
    '2024-02-30',
    '2024-05-01T10:00:00',
    'now/q',
    '1715780730',
  ])('rejects %j', (text) => {
    expect(() => parseDateMath(text, NOW)).toThrow(/RFC 3339|date math/);
  });
});
