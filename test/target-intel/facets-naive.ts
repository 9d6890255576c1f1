/**
 * Facet counts worked out the plain way, over served target-intel records: the reference the
 * facets endpoint is compared with.
 */

export interface NaiveCounts {
  values: Array<{ value: string | number; count: number }>;
  missing: number;
  other: number;
}

const lower = (values: string[] | undefined) => (values ?? []).map((value) => value.toLowerCase());
const day = (iso: string) => iso.slice(0, 10);
const one = (value: string | number | undefined) => (value === undefined ? [] : [value]);

/** A served record's values of a facet field (distinct). */
export function recordValues(record: any, field: string): Array<string | number> {
  const values: Array<string | number> = (() => {
    switch (field) {
      case 'country':
        return one(record.country?.toLowerCase());
      case 'country_code':
        return one(record.country_code);
      case 'asn':
        return one(record.asn);
      case 'as_name':
        return one(record.as_name);
      case 'port':
        return [record.port];
      case 'protocol':
        return [record.protocol];
      case 'vendor':
      case 'product':
      case 'version':
      case 'cpe':
        return lower(record[field]);
      case 'cve':
        return record.cve ?? [];
      case 'classifications':
        return record.classifications ?? [];
      case 'date_added':
        return [day(record.date_added)];
      case 'timestamp':
        return [day(record.timestamp)];
      default:
        throw new Error(`no field ${field}`);
    }
  })();
  return [...new Set(values)];
}

const numeric = (field: string) => field === 'port' || field === 'asn';
const numberOf = (value: string | number) => (typeof value === 'number' ? value : Number(value.replace(/^AS/, '')));

export function naiveFacet(records: any[], field: string, top: number): NaiveCounts {
  const counts = new Map<string | number, number>();
  let missing = 0;
  for (const record of records) {
    const values = recordValues(record, field);
    if (values.length === 0) missing++;
    for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  const byValue = (a: string | number, b: string | number) =>
    (numeric(field) ? numberOf(a) - numberOf(b) : 0) || (a < b ? -1 : a > b ? 1 : 0);
  const values = [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || byValue(a.value, b.value))
    .slice(0, top);
  const shown = new Set(values.map((v) => v.value));
  const other = records.filter((record) => recordValues(record, field).some((value) => !shown.has(value))).length;
  return { values, missing, other };
}
