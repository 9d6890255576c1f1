import { quoteWfnValue } from '../../../core/cpe.js';
import { badRequest } from '../../../core/errors.js';
import { parseBoolean, parseEnum, parseInteger } from '../../params.js';

export const CPE_SEARCH_PARAMETERS = [
  'part',
  'vendor',
  'product',
  'version',
  'isVulnerable',
  'page',
  'limit',
  'sort',
  'order',
] as const;
/** Sent by the official clients; not filters. */
export const CPE_SEARCH_CLIENT_PARAMETERS = ['token'] as const;

export const RESULT_WINDOW = 10_000;
const LIMIT_MAX = 100;
const PARTS = ['a', 'o', 'h'] as const;

export interface CpeSearchQuery {
  part?: string;
  vendor?: string;
  product?: string;
  /** Exact version, or the prefix before a trailing `*`. */
  version?: string;
  versionPrefix: boolean;
  isVulnerable: boolean;
  page: number;
  limit: number;
  order: 'asc' | 'desc';
}

/** A CPE attribute value as a plain (unquoted, lower-cased) string; it must be expressible in a CPE. */
function attribute(name: string, value: string): string {
  const plain = value.trim().toLowerCase();
  if (plain === '') throw badRequest(`parameter "${name}" must not be empty`);
  try {
    quoteWfnValue(plain);
  } catch (error) {
    throw badRequest(`parameter "${name}": ${(error as Error).message}`);
  }
  return plain;
}

export function parseCpeSearch(raw: Record<string, string>): CpeSearchQuery {
  const page = raw.page ? parseInteger('page', raw.page, 1, Number.MAX_SAFE_INTEGER) : 1;
  const limit = raw.limit ? parseInteger('limit', raw.limit, 1, LIMIT_MAX) : LIMIT_MAX;
  if (page * limit > RESULT_WINDOW) {
    throw badRequest(
      `failed to compose the search query: invalid pagination parameters: page × limit exceeds the maximum result window of ${RESULT_WINDOW} (received page=${page}, limit=${limit})`,
    );
  }
  if (raw.sort !== undefined) parseEnum('sort', raw.sort, ['_id'] as const);
  const query: CpeSearchQuery = {
    versionPrefix: false,
    isVulnerable: raw.isVulnerable ? parseBoolean('isVulnerable', raw.isVulnerable) : false,
    page,
    limit,
    order: raw.order ? parseEnum('order', raw.order, ['asc', 'desc'] as const) : 'asc',
  };
  if (raw.part !== undefined) query.part = parseEnum('part', raw.part.trim(), PARTS);
  if (raw.vendor !== undefined) query.vendor = attribute('vendor', raw.vendor);
  if (raw.product !== undefined) query.product = attribute('product', raw.product);
  if (raw.version !== undefined) {
    const version = raw.version.trim().toLowerCase();
    const prefix = version.endsWith('*');
    const stem = prefix ? version.slice(0, -1) : version;
    if (stem.includes('*'))
      throw badRequest(`parameter "version": "*" is allowed only at the end (a prefix match), got "${raw.version}"`);
    if (stem !== '') query.version = attribute('version', stem);
    // A bare `*` is every version: no filter.
    query.versionPrefix = prefix && stem !== '';
  }
  return query;
}
