/** The shapes knowledge storage reads and writes. */
import type { CveApplicability, IndexedCriterion } from '../../core/applicability/types.js';

export type KnowledgeOrigin = CveApplicability['origin'];

/** The advisory feeds knowledge is derived from, in order of preference. */
export const KNOWLEDGE_FEEDS = ['nist-nvd2', 'mitre-cvelist-v5'] as const satisfies readonly KnowledgeOrigin[];

/**
 * One criterion as the index stores it (the rows `indexedCriteria(app)` of core/applicability
 * produces). part, vendor and product are unquoted lower-case values, or `*` for ANY. Keys are
 * `versionSortKey()` strings (byte-ordered).
 */
export type IndexedCriterionRow = IndexedCriterion;

/** A stored criterion, with the CVE it belongs to. */
export interface StoredCriterion extends IndexedCriterionRow {
  cveId: string;
}

/**
 * A name as the criteria index looks it up (core/applicability `nameLookupOf`): unquoted
 * lower-case part, vendor and product, and version keys. `rawKey` is the version alone,
 * `foldedKey` the version with a patch-like update folded in (openssh 7.4 + p1 → 7.4p1): exact
 * rows match either, bounds compare the folded one. A name lacking either key gets every
 * criterion of its product. `versionKey` is shorthand for both keys being equal.
 */
export interface KnowledgeName {
  part: string;
  vendor: string;
  product: string;
  rawKey?: string;
  foldedKey?: string;
  versionKey?: string;
  /** Host matching: the sort key of the version's next family (ranges overlapping the family are candidates). */
  familyEndKey?: string;
}

/** A CVE's knowledge as derived from its advisory records. */
export interface DerivedKnowledge {
  applicability: CveApplicability;
  criteria: IndexedCriterionRow[];
}

/** What a derivation reads for one CVE: its current record in each knowledge feed. */
export interface KnowledgeSources {
  cveId: string;
  nvd?: SourceRecord;
  cve5?: SourceRecord;
}

export interface SourceRecord {
  recordId: string;
  contentHash: string;
  record: unknown;
}

/**
 * Turns a CVE's advisory records into knowledge (undefined: the CVE has none). `version` goes into
 * the stored content hash: a new derivation version makes a rebuild re-derive everything.
 */
export interface KnowledgeDeriver {
  version: string;
  derive(sources: KnowledgeSources): DerivedKnowledge | undefined;
}

/** What a change of knowledge did. */
export interface KnowledgeChange {
  /** CVEs whose knowledge was written or removed. */
  cvesChanged: number;
  /** Criteria rows written. */
  criteria: number;
  /** `part:vendor:product` of every criterion removed or written (sorted). */
  touchedProducts: string[];
  /** CVEs whose derivation threw: their knowledge was left as it was. */
  failed?: Array<{ cveId: string; reason: string }>;
}

/** An entry of the CPE dictionary (NVD CPE API 2.0 product, or a name a match criterion lists). */
export interface CpeNameEntry {
  /** CPE 2.3 formatted string as published. */
  cpe: string;
  /**
   * `product`: a dictionary product object; its title, deprecation and last-modified replace what
   * is stored. `match`: a name listed by a match criterion; only marks the name as a dictionary name.
   */
  kind: 'product' | 'match';
  deprecated?: boolean;
  deprecatedBy?: string[];
  title?: string;
  lastModified?: string;
}

/** A product-level rename: names of `from` were deprecated in favour of names of `to`. */
export interface CpeAlias {
  from: { part: string; vendor: string; product: string };
  to: { part: string; vendor: string; product: string };
  /** Where the rename comes from (e.g. `nvd-cpe-dictionary`). */
  source: string;
}

export interface CpeNameSearch {
  part?: string;
  /** Exact, case-insensitive (unquoted value). */
  vendor?: string;
  product?: string;
  /** Exact, or a prefix when `versionPrefix`. */
  version?: string;
  versionPrefix?: boolean;
  order: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export interface CpeNameHit {
  /** The lower-cased CPE 2.3 string: the sort key. */
  id: string;
  /** As published. */
  cpe: string;
  deprecated: boolean;
  title?: string;
}

export interface CpeNameSearchResult {
  /** Every match, past any window. */
  total: number;
  names: CpeNameHit[];
}

export interface NameCriteria {
  /** The name as given. */
  cpe: string;
  /** Candidate criteria rows (the index contract; exact evaluation is the caller's). */
  criteria: StoredCriterion[];
}

/** A CPE name as the in-memory name index holds it: the id (sort key), the name as published, the search columns. */
export interface CpeNameRow {
  id: string;
  cpe: string;
  part: string;
  vendor: string;
  product: string;
  version: string;
}

/** An entry of the name change log: name `nameId` was written or removed. */
export interface CpeNameChange {
  seq: number;
  nameId: string;
}
