/**
 * The shapes of vulnerability applicability (reference-matching.md §2.4, §2.5): what a source says
 * about where a CVE applies, and the evidence an evaluation against a set of CPEs produces.
 */
import type { CpeAttribute, Wfn } from '../cpe.js';
import type { Cve5Product } from '../version/cve5-affected.js';
import type { VersionRange } from '../version/range.js';

/** Who published the statement: NVD's analysis, the CVE record's CNA, or an ADP container. */
export type ApplicabilitySource = 'nvd' | 'cna' | 'adp';

/** One `cpeMatch` of an NVD configuration or of CVE 5 `cpeApplicability`. */
export interface CpeMatchCriterion {
  vulnerable: boolean;
  /** The CPE 2.3 match string as published. */
  criteria: string;
  matchCriteriaId?: string;
  /** Only the bounds that are present. */
  range?: VersionRange;
}

export interface ConfigurationNode {
  operator: 'AND' | 'OR';
  negate: boolean;
  cpeMatch: CpeMatchCriterion[];
  /**
   * Criteria strings that do not parse. They are kept out of `cpeMatch`, but an AND node (or a
   * negated one) that had any can never be satisfied: dropping them would make it easier to satisfy.
   */
  invalidCriteria?: string[];
}

export interface Configuration {
  /** Absent: the single node's value. */
  operator?: 'AND' | 'OR';
  negate: boolean;
  nodes: ConfigurationNode[];
}

/** A CVE 5 `affected[]` product that names CPEs; its `versions` decide by the status algorithm. */
export interface AffectedCpes extends Cve5Product {
  cpes: string[];
  vendor?: string;
  product?: string;
  /** CVE 5 `platforms`: when present, only these platforms are affected, which a CPE cannot show. */
  platforms?: string[];
}

/** Everything one source says about where a CVE applies. */
export interface ApplicabilityStatement {
  source: ApplicabilitySource;
  /** The provider's short name (e.g. `CISA-ADP`), when known. */
  provider?: string;
  configurations: Configuration[];
  affected: AffectedCpes[];
}

/**
 * A CVE's applicability as knowledge keeps it: NVD's configurations when the `nist-nvd2` feed has
 * them, otherwise the CVE 5 record's statements (CNA first, then each ADP).
 */
export interface CveApplicability {
  cveId: string;
  origin: 'nist-nvd2' | 'mitre-cvelist-v5';
  statements: ApplicabilityStatement[];
}

/**
 * How a criterion relates to a concrete name's version:
 * - `exact_version`: the criterion names this version;
 * - `version_range`: the version lies inside the criterion's bounds (or the CVE 5 status algorithm says affected);
 * - `all_versions`: the criterion's version is ANY with no bounds;
 * - `version_unknown`: the name has no concrete version, so the criterion may or may not apply;
 * - `uncomparable`: a bound or the version could not be ordered;
 * - `version_family`: the name's version is the start of a family (`4` for 4.x) that a bound cuts.
 */
export type EvidenceKind =
  | 'exact_version'
  | 'version_range'
  | 'all_versions'
  | 'version_unknown'
  | 'uncomparable'
  | 'version_family';

export type MatchConfidence = 'high' | 'medium' | 'low';

/** One input CPE of the evaluation context: the fingerprint's CPEs and the host's OS CPEs. */
export interface ContextCpe {
  /** The CPE as the record carries it (2.3 formatted). */
  cpe: string;
  wfn: Wfn;
  role: 'fingerprint' | 'os';
  /** Set when this name was reached by following a deprecation / rename of `cpe`: the name used. */
  alias?: string;
}

/** Why a CVE is (or may be) on a record; `confirmed` ones feed `cve` / `contains_cve`. */
export interface CveEvidence {
  cve: string;
  /** The record's CPE that matched. */
  cpe: string;
  /** The name the criterion matched when `cpe` was followed through a rename. */
  alias?: string;
  /** The matched criterion (CPE match string, or the CVE 5 affected entry's CPE). */
  criterion: string;
  /** The bounds that decided, as readable text (`>= 2.4.0, < 2.4.50`), when there were any. */
  range?: string;
  kind: EvidenceKind;
  source: ApplicabilitySource;
  /** The record's CPE is the vulnerable element (not only a platform). */
  vulnerable: boolean;
  /** `conditional`: an AND configuration needs something the context did not show. */
  configuration: 'satisfied' | 'conditional';
  confidence: MatchConfidence;
  confirmed: boolean;
  /**
   * What the criterion constrains that the record's CPE left open (ANY), so the match is only
   * possible: e.g. `sw_edition` for a `…:*:*:*:-:…` criterion against a name with sw_edition ANY,
   * or `platforms` for a CVE 5 entry limited to some platforms.
   */
  unknownAttributes?: UnknownAttribute[];
}

export type UnknownAttribute = CpeAttribute | 'platforms';

/**
 * One row of the criteria index (see index-keys.ts for the lookup contract). Attribute values are
 * unquoted and lower-cased; `*` when the criterion's value is ANY or a wildcard pattern.
 */
export interface IndexedCriterion {
  part: string;
  vendor: string;
  product: string;
  vulnerable: boolean;
  source: ApplicabilitySource;
  /** The cpeMatch criteria string, or the CVE 5 affected entry's CPE. */
  criterion: string;
  /** versionSortKey of the criterion's concrete version (a second row carries its folded update, if any). */
  exactKey?: string;
  /** Lower bound; absent: none. */
  startKey?: string;
  startInclusive?: boolean;
  /** Upper bound; absent: none. */
  endKey?: string;
  endInclusive?: boolean;
  /** Every version (version ANY, no bounds). */
  unbounded?: boolean;
  /** The version part cannot be expressed as keys: return the row whatever the version. */
  alwaysCheck?: boolean;
}
