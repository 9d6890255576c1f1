import type { Wfn } from '../core/cpe.js';
import type { IpRange } from '../core/ip.js';

/** A half-open time interval in epoch ms: from ≤ t < to. */
export interface TimeRange {
  from?: number;
  to?: number;
}

/** A validated target-intel filter; every present field must hold (AND). */
export interface HostQuery {
  id?: number;
  cidr?: IpRange;
  /** Case-insensitive substrings of the hostname; any may match. */
  hostnameContains?: string[];
  /** Hostname suffixes (the domain itself or a subdomain); any may match. */
  domains?: string[];
  cve?: string;
  vendor?: string;
  product?: string;
  version?: string;
  /** Other (vendor, product) names of the filtered product through renames: a fingerprint under any of them matches too. */
  renamedAs?: Array<{ vendor: string; product: string }>;
  cpe?: Wfn;
  asn?: string;
  country?: string;
  countryCode?: string;
  protocol?: string;
  port?: number;
  containsCve?: boolean;
  confirmed?: boolean;
  /** Any may match; a bare type matches every `type:product` too. */
  classifications?: string[];
  dateAdded: TimeRange[];
  observed: TimeRange[];
}

export type SortField = 'timestamp' | 'date_added' | 'ip' | 'port';
export type SortOrder = 'asc' | 'desc';

/** A position in a sort order: the sort key of the last record served, then its id. */
export interface SortPosition {
  key: Array<number | string>;
  id: number;
}

export interface PageRequest {
  sort: SortField;
  order: SortOrder;
  offset: number;
  limit: number;
  /** Cursor mode: records strictly after this position. */
  after?: SortPosition;
  /** Cursor mode: only records unchanged since this change-log sequence number. */
  snapshotSeq?: number;
}

export interface PageResult {
  total: number;
  ids: number[];
}
