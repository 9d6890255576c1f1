/**
 * The guard of loads that replace stored data (an advisory feed, a classification list): a load
 * that yields no valid item, or rejects more than a share of its input, is refused, so a wrong,
 * empty or corrupt file cannot silently destroy what is stored. Both limits are overridable on
 * purpose (`--allow-empty`, `--max-rejected N%`).
 */
import { invalidInput, VulnscopeError } from './errors.js';

/** The share of rejected input a load may have by default: 1 %. */
export const DEFAULT_MAX_REJECTED = 0.01;

export interface LoadGuard {
  /** A load with no valid item goes through (for a replacing load: what is stored is emptied). */
  allowEmpty?: boolean;
  /** The largest share (0–1) of the input items that may be rejected; default DEFAULT_MAX_REJECTED. */
  maxRejected?: number;
}

/** What a load read: items it could use and items it rejected. */
export interface LoadTally {
  accepted: number;
  rejected: number;
}

/** What would let a refused load through: `--allow-empty`, and/or a higher `--max-rejected`. */
export interface LoadOverrides {
  allowEmpty?: true;
  /** The smallest whole percentage that admits the load's share of rejections. */
  maxRejectedPercent?: number;
}

/** A load refused by its guard: nothing was changed. The message says why in one line. */
export class LoadRefused extends VulnscopeError {
  constructor(
    message: string,
    readonly overrides: LoadOverrides,
  ) {
    super(422, 'load_refused', message);
    this.name = 'LoadRefused';
  }
}

/**
 * Why `tally` fails `guard` (e.g. "all 12 records read from x.json were rejected"), or undefined
 * when it passes. `noun` names an item (record, line), `from` the input (paths) when known.
 */
export function guardFailure(
  tally: LoadTally,
  guard: LoadGuard = {},
  words: { noun?: string; from?: string } = {},
): { reason: string; overrides: LoadOverrides } | undefined {
  const noun = words.noun ?? 'record';
  const from = words.from ? ` from ${words.from}` : '';
  const read = tally.accepted + tally.rejected;
  const maxRejected = guard.maxRejected ?? DEFAULT_MAX_REJECTED;
  const share = read === 0 ? 0 : tally.rejected / read;
  const empty = tally.accepted === 0 && !guard.allowEmpty;
  const tooMany = share > maxRejected;
  if (!empty && !tooMany) return undefined;
  const overrides: LoadOverrides = {
    ...(empty ? { allowEmpty: true as const } : {}),
    ...(tooMany ? { maxRejectedPercent: Math.ceil(share * 100) } : {}),
  };
  const count = (n: number) => n.toLocaleString('en-US');
  let reason: string;
  if (read === 0) reason = `nothing was read${from}`;
  else if (read === 1 && tally.accepted === 0) reason = `the one ${noun} read${from} was rejected`;
  else if (tally.accepted === 0) reason = `all ${count(read)} ${noun}s read${from} were rejected`;
  else {
    // As many digits as it takes to tell the share from the limit (1.04% is more than 1%).
    let digits = 2;
    while (digits < 6 && formatShare(share, digits) === formatShare(maxRejected, digits)) digits++;
    reason = `${count(tally.rejected)} of ${count(read)} ${noun}s read${from} ${tally.rejected === 1 ? 'was' : 'were'} rejected (${formatShare(share, digits)}, more than the ${formatShare(maxRejected)} allowed)`;
  }
  return { reason, overrides };
}

/** `1 entry`, `1,404 entries`. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? singular : plural}`;
}

/** `0.01` → `1%`, `0.0125` → `1.3%` (`digits` significant digits), `1` → `100%`. */
export function formatShare(share: number, digits = 2): string {
  const percent = share * 100;
  return `${percent === 0 ? 0 : Number(percent.toPrecision(Math.max(digits, Math.ceil(Math.log10(percent + 1)))))}%`;
}

/** `--max-rejected` values: `5%`, `0.5%` or `5` (percent), 0–100. */
export function parseMaxRejected(text: string, source = '--max-rejected'): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const percent = match ? Number(match[1]) : NaN;
  if (!match || !(percent >= 0 && percent <= 100)) {
    throw invalidInput(`${source}: expected a percentage from 0% to 100% (e.g. 5%), got "${text}"`);
  }
  return percent / 100;
}
