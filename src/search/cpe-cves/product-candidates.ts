/**
 * A product's criteria rows held in memory for host matching's candidate lookups: sorted by scan
 * key, so a name's candidates are a binary search plus the index contract's checks
 * (storage `criterionMayMatch`) instead of one SQL statement per name.
 */
import type { NameLookup } from '../../core/applicability/index-keys.js';
import { type CriterionKeys, criterionMayMatch, keysOf, NO_UPPER_LIMIT, scanKeyOf } from '../../storage/index.js';
import { lowerBound } from './sorted-keys.js';

export interface CandidateRow extends CriterionKeys {
  cveId: string;
}

/** Only what lookups read is held (a product's rows stay cached across many names). */
function slim(row: CandidateRow): CandidateRow {
  const out: CandidateRow = { cveId: row.cveId };
  if (row.exactKey !== undefined) out.exactKey = row.exactKey;
  if (row.startKey !== undefined) {
    out.startKey = row.startKey;
    out.startInclusive = row.startInclusive;
  }
  if (row.endKey !== undefined) {
    out.endKey = row.endKey;
    out.endInclusive = row.endInclusive;
  }
  if (row.unbounded) out.unbounded = true;
  if (row.alwaysCheck) out.alwaysCheck = true;
  return out;
}

export class ProductCandidates {
  private constructor(
    /** Ascending. */
    private readonly scanKeys: string[],
    private readonly rows: CandidateRow[],
  ) {}

  static of(rows: readonly CandidateRow[]): ProductCandidates {
    const keyed = rows.map((row) => ({ row: slim(row), scanKey: scanKeyOf(row) }));
    keyed.sort((a, b) => (a.scanKey < b.scanKey ? -1 : a.scanKey > b.scanKey ? 1 : 0));
    return new ProductCandidates(
      keyed.map((entry) => entry.scanKey),
      keyed.map((entry) => entry.row),
    );
  }

  /** Rows held, for the cache's budget. */
  get weight(): number {
    return this.rows.length;
  }

  /** The CVE ids (ascending) with a row that may match the name (storage `candidateCves` for one name). */
  candidatesOf(lookup: NameLookup): string[] {
    const keys = keysOf(lookup);
    const cves = new Set<string>();
    let first = 0;
    if (keys !== undefined) {
      const lowest = keys.raw < keys.folded ? keys.raw : keys.folded;
      // Every candidate's scan key (its highest matchable key) is at least the name's key.
      if (lowest < NO_UPPER_LIMIT) first = lowerBound(this.scanKeys, lowest);
    }
    for (let i = first; i < this.rows.length; i++) {
      const row = this.rows[i]!;
      if (criterionMayMatch(row, keys)) cves.add(row.cveId);
    }
    return [...cves].sort();
  }
}
