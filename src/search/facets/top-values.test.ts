import { describe, expect, it } from 'vitest';
import type { FacetField } from './fields.js';
import { topValues } from './top-values.js';

const entries = (...pairs: Array<[string | number, number]>) => pairs;

describe('topValues', () => {
  it.each([
    {
      name: 'counts decide, then values ascending among equal counts',
      field: 'country_code' as FacetField,
      top: 3,
      given: entries(['US', 5], ['DE', 7], ['FR', 5], ['AT', 5], ['NL', 1]),
      expected: entries(['DE', 7], ['AT', 5], ['FR', 5]),
    },
    {
      name: 'ties at the last place kept are cut by value',
      field: 'cve' as FacetField,
      top: 2,
      given: entries(['CVE-2024-3', 1], ['CVE-2024-1', 1], ['CVE-2024-2', 1]),
      expected: entries(['CVE-2024-1', 1], ['CVE-2024-2', 1]),
    },
    {
      name: 'numeric fields order their ties by number',
      field: 'asn' as FacetField,
      top: 2,
      given: entries(['AS100', 2], ['AS20', 2], ['AS3', 2]),
      expected: entries(['AS3', 2], ['AS20', 2]),
    },
    {
      name: 'fewer values than asked: all of them',
      field: 'port' as FacetField,
      top: 10,
      given: entries([443, 1], [80, 3], [22, 1]),
      expected: entries([80, 3], [22, 1], [443, 1]),
    },
    {
      name: 'nothing asked',
      field: 'port' as FacetField,
      top: 0,
      given: entries([443, 1]),
      expected: entries(),
    },
  ])('$name', ({ field, top, given, expected }) => {
    const chosen = topValues(
      field,
      given.length,
      top,
      (i) => given[i]![1],
      (i) => given[i]![0],
    );
    expect(chosen.values.map(({ value, count }) => [value, count])).toEqual(expected);
    expect(chosen.indexes.map((i) => given[i]![0])).toEqual(expected.map(([value]) => value));
  });
});
