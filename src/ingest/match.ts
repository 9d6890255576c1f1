import type { Fingerprint, Observation } from '../core/observation.js';

/**
 * The pipeline stage that maps a record's fingerprints to CVEs. Knowledge-based matching plugs
 * in here; until then a record's CVEs are those its scanner reported.
 */
export interface CveMatcher {
  match(observation: Observation, fingerprints: Fingerprint[]): string[];
}

export const scannerReportedOnly: CveMatcher = {
  match: () => [],
};
