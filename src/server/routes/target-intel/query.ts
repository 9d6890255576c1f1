import { normaliseClassification } from '../../../core/classification.js';
import { parseCpeQuery } from '../../../core/cpe.js';
import { badRequest } from '../../../core/errors.js';
import { parseCidr } from '../../../core/ip.js';
import type { HostQuery, SortField, SortOrder } from '../../../search/host-query.js';
import { commaList, parseDateBound, parseDay } from '../../params.js';
import { Value } from '@sinclair/typebox/value';
import { TARGET_INTEL_FILTER_NAMES, TargetIntelFilters, type TargetIntelQuery } from '../../../core/api/index.js';

export type { TargetIntelFilters };

/** The filter parameters present, in a canonical order; what a cursor carries. */
export function filterParams(raw: TargetIntelFilters): TargetIntelFilters {
  const filters: Record<string, unknown> = {};
  for (const name of TARGET_INTEL_FILTER_NAMES) if (raw[name] !== undefined) filters[name] = raw[name];
  return filters as TargetIntelFilters;
}

/** The filters as the strings they were sent as: what a cursor seals and `_meta.matches` shows. */
export function filterStrings(filters: TargetIntelFilters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).map(([name, value]) => [name, String(value)]));
}

/** Filters given as strings (a cursor's, already validated when its walk started) with their declared types. */
export function typedFilters(strings: Record<string, string>): TargetIntelFilters {
  return Value.Convert(TargetIntelFilters, strings) as TargetIntelFilters;
}

/** Validates the filter parameters into a HostQuery; a bad value is a 400 naming the parameter. */
export function parseHostQuery(filters: TargetIntelFilters): HostQuery {
  const query: HostQuery = { dateAdded: [], observed: [] };
  for (const [name, given] of Object.entries(filters)) {
    if (given === undefined) continue;
    const value = String(given);
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
      case 'asn':
        query.asn = `AS${Number(value.replace(/^AS/i, ''))}`;
        break;
      case 'country':
        query.country = value.trim();
        break;
      case 'country_code':
        query.countryCode = value.trim().toUpperCase();
        break;
      case 'protocol':
      case 'transport': {
        const protocol = filters[name]!;
        if (query.protocol && query.protocol !== protocol) {
          throw badRequest(`parameters "protocol" and "transport" disagree ("${query.protocol}" vs "${protocol}")`);
        }
        query.protocol = protocol;
        break;
      }
      case 'port':
        query.port = filters.port!;
        break;
      case 'contains_cve':
        query.containsCve = filters.contains_cve!;
        break;
      case 'confirmed':
        query.confirmed = filters.confirmed!;
        break;
      case 'classifications':
        query.classifications = commaList(value).map((item) => wrap(name, () => normaliseClassification(item)));
        break;
      case 'id':
        query.id = filters.id!;
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

export function sortOf(raw: TargetIntelQuery): { sort: SortField; order: SortOrder } {
  return { sort: raw.sort ?? 'timestamp', order: raw.order ?? 'desc' };
}

/** Runs a core parser, turning its invalid-input error into a 400 that names the parameter. */
function wrap<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw badRequest(`parameter "${name}": ${(error as Error).message}`);
  }
}
