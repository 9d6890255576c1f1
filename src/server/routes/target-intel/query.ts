import { normaliseClassification } from '../../../core/classification.js';
import { parseCpeQuery } from '../../../core/cpe.js';
import { badRequest } from '../../../core/errors.js';
import { parseCidr } from '../../../core/ip.js';
import type { HostQuery, SortField, SortOrder } from '../../../search/host-query.js';
import { commaList, parseBoolean, parseDateBound, parseDay, parseEnum, parseInteger } from '../../params.js';
import { FILTER_NAMES } from './parameters.js';

export type RawParams = Record<string, string>;

const CVE = /^CVE-\d{4}-\d{4,}$/i;
const SORTS: readonly SortField[] = ['timestamp', 'date_added', 'ip', 'port'];
const ORDERS: readonly SortOrder[] = ['asc', 'desc'];

/** The filter parameters present (non-empty), in a canonical order; what a cursor carries. */
export function filterParams(raw: RawParams): RawParams {
  const filters: RawParams = {};
  for (const name of FILTER_NAMES) if (raw[name] !== undefined && raw[name] !== '') filters[name] = raw[name];
  return filters;
}

/** Validates the filter parameters into a HostQuery; a bad value is a 400 naming the parameter. */
export function parseHostQuery(filters: RawParams): HostQuery {
  const query: HostQuery = { dateAdded: [], observed: [] };
  for (const [name, value] of Object.entries(filters)) {
    switch (name) {
      case 'cidr':
        query.cidr = wrap(name, () => parseCidr(value));
        break;
      case 'hostname':
        query.hostnameContains = commaList(value);
        break;
      case 'domain':
        query.domains = commaList(value);
        break;
      case 'cve':
        if (!CVE.test(value)) throw badRequest(`parameter "cve" must look like CVE-YYYY-NNNN, got "${value}"`);
        query.cve = value.toUpperCase();
        break;
      case 'vendor':
      case 'product':
      case 'version':
        query[name] = value.trim();
        break;
      case 'cpe':
        query.cpe = wrap(name, () => parseCpeQuery(value));
        break;
      case 'asn': {
        const match = /^(?:AS)?(\d{1,10})$/i.exec(value.trim());
        if (!match) throw badRequest(`parameter "asn" must look like AS<number>, got "${value}"`);
        query.asn = `AS${Number(match[1])}`;
        break;
      }
      case 'country':
        query.country = value.trim();
        break;
      case 'country_code':
        if (!/^[a-z]{2}$/i.test(value.trim())) {
          throw badRequest(`parameter "country_code" must be a two-letter ISO 3166-1 code, got "${value}"`);
        }
        query.countryCode = value.trim().toUpperCase();
        break;
      case 'protocol':
      case 'transport': {
        const protocol = parseEnum(name, value, ['tcp', 'udp'] as const);
        if (query.protocol && query.protocol !== protocol) {
          throw badRequest(`parameters "protocol" and "transport" disagree ("${query.protocol}" vs "${protocol}")`);
        }
        query.protocol = protocol;
        break;
      }
      case 'port':
        query.port = parseInteger(name, value, 1, 65535);
        break;
      case 'contains_cve':
        query.containsCve = parseBoolean(name, value);
        break;
      case 'confirmed':
        query.confirmed = parseBoolean(name, value);
        break;
      case 'classifications':
        query.classifications = commaList(value).map((item) => wrap(name, () => normaliseClassification(item)));
        break;
      case 'id':
        query.id = parseInteger(name, value, 1, 2 ** 32 - 1);
        break;
      case 'date': {
        const day = parseDay(name, value);
        query.dateAdded.push({ from: day.start, to: day.end });
        break;
      }
      case 'pubStartDate':
        query.dateAdded.push({ from: parseDateBound(name, value).start });
        break;
      case 'pubEndDate':
        query.dateAdded.push({ to: parseDateBound(name, value).end });
        break;
      case 'updatedAtStartDate':
      case 'lastModStartDate':
        query.observed.push({ from: parseDateBound(name, value).start });
        break;
      case 'updatedAtEndDate':
      case 'lastModEndDate':
        query.observed.push({ to: parseDateBound(name, value).end });
        break;
    }
  }
  return query;
}

export function parseSort(raw: RawParams): { sort: SortField; order: SortOrder } {
  return {
    sort: raw.sort ? parseEnum('sort', raw.sort, SORTS) : 'timestamp',
    order: raw.order ? parseEnum('order', raw.order, ORDERS) : 'desc',
  };
}

/** Runs a core parser, turning its invalid-input error into a 400 that names the parameter. */
function wrap<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw badRequest(`parameter "${name}": ${(error as Error).message}`);
  }
}
