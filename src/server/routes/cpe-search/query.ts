import { quoteWfnValue } from '../../../core/cpe.js';
import { badRequest } from '../../../core/errors.js';
import type { CpeSearchQuery } from '../../../core/api/index.js';

export const RESULT_WINDOW = 10_000;
const LIMIT_MAX = 100;

/** A CPE search as the index runs it. */
export interface CpeSearch {
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

export function parseCpeSearch(raw: CpeSearchQuery): CpeSearch {
  const page = raw.page ?? 1;
  const limit = raw.limit ?? LIMIT_MAX;
  if (page * limit > RESULT_WINDOW) {
    throw badRequest(
      `failed to compose the search query: invalid pagination parameters: page × limit exceeds the maximum result window of ${RESULT_WINDOW} (received page=${page}, limit=${limit})`,
    );
  }
  const query: CpeSearch = {
    versionPrefix: false,
    isVulnerable: raw.isVulnerable ?? false,
    page,
    limit,
    order: raw.order ?? 'asc',
  };
  if (raw.part !== undefined) query.part = raw.part;
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
