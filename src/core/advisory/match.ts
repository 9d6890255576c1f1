/**
 * Evaluates the filters the terms cannot decide on a record's match data: entry filters that
 * must hold for the same affected entry, the affected version, and the CPE.
 */
import { unquoteWfnValue } from '../cpe.js';
import { cpeMatchesRecord, criterionCoversVersion, parseCached } from './cpe-match.js';
import type { MatchCriterion, MatchData, MatchEntry } from './facts.js';
import type { AdvisoryFilters } from './filters.js';
import { normalizeText } from './terms.js';
import { isAffected } from './version-match.js';

function entryIdentityMatches(entry: MatchEntry, filters: AdvisoryFilters): boolean {
  if (filters.vendor !== undefined && entry.vendor !== filters.vendor) return false;
  if (filters.product !== undefined && entry.product !== filters.product) return false;
  if (filters.platform !== undefined && !entry.platforms?.includes(filters.platform)) return false;
  if (filters.packageName !== undefined && entry.packageName !== filters.packageName) return false;
  if (filters.packageKey !== undefined && !entry.packages?.includes(filters.packageKey)) return false;
  return true;
}

/**
 * An applicability criterion (NVD configurations and CVE 5.1 `cpeApplicability`) stands for a
 * product too, named by its CPE vendor and product; platform and package filters cannot apply.
 */
function criterionIdentityMatches(criterion: MatchCriterion, filters: AdvisoryFilters): boolean {
  if (filters.platform !== undefined || filters.packageName !== undefined || filters.packageKey !== undefined)
    return false;
  const wfn = parseCached(criterion.criteria);
  if (!wfn) return false;
  if (filters.vendor !== undefined && normalizeText(unquoteWfnValue(wfn.vendor)) !== filters.vendor) return false;
  if (filters.product !== undefined && normalizeText(unquoteWfnValue(wfn.product)) !== filters.product) return false;
  return true;
}

export function recordMatches(data: MatchData, filters: AdvisoryFilters): boolean {
  const version = filters.version;
  const entryFiltered =
    version !== undefined ||
    filters.vendor !== undefined ||
    filters.product !== undefined ||
    filters.platform !== undefined ||
    filters.packageName !== undefined ||
    filters.packageKey !== undefined;
  if (entryFiltered) {
    const byEntry = data.entries.some(
      (entry) => entryIdentityMatches(entry, filters) && (version === undefined || isAffected(version, entry)),
    );
    const byCriterion =
      !byEntry &&
      data.criteria.some(
        (criterion) =>
          criterionIdentityMatches(criterion, filters) &&
          (version === undefined || criterionCoversVersion(criterion, version)),
      );
    if (!byEntry && !byCriterion) return false;
  }
  return filters.cpe === undefined || cpeMatchesRecord(filters.cpe, data);
}
