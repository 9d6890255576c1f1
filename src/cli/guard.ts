/** `--allow-empty` / `--max-rejected N%`: the options of the load guard (core/load-guard.ts) on every guarded command. */
import type { LoadGuard } from '../core/load-guard.js';

export interface GuardOptions {
  /** Let a load with no valid item through (replacing: empty what it replaces). */
  allowEmpty?: boolean;
  /** The share (0–1) of rejected input a load may have (default 1 %). */
  maxRejected?: number;
}

export function loadGuardOf(options: GuardOptions): LoadGuard {
  return {
    ...(options.allowEmpty ? { allowEmpty: true } : {}),
    ...(options.maxRejected !== undefined ? { maxRejected: options.maxRejected } : {}),
  };
}
