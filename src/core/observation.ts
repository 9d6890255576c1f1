/**
 * What a scanner saw: one service on one ip/port/transport at one time. Every input reader
 * (NDJSON, nmap XML, Shodan, masscan) produces these; the ingest pipeline enriches, matches and
 * upserts them into the target-intel index.
 */
export type Transport = 'tcp' | 'udp';

/** One identified piece of software on the port. Extra scanner fields are kept as strings. */
export interface Fingerprint {
  /** CPE 2.3 formatted string, when known. */
  cpe?: string;
  vendor?: string;
  product?: string;
  version?: string;
  /** Any other scanner-reported fields (service name, banner, extrainfo…), always strings. */
  [extra: string]: string | undefined;
}

export interface Observation {
  /** Canonical textual IP (IPv4 dotted quad or compressed IPv6). */
  ip: string;
  port: number;
  protocol: Transport;
  /** Hostnames the scanner reported, most authoritative first. */
  hostnames: string[];
  /** When the scanner observed the service (epoch milliseconds, UTC). */
  timestamp: number;
  fingerprints: Fingerprint[];
  /** Host OS CPEs (CPE 2.3) from the same scan, used by AND configurations. */
  osCpes: string[];
  /** CVE ids the scanner itself reported for this service. */
  cves: string[];
  /** Classifications carried by the input (already validated values). */
  classifications: string[];
  /** Enrichment the source itself carried (e.g. Shodan); mmdb data wins over these when present. */
  asn?: string;
  asName?: string;
  country?: string;
  countryCode?: string;
}

/** Where an item came from, for error reports: file name and 1-based line (or element index). */
export interface SourcePosition {
  file: string;
  line: number;
}

export type ReadItem =
  | { kind: 'observation'; observation: Observation; at: SourcePosition }
  | { kind: 'rejected'; at: SourcePosition; reason: string };
