/**
 * Request budgets: N requests per window, per token and endpoint group. Written as
 * `600/60s` (every group), `index=1200/1m,backup=10/1h` (per group, the rest keep the default),
 * or `unlimited`; items combine with commas and later items win.
 */
import { invalidInput } from './errors.js';

export const RATE_GROUPS = ['index', 'advisory', 'backup', 'search', 'other'] as const;
export type RateGroup = (typeof RATE_GROUPS)[number];

export interface Budget {
  limit: number;
  windowMs: number;
}
/** `undefined`: no limit for that group. */
export type RateLimits = Record<RateGroup, Budget | undefined>;

export const DEFAULT_RATE_LIMIT = '600/60s';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const BUDGET = /^(\d+)\/(\d*)(ms|s|m|h)$/;

function parseBudget(text: string, source: string): Budget | undefined {
  if (text === 'unlimited') return undefined;
  const match = BUDGET.exec(text);
  const limit = match ? Number(match[1]) : NaN;
  const windowMs = match ? Number(match[2] || '1') * UNIT_MS[match[3]!]! : NaN;
  if (!match || limit < 1 || !Number.isSafeInteger(limit) || windowMs < 1 || windowMs > 86_400_000) {
    throw invalidInput(
      `${source}: expected REQUESTS/WINDOW (e.g. 600/60s, 100/1m, 10/h; window at most 24h) or "unlimited", got "${text}"`,
    );
  }
  return { limit, windowMs };
}

export function parseRateLimits(text: string, source = 'VULNSCOPE_RATE_LIMIT'): RateLimits {
  const limits = Object.fromEntries(RATE_GROUPS.map((g) => [g, parseBudget(DEFAULT_RATE_LIMIT, source)])) as RateLimits;
  for (const item of text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const eq = item.indexOf('=');
    const budget = parseBudget((eq >= 0 ? item.slice(eq + 1) : item).trim().toLowerCase(), source);
    if (eq < 0) {
      for (const group of RATE_GROUPS) limits[group] = budget;
      continue;
    }
    const group = item.slice(0, eq).trim().toLowerCase() as RateGroup;
    if (!RATE_GROUPS.includes(group)) {
      throw invalidInput(`${source}: unknown endpoint group "${group}" (groups: ${RATE_GROUPS.join(', ')})`);
    }
    limits[group] = budget;
  }
  return limits;
}

/** A token's own budget: requests per window of each group, or unlimited. */
export type TokenRateLimit = number | 'unlimited';

export function parseTokenRateLimit(text: string, source = '--rate-limit'): TokenRateLimit {
  const value = text.trim().toLowerCase();
  if (value === 'unlimited') return 'unlimited';
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw invalidInput(
      `${source}: expected a positive whole number of requests per window, or "unlimited", got "${text}"`,
    );
  }
  return Number(value);
}

/** The budget a token gets in a group: its own limit over the group's window, or the default. */
export function budgetFor(limits: RateLimits, group: RateGroup, own: TokenRateLimit | undefined): Budget | undefined {
  if (own === 'unlimited') return undefined;
  const base = limits[group];
  if (own === undefined) return base;
  return { limit: own, windowMs: base?.windowMs ?? 60_000 };
}

/** A window in words: `500 ms`, `60 s`, `5 min`, `1 h`. */
export function formatWindow(windowMs: number): string {
  if (windowMs % 1000 !== 0) return `${windowMs} ms`;
  const seconds = windowMs / 1000;
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 120 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** A budget in words: `600 requests per 60 s`, or `unlimited`. */
export function describeBudget(budget: Budget | undefined): string {
  if (!budget) return 'unlimited';
  return `${budget.limit.toLocaleString('en-US')} request${budget.limit === 1 ? '' : 's'} per ${formatWindow(budget.windowMs)}`;
}

export function formatBudget(budget: Budget | undefined): string {
  if (!budget) return 'unlimited';
  const seconds = budget.windowMs / 1000;
  return `${budget.limit}/${Number.isInteger(seconds) ? `${seconds}s` : `${budget.windowMs}ms`}`;
}
