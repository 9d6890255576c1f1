/** What a `/v4/advisory` query asks for, after its parameters were validated and normalised. */
import type { Wfn } from '../cpe.js';

export interface AdvisoryFilters {
  /** Upper-case CVE id. */
  cveId?: string;
  /** Normalised with {@link normalizeText} (case-insensitive). */
  vendor?: string;
  product?: string;
  platform?: string;
  /** Lower-case. */
  packageName?: string;
  /** Package key `type:name` of the purl (its version goes to `version`). */
  packageKey?: string;
  /** Affected version: a record matches when an affected entry says `affected` for it. */
  version?: string;
  cpe?: Wfn;
  referenceUrl?: string;
  referenceTag?: string;
  descriptionLang?: string;
  /** Exclusive bounds on the update time (`dateUpdated`, else `datePublished`, else `dateReserved`), epoch ms. */
  updatedAfter?: number;
  updatedBefore?: number;
}

/** Filters that must hold for one and the same affected entry. */
const ENTRY_FILTERS = ['vendor', 'product', 'platform', 'packageName', 'packageKey'] as const;

/**
 * True when the terms alone cannot decide and the record's match data must be evaluated: a
 * version or CPE is asked for, or several entry filters must hold for the same affected entry.
 */
export function needsMatchData(filters: AdvisoryFilters): boolean {
  if (filters.version !== undefined || filters.cpe !== undefined) return true;
  return ENTRY_FILTERS.filter((name) => filters[name] !== undefined).length > 1;
}
