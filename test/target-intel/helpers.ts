import { expect } from 'vitest';
import type { TestApp } from '../support/app.js';
import { describeErrors, validateAgainst } from '../support/contract.js';
import { byLabel, labelsInOrder, TI, type Label } from './dataset.js';

/**
 * Expected ascending orders of the dataset per sort field, as groups of records whose sort keys
 * tie (their order inside a group is the implementation's tie-break, which must merely be stable).
 */
export const ASC_GROUPS: Record<'timestamp' | 'date_added' | 'ip' | 'port', Label[][]> = {
  timestamp: [
    ['R2', 'R18', 'R19'],
    ['R3'],
    ['R21'],
    ['R4'],
    ['R5'],
    ['R1'],
    ['R6'],
    ['R7'],
    ['R8'],
    ['R20'],
    ['R9'],
    ['R10'],
    ['R11'],
    ['R12'],
    ['R14'],
    ['R15'],
    ['R16'],
    ['R17'],
  ],
  date_added: [
    ['R1'],
    ['R2', 'R18', 'R19'],
    ['R3'],
    ['R21'],
    ['R4'],
    ['R5'],
    ['R6'],
    ['R7'],
    ['R8'],
    ['R20'],
    ['R9'],
    ['R10'],
    ['R11'],
    ['R12'],
    ['R14'],
    ['R15'],
    ['R16'],
    ['R17'],
  ],
  // Numeric address order (192.0.2.9 before 192.0.2.10), IPv4 before IPv6, then port.
  ip: [
    ['R14'],
    ['R15'],
    ['R16'],
    ['R17'],
    ['R21'],
    ['R12'],
    ['R1'],
    ['R2'],
    ['R3'],
    ['R18'],
    ['R19'],
    ['R4'],
    ['R5'],
    ['R6'],
    ['R7'],
    ['R8', 'R20'],
    ['R9'],
    ['R10'],
    ['R11'],
  ],
  port: [
    ['R3', 'R10', 'R12'],
    ['R8', 'R20'],
    ['R2'],
    ['R1', 'R5', 'R7', 'R9', 'R15', 'R19', 'R21'],
    ['R14'],
    ['R11', 'R16', 'R18'],
    ['R4'],
    ['R17'],
    ['R6'],
  ],
};

/** Asserts `actual` (labels in served order) follows `groups` (each group in any order). */
export function expectGroupedOrder(actual: string[], groups: string[][]): void {
  const sizes = groups.map((g) => g.length);
  expect(actual.length, `served ${actual.join(',')}`).toBe(sizes.reduce((a, b) => a + b, 0));
  let offset = 0;
  const got: string[][] = [];
  for (const size of sizes) {
    got.push(actual.slice(offset, offset + size).sort(byLabel));
    offset += size;
  }
  expect(got).toEqual(groups.map((g) => [...g].sort(byLabel)));
}

/** Follows a cursor walk to its end; returns every page's body. */
export async function walk(t: TestApp, firstQuery: string, between?: (page: number) => Promise<void>): Promise<any[]> {
  const pages: any[] = [];
  let response = await t.get(`${TI}?${firstQuery}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  pages.push(response.body);
  for (let guard = 0; response.body._meta.next_cursor !== undefined; guard++) {
    if (guard > 10_000) throw new Error('cursor walk does not end');
    if (between) await between(pages.length);
    response = await t.get(`${TI}?cursor=${encodeURIComponent(response.body._meta.next_cursor)}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    pages.push(response.body);
  }
  return pages;
}

export const servedLabels = (pages: any[]) => pages.flatMap((body) => labelsInOrder(body));

/** Labels of every record served by a plain offset request (limit 100). */
export async function offsetLabels(t: TestApp, query: string): Promise<string[]> {
  const response = await t.get(`${TI}?limit=100&${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return labelsInOrder(response.body);
}

export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export const TARGET_INTEL_SCHEMA = 'render.ResponseWithMetadata-array_api_TargetIntel-paginate_Pagination';

/**
 * The issue asks for `cve: null` on records without a CVE (as VulnCheck serves it), while the
 * contract schema types `api.TargetIntel.cve` as a non-nullable array. Those `type` errors at
 * `/data/N/cve` for a null value are the one deviation the tests accept; everything else must
 * validate. Returns the remaining errors, described.
 */
export function schemaErrors(body: any): string[] {
  const errors = validateAgainst(TARGET_INTEL_SCHEMA, body).filter((error) => {
    const match = /^\/data\/(\d+)\/cve$/.exec(error.instancePath);
    return !(match && error.keyword === 'type' && body?.data?.[Number(match[1])]?.cve === null);
  });
  return describeErrors(errors);
}
