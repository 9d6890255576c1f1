/**
 * The `version` filter's rule for one affected entry: the CVE 5 status algorithm must answer
 * `affected` with an exact comparison. `unknown`, and answers that rest on a guessed order
 * (`custom` version types, free-text ranges, git commit ranges), do not match.
 */
import { affectedStatus } from '../version/cve5-affected.js';
import type { MatchEntry } from './facts.js';

export function isAffected(version: string, entry: MatchEntry): boolean {
  if (!entry.versions && entry.defaultStatus === undefined) return false;
  const result = affectedStatus(version, { versions: entry.versions, defaultStatus: entry.defaultStatus });
  return result.status === 'affected' && result.confidence === 'exact';
}
