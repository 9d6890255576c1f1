import { badRequest } from '../../../core/errors.js';
import { FACET_FIELDS, type FacetField, type FacetRequest } from '../../../search/facets/fields.js';

export const MAX_FACET_FIELDS = 10;
export const DEFAULT_FACET_TOP = 10;
export const MAX_FACET_TOP = 1000;

/** `fields=country_code,port:20,…` → what to count; any fault is a 400 naming `fields`. */
export function parseFacetFields(value: string | undefined): FacetRequest[] {
  const fail = (why: string) =>
    badRequest(
      `parameter "fields" ${why}: give up to ${MAX_FACET_FIELDS} of ${FACET_FIELDS.join(', ')}, each with an optional :N (1–${MAX_FACET_TOP})`,
    );
  if (value === undefined || value.trim() === '') throw fail('is required');
  const items = value.split(',').map((item) => item.trim());
  if (items.length > MAX_FACET_FIELDS) throw fail(`names ${items.length} fields`);
  const requests: FacetRequest[] = [];
  for (const item of items) {
    const [name = '', top, ...rest] = item.split(':');
    const field = name.toLowerCase() as FacetField;
    if (!FACET_FIELDS.includes(field)) throw fail(`has an unknown field "${name}"`);
    if (requests.some((request) => request.field === field)) throw fail(`names "${field}" twice`);
    if (rest.length > 0 || (top !== undefined && !/^\d+$/.test(top))) {
      throw fail(`gives "${item}", where N must be a whole number`);
    }
    const n = top === undefined ? DEFAULT_FACET_TOP : Number(top);
    if (n < 1 || n > MAX_FACET_TOP) throw fail(`asks for the top ${top} of "${field}"`);
    requests.push({ field, top: n });
  }
  return requests;
}
