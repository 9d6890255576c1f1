import type { Fingerprint } from './observation.js';

/** One target-intel record as the ingest pipeline writes it. */
export interface HostWrite {
  ip: string;
  ipKey: string;
  port: number;
  protocol: string;
  /** '' for an observation with no fingerprint identity (e.g. masscan). */
  fpKey: string;
  hostname: string;
  observedAt: number;
  asn?: string;
  asName?: string;
  asDomain?: string;
  country?: string;
  countryCode?: string;
  fingerprints: Fingerprint[];
  osCpes: string[];
  scannerCves: string[];
  /** CVEs the knowledge matcher confirmed (exact version or inside a range, configuration satisfied). */
  knowledgeCves: string[];
  /** scannerCves ∪ knowledgeCves. */
  cves: string[];
  observedClassifications: string[];
  classifications: string[];
}

/** A stored record (JSON columns parsed). */
export interface HostRecord extends HostWrite {
  id: number;
  dateAdded: number;
}

/**
 * What the in-memory index reads of a record. The list columns stay JSON text: records repeat the
 * same few thousand lists, so the index parses each distinct text once instead of every row.
 */
export interface IndexEntry {
  id: number;
  ip: string;
  port: number;
  protocol: string;
  hostname: string;
  observedAt: number;
  dateAdded: number;
  asn?: string;
  asName?: string;
  country?: string;
  countryCode?: string;
  fingerprintsJson: string;
  cvesJson: string;
  /** Whether the knowledge matcher confirmed any CVE. */
  confirmed: boolean;
  classificationsJson: string;
}

/** What a page of the target-intel API shows of a record (no keys, no matching inputs). */
export type PageRecord = Pick<
  HostRecord,
  | 'id'
  | 'ip'
  | 'port'
  | 'protocol'
  | 'hostname'
  | 'observedAt'
  | 'dateAdded'
  | 'asn'
  | 'asName'
  | 'asDomain'
  | 'country'
  | 'countryCode'
  | 'fingerprints'
  | 'cves'
  | 'classifications'
>;

/** What CVE matching reads of a stored record. */
export type HostMatchInput = Pick<HostRecord, 'id' | 'fingerprints' | 'osCpes' | 'scannerCves' | 'knowledgeCves'>;

export interface HostChange {
  seq: number;
  hostId: number;
  deleted: boolean;
  /** Set when the record was observed again with nothing else changed: its new observation time. */
  observedAt?: number;
}
