/** Every parameter /v3/index/target-intel knows, with how it filters (also served in `_meta.parameters`). */
export const TARGET_INTEL_PARAMETERS = [
  { name: 'cidr', format: 'IPv4/IPv6 CIDR or address', filtering: 'range' },
  { name: 'hostname', format: 'text, comma-separated', filtering: 'substring' },
  { name: 'domain', format: 'domain, comma-separated', filtering: 'suffix' },
  { name: 'cve', format: 'CVE-YYYY-N{4-7}', filtering: 'exact' },
  { name: 'vendor', format: 'text', filtering: 'exact, case-insensitive' },
  { name: 'product', format: 'text', filtering: 'exact, case-insensitive' },
  { name: 'version', format: 'text', filtering: 'exact, case-insensitive' },
  { name: 'cpe', format: 'CPE 2.3 or 2.2', filtering: 'cpe-match' },
  { name: 'asn', format: 'AS<number>', filtering: 'exact' },
  { name: 'country', format: 'country name', filtering: 'exact, case-insensitive' },
  { name: 'country_code', format: 'ISO 3166-1 alpha-2', filtering: 'exact' },
  { name: 'protocol', format: 'tcp|udp', filtering: 'exact' },
  { name: 'transport', format: 'tcp|udp', filtering: 'exact' },
  { name: 'port', format: '1-65535', filtering: 'exact' },
  { name: 'contains_cve', format: 'true|false', filtering: 'boolean' },
  { name: 'confirmed', format: 'true|false', filtering: 'boolean' },
  { name: 'classifications', format: 'type[:product], comma-separated', filtering: 'any' },
  { name: 'id', format: 'numeric', filtering: 'exact' },
  { name: 'date', format: 'YYYY-MM-DD', filtering: 'exact day of date_added' },
  { name: 'pubStartDate', format: 'YYYY-MM-DD or RFC 3339', filtering: 'range on date_added' },
  { name: 'pubEndDate', format: 'YYYY-MM-DD or RFC 3339', filtering: 'range on date_added' },
  { name: 'updatedAtStartDate', format: 'YYYY-MM-DD or RFC 3339', filtering: 'range on timestamp' },
  { name: 'updatedAtEndDate', format: 'YYYY-MM-DD or RFC 3339', filtering: 'range on timestamp' },
  { name: 'lastModStartDate', format: 'YYYY-MM-DD or RFC 3339', filtering: 'range on timestamp' },
  { name: 'lastModEndDate', format: 'YYYY-MM-DD or RFC 3339', filtering: 'range on timestamp' },
  { name: 'page', format: 'numeric', filtering: 'paging' },
  { name: 'limit', format: '1-100 (1-2000 with a cursor)', filtering: 'paging' },
  { name: 'start_cursor', format: 'true', filtering: 'paging' },
  { name: 'cursor', format: 'opaque', filtering: 'paging' },
  { name: 'sort', format: 'timestamp|date_added|ip|port', filtering: 'sort' },
  { name: 'order', format: 'asc|desc', filtering: 'sort' },
  { name: 'explain', format: 'true|false', filtering: 'display: adds cve_evidence to each record' },
] as const;

export const FILTER_NAMES = TARGET_INTEL_PARAMETERS.filter(
  (p) => p.filtering !== 'paging' && p.filtering !== 'sort' && !p.filtering.startsWith('display'),
).map((p) => p.name);

/** Known but not filters: the token, and the display switches the official clients send. */
export const CLIENT_PARAMETERS = ['token', 'show_pages', 'show_query'] as const;
