/**
 * The kinds of bucket the host index files every record in besides its terms. Each kind is a
 * family of posting lists keyed by an integer (an hour, a port, an IP block) whose keys can be
 * walked in order: that is how a broad result is paged in sort order and how a time or IP range
 * is united from whole buckets. A bucket's posting list is the term `<kind>#<key>` (`b4#655362`:
 * the records in 10.0.2.0/24).
 *
 * The values are those term-name prefixes. The index lives only in memory and is rebuilt from the
 * database at start, so no stored data depends on them.
 */
export const BucketKind = {
  /** Hour of the last observation (`observedAt / 1 h`): sort `timestamp`, observation-time ranges, expiry. */
  ObservedHour: 'to',
  /** Hour the record was first added (`dateAdded / 1 h`): sort `date_added`, date-added ranges. */
  AddedHour: 'ta',
  /** The port number: sort `port`, the `port` filter. */
  Port: 'port',
  /** IPv4 /24 block (`ipv4 >>> 8`): sort `ip`, CIDR ranges. */
  Ipv4Slash24: 'b4',
  /** IPv4 /16 block (`ipv4 >>> 16`): CIDR ranges (whole /16s spare uniting 256 /24 buckets). */
  Ipv4Slash16: 'b16',
  /** IPv6 /48 block (`ipv6 >> 80`): sort `ip`, CIDR ranges. */
  Ipv6Slash48: 'b6',
} as const;

export type BucketKind = (typeof BucketKind)[keyof typeof BucketKind];
