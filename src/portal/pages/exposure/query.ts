import type { TargetIntelFacetsQuery, TargetIntelQuery } from '../../../client/index.js';
import { TARGET_INTEL_FILTER_NAMES, type TargetIntelFilterName } from '../../../core/api/index.js';
import { PORTAL_PAGES } from '../../../core/portal/pages.js';
import { urlOf } from '../../router.js';

/** One filter of the search form: its label and how it is entered. */
export interface FilterField {
  name: TargetIntelFilterName;
  label: string;
  /** Fixed values: shown as a select ("" = any). */
  options?: ReadonlyArray<{ value: string; label: string }>;
  placeholder?: string;
  hint?: string;
  numeric?: boolean;
  /** Shown under "More filters". */
  more?: boolean;
}

const PROTOCOLS = [
  { value: 'tcp', label: 'TCP' },
  { value: 'udp', label: 'UDP' },
];
const YES_NO = [
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
];
const DAY = 'YYYY-MM-DD';
const INSTANT = 'YYYY-MM-DD or RFC 3339';

/** Every filter of `/v3/index/target-intel`, in the order of the form. */
export const FILTER_FIELDS: readonly FilterField[] = [
  { name: 'cve', label: 'CVE', placeholder: 'CVE-2021-44228' },
  { name: 'vendor', label: 'Vendor', placeholder: 'apache' },
  { name: 'product', label: 'Product', placeholder: 'http_server' },
  { name: 'version', label: 'Version', placeholder: '2.4.49' },
  { name: 'cpe', label: 'CPE', placeholder: 'cpe:2.3:a:apache:http_server' },
  { name: 'hostname', label: 'Hostname contains', placeholder: 'mail, vpn' },
  { name: 'domain', label: 'Domain', placeholder: 'example.com' },
  { name: 'cidr', label: 'IP address or CIDR', placeholder: '198.51.100.0/24' },
  { name: 'port', label: 'Port', placeholder: '443', numeric: true },
  { name: 'protocol', label: 'Protocol', options: PROTOCOLS },
  { name: 'country_code', label: 'Country code', placeholder: 'US' },
  { name: 'country', label: 'Country name', placeholder: 'Germany' },
  { name: 'asn', label: 'ASN', placeholder: 'AS64496' },
  { name: 'classifications', label: 'Classifications', placeholder: 'c2, proxy:tor' },
  { name: 'contains_cve', label: 'Has a CVE', options: YES_NO },
  { name: 'confirmed', label: 'Has a confirmed CVE', options: YES_NO },
  { name: 'date', label: 'First seen on', placeholder: DAY, more: true },
  { name: 'pubStartDate', label: 'First seen from', placeholder: INSTANT, more: true },
  { name: 'pubEndDate', label: 'First seen until', placeholder: INSTANT, more: true },
  { name: 'updatedAtStartDate', label: 'Last seen from', placeholder: INSTANT, more: true },
  { name: 'updatedAtEndDate', label: 'Last seen until', placeholder: INSTANT, more: true },
  { name: 'lastModStartDate', label: 'Last seen from (lastModStartDate)', placeholder: INSTANT, more: true },
  { name: 'lastModEndDate', label: 'Last seen until (lastModEndDate)', placeholder: INSTANT, more: true },
  { name: 'transport', label: 'Transport (same as protocol)', options: PROTOCOLS, more: true },
  { name: 'id', label: 'Record id', placeholder: '1234', numeric: true, more: true },
];

/** The classification types the `classifications` filter knows (docs/classifications.md). */
export { CLASSIFICATION_TYPES } from '../../../core/classification.js';

export const SORTS = [
  { value: 'timestamp', label: 'Last seen' },
  { value: 'date_added', label: 'First seen' },
  { value: 'ip', label: 'IP address' },
  { value: 'port', label: 'Port' },
];
export const ORDERS = [
  { value: 'desc', label: 'Descending' },
  { value: 'asc', label: 'Ascending' },
];

/** Records per page of the search. */
export const PAGE_SIZE = 25;

/** The URL parameters of the search page: the filters, then paging and sorting. */
export const DISPLAY_PARAMETERS = ['sort', 'order', 'page'] as const;

export type Search = Partial<Record<TargetIntelFilterName | (typeof DISPLAY_PARAMETERS)[number], string>>;

/** The search a URL holds: every known parameter with a non-empty value, as text. */
export function searchOf(query: URLSearchParams): Search {
  const search: Search = {};
  for (const name of [...TARGET_INTEL_FILTER_NAMES, ...DISPLAY_PARAMETERS]) {
    const value = query.get(name)?.trim();
    if (value) search[name] = value;
  }
  return search;
}

/** The filters alone (no paging or sorting). */
export function filtersOf(search: Search): Search {
  const filters: Search = {};
  for (const name of TARGET_INTEL_FILTER_NAMES) if (search[name] !== undefined) filters[name] = search[name];
  return filters;
}

/** The search page's URL for a search. */
export const searchUrl = (search: Search): string => urlOf(PORTAL_PAGES.exposure, search);

/**
 * The API query of one page of results. Values go to the server as the URL has them: the server
 * checks them and answers a 400 naming the parameter, which the page shows.
 */
export function pageQuery(search: Search): TargetIntelQuery {
  return { ...search, limit: PAGE_SIZE } as unknown as TargetIntelQuery;
}

/** The facet fields the page shows as bar charts: the field, its title, and the filter it sets. */
export const FACET_CHARTS = [
  { field: 'country_code', title: 'Countries', filter: 'country_code' },
  { field: 'port', title: 'Ports', filter: 'port' },
  { field: 'product', title: 'Products', filter: 'product' },
  { field: 'cve', title: 'CVEs', filter: 'cve' },
  { field: 'asn', title: 'Autonomous systems', filter: 'asn' },
  { field: 'classifications', title: 'Classifications', filter: 'classifications' },
] as const;

/** Countries for the map (every one there is), days for the date chart (about three years). */
export const MAP_COUNTRIES = 250;
export const DATE_DAYS = 1000;
export const FACET_FIELDS = `country_code:${MAP_COUNTRIES},port,product,cve,asn,classifications,date_added:${DATE_DAYS}`;

/** The one facets call of a search: every chart's counts. */
export function facetsQuery(search: Search): TargetIntelFacetsQuery {
  return { ...filtersOf(search), fields: FACET_FIELDS } as unknown as TargetIntelFacetsQuery;
}

/** The host record page of one service. */
export const hostUrl = (record: { ip: string; port: number; protocol: string }): string =>
  urlOf(PORTAL_PAGES.host, { ip: record.ip, port: record.port, protocol: record.protocol });
