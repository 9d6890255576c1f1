/** The last step of the CVE 5 status algorithm, shared by its scan and its index. */
import type { Confidence } from './comparison.js';

export type Cve5Status = 'affected' | 'unaffected' | 'unknown';

export interface AffectedStatus {
  status: Cve5Status;
  confidence: Confidence;
  reason: string;
}

export const asStatus = (status: string | undefined): Cve5Status =>
  status === 'affected' || status === 'unaffected' ? status : 'unknown';

/** `defaultStatus` when no entry decided: adds it to the possible statuses and says so. */
export function addDefault(possible: Set<Cve5Status>, notes: string[], defaultStatus: string | undefined): void {
  const fallback = asStatus(defaultStatus);
  possible.add(fallback);
  notes.push(
    defaultStatus === undefined
      ? 'no entry matches and there is no defaultStatus → unknown'
      : `no entry matches → defaultStatus ${fallback}`,
  );
}

/** One possible status is the answer; several that disagree make it unknown. */
export function finalStatus(possible: Set<Cve5Status>, confidence: Confidence, notes: string[]): AffectedStatus {
  if (possible.size === 1) {
    const [status] = possible; // the only one
    return { status: status!, confidence, reason: notes.join('; ') };
  }
  return {
    status: 'unknown',
    confidence: 'heuristic',
    reason: `possible statuses ${[...possible].join(', ')} disagree: ${notes.join('; ')}`,
  };
}
