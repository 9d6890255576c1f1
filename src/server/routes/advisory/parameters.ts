import { ADVISORY_FILTER_NAMES, type AdvisoryQuery } from '../../../core/api/index.js';

export type { AdvisoryQuery };

/** The filter parameters present, in a canonical order; what a cursor carries. */
export function filterParams(raw: Partial<Record<string, unknown>>): Record<string, string> {
  const filters: Record<string, string> = {};
  for (const name of ADVISORY_FILTER_NAMES) {
    const value = raw[name];
    if (typeof value === 'string' && value !== '') filters[name] = value;
  }
  return filters;
}
